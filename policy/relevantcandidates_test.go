package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
	"pgregory.net/rapid"

	"github.com/effectlint/effectlint/analyzer"
)

// relevantReference is what relevant_candidates replaced: every unkeyed
// candidate tested for every question (unkeyed_relevant, the rules' own
// test until the index). It is compiled beside the built-in rules
// (package effectlint), so that both read the same helpers.
const relevantReference = `package effectlint

unkeyed_relevant(_) if q.key == ""

unkeyed_relevant(f) if not known_destination(unkeyed_destination(f))

unkeyed_relevant(f) if may_be_same_as_asked(f.unkeyed_destination)

ref_relevant := [f | some f in unkeyed_candidates; unkeyed_relevant(f)]

relevant_differs := relevant_unkeyed != ref_relevant
`

// relevantQuery evaluates, for one question: whether the index differs
// from the reference, how many candidates there are and how many the
// reference finds relevant.
func relevantQuery(t tb) rego.PreparedEvalQuery {
	return referenceQuery(t, relevantReference, `
		d := data.effectlint.relevant_differs
		got := data.effectlint.relevant_unkeyed
		want := data.effectlint.ref_relevant
		all := count(data.effectlint.unkeyed_candidates)`)
}

// relevantTally counts what a comparison reached: questions whose
// candidates are all relevant, some, and none.
type relevantTally struct{ all, some, none int }

// compareRelevant asks q over f with the reference beside the index.
func compareRelevant(t interface {
	tb
	Errorf(string, ...any)
}, pq rego.PreparedEvalQuery, f *analyzer.Facts, q *analyzer.Query, tally *relevantTally, what string) {
	t.Helper()
	in := newCheckDoc(f, nil, nil).wholeInput(q)
	rs, err := pq.Eval(context.Background(), rego.EvalParsedInput(in))
	if err != nil || len(rs) != 1 {
		t.Fatal(fmt.Sprint(rs, err))
	}
	b := rs[0].Bindings
	if b["d"] != false {
		t.Errorf("%s: the index finds %v, every candidate tested %v", what, b["got"], b["want"])
		return
	}
	n := len(b["want"].([]any))
	all := fmt.Sprint(b["all"])
	switch {
	case n == 0:
		tally.none++
	case fmt.Sprint(n) == all:
		tally.all++
	default:
		tally.some++
	}
}

// The bundled and generated histories: every question questions() asks
// finds through relevant_candidates the unkeyed candidates testing each
// one finds.
func TestRelevantCandidates_AsEveryCandidateTested(t *testing.T) {
	if testing.Short() {
		t.Skip("slow; runs without -short")
	}
	pq := relevantQuery(t)
	var tally relevantTally
	for name, f := range histories(t) {
		for _, q := range questions(f, 6) {
			compareRelevant(t, pq, f, q, &tally, fmt.Sprintf("%s: %s at %s (key %q)", name, q.Task, q.Checkpoint, q.Key))
		}
	}
	t.Logf("questions with every candidate relevant %d, some %d, none %d", tally.all, tally.some, tally.none)
	if tally.all == 0 || tally.none == 0 {
		t.Errorf("the histories did not reach what the test is for: %+v", tally)
	}
}

// relevantDestinations are destinations that may or may not be the same
// as each other in every way rules.rego's may_be_same tells: identities
// equal once trimmed and folded, titles equal once folded, strong ones
// with a title (two with one title and two identities), weak ones (a title alone, a provider alone, an id and a
// title), none; and a strong and a weak one whose folded identities
// are equal (x + y/, and x/y + an id of white space, titled).
var relevantDestinations = []string{
	`{"provider":"slack","id":"C1"}`,
	`{"provider":" Slack ","id":"c1 "}`,
	`{"provider":"slack","id":"C2","title":"General"}`,
	`{"provider":"slack","id":"C3","title":"ops  alerts"}`,
	`{"provider":"slack","id":"C4","title":"general"}`,
	`{"provider":"teams","id":"C2","title":"Ops Alerts"}`,
	`{"title":"general"}`,
	`{"title":"  GENERAL "}`,
	`{"title":"Ops Alerts"}`,
	`{"title":"random"}`,
	`{"id":"C1","title":"General"}`,
	`{"provider":"slack"}`,
	`{"provider":"x","id":"y/"}`,
	`{"provider":"x/y","id":" ","title":"elsewhere"}`,
	`{"provider":"slack","id":"  "}`,
	`{}`,
}

// relevantTitles and relevantIdentities are what a question may carry as
// the titles and identities the history gives its destination (folded),
// including ones no destination has and the empty title.
var (
	relevantTitles     = []string{"general", "ops alerts", "random", "nothing", ""}
	relevantIdentities = []string{"slack/c1", "slack/c2", "slack/c3", "teams/c2", "x/y/", "slack/c9"}
)

// relevantHistory writes tasks that each cross or approach a boundary
// with no key: a keyless intent naming one of relevantDestinations that
// pick gives (or no destination, or no intent at all), then a send or an
// open picker.
func relevantHistory(draw func(label string, lo, hi int) int, pick func(label string) int) string {
	var b strings.Builder
	s := 0
	line := func(task, body string) {
		s++
		fmt.Fprintf(&b, `{"ts":"2026-11-30T07:%02d:%02dZ","task":%q,%s}`+"\n", s/60, s%60, task, body)
	}
	for i := range draw("tasks", 1, 12) {
		task := fmt.Sprintf("w%d", i)
		line(task, `"type":"task_started","relation":"root"`)
		switch draw("intent", 0, 5) {
		case 0, 1, 2, 3:
			line(task, fmt.Sprintf(`"type":"intent","destination":%s,"content":{"path":"x%d.pdf"}`, relevantDestinations[pick("destination")], i))
		case 4:
			line(task, fmt.Sprintf(`"type":"intent","content":{"path":"x%d.pdf"}`, i))
		}
		switch draw("crossing", 0, 3) {
		case 0:
			line(task, `"type":"send_fired"`)
		case 1:
			line(task, `"type":"picker_opened"`)
		case 2:
			line(task, `"type":"picker_opened"`)
			line(task, `"type":"picker_accepted","file":"x.pdf"`)
			line(task, `"type":"send_fired"`)
		}
	}
	return b.String()
}

// Random histories of unkeyed crossings, asked random questions: with or
// without a key, of any destination, carrying any titles and identities.
// The index finds the candidates testing each finds.
func TestRelevantCandidates_Property(t *testing.T) {
	pq := relevantQuery(t)
	var tally relevantTally
	rapid.Check(t, func(rt *rapid.T) {
		draw := func(label string, lo, hi int) int { return rapid.IntRange(lo, hi).Draw(rt, label) }
		// Most destinations come from a family of three, so that those
		// that may be the same meet in one history.
		family := []int{draw("family", 0, len(relevantDestinations)-1), draw("family", 0, len(relevantDestinations)-1), draw("family", 0, len(relevantDestinations)-1)}
		pick := func(label string) int {
			if draw("in family", 0, 3) > 0 {
				return family[draw(label, 0, 2)]
			}
			return draw(label, 0, len(relevantDestinations)-1)
		}
		history := relevantHistory(draw, pick)
		f := factsFrom(rt, history, "-")
		for n := draw("questions", 1, 6); n > 0; n-- {
			q := &analyzer.Query{Task: "new-task", Checkpoint: "send"}
			if draw("keyed", 0, 3) > 0 {
				q.Key = "k"
			}
			d := relevantDestinations[pick("asked destination")]
			if err := json.Unmarshal([]byte(d), &q.Destination); err != nil {
				rt.Fatal(err)
			}
			for i := draw("titles", 0, 2); i > 0; i-- {
				q.Titles = append(q.Titles, relevantTitles[draw("title", 0, len(relevantTitles)-1)])
			}
			for i := draw("identities", 0, 2); i > 0; i-- {
				q.Identities = append(q.Identities, relevantIdentities[draw("identity", 0, len(relevantIdentities)-1)])
			}
			compareRelevant(rt, pq, f, q, &tally, fmt.Sprintf("key %q, destination %s, titles %q, identities %q\n%s", q.Key, d, q.Titles, q.Identities, history))
		}
	})
	t.Logf("questions with every candidate relevant %d, some %d, none %d", tally.all, tally.some, tally.none)
	if tally.all == 0 || tally.some == 0 || tally.none == 0 {
		t.Errorf("the histories did not reach what the test is for: %+v", tally)
	}
}

// A strong destination (x, y/) and a weak one (x/y, an id of white
// space) fold to one identity, x/y/: only the strong one may be the same
// as a strong asked destination, and a weak asked one without a title is
// the same as neither. Random histories seldom hold both.
func TestRelevantCandidates_IdentitiesThatFoldAlike(t *testing.T) {
	pq := relevantQuery(t)
	history := ""
	for i, d := range []string{`{"provider":"x","id":"y/"}`, `{"provider":"x/y","id":" ","title":"elsewhere"}`, `{"provider":"x/y","id":" "}`} {
		history += fmt.Sprintf(`{"ts":"2026-11-30T07:00:0%dZ","task":"w%d","type":"task_started","relation":"root"}`+"\n", 3*i, i)
		history += fmt.Sprintf(`{"ts":"2026-11-30T07:00:0%dZ","task":"w%d","type":"intent","destination":%s,"content":{"path":"x.pdf"}}`+"\n", 3*i+1, i, d)
		history += fmt.Sprintf(`{"ts":"2026-11-30T07:00:0%dZ","task":"w%d","type":"send_fired"}`+"\n", 3*i+2, i)
	}
	f := factsFrom(t, history, "-")
	var tally relevantTally
	for _, q := range []*analyzer.Query{
		{Key: "k", Destination: analyzer.Destination{Provider: "x", ID: "y/"}},
		{Key: "k", Destination: analyzer.Destination{Provider: "x/y", ID: " "}},
		{Key: "k", Destination: analyzer.Destination{Provider: "x/y", ID: " "}, Identities: []string{"x/y/"}},
		{Key: "k", Destination: analyzer.Destination{Title: "Elsewhere"}},
	} {
		q.Task, q.Checkpoint = "new-task", "send"
		compareRelevant(t, pq, f, q, &tally, fmt.Sprintf("%+v", *q))
	}
	if tally.some != 4 {
		t.Errorf("want every question to find some candidates, not all: %+v", tally)
	}
}
