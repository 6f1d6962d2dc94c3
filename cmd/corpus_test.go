package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/analyzer"

	"github.com/effectlint/effectlint/internal/sharedtest"
)

// Tests over ../shared/corpus: real transcripts written by other projects.
// They are read in place (never copied into the repository) and skipped
// where ../shared is absent.

const corpus = "../../shared/corpus"

func needCorpus(t *testing.T, sub string) string {
	t.Helper()
	p := corpus + "/" + sub
	sharedtest.Path(t, "corpus/"+sub) // skips, or in CI fails, when absent
	return p
}

// decodeFacts reads the output of `effectlint facts`: the analyzer's Facts.
func decodeFacts(t *testing.T, out string) analyzer.Facts {
	t.Helper()
	var f analyzer.Facts
	if err := json.Unmarshal([]byte(out), &f); err != nil {
		t.Fatalf("facts output: %v", err)
	}
	return f
}

func TestCorpus_ClaudeCodeSessionsReadAsTasksWithoutDuplicates(t *testing.T) {
	dir := needCorpus(t, "claude-code")
	rules := builtinRules(t)
	out, stderr, code := runWith(t, "", rules, "facts", dir)
	if code != 0 {
		t.Fatalf("facts exit %d: %s", code, stderr)
	}
	facts := decodeFacts(t, out)
	if len(facts.Inputs) < 10 {
		t.Fatalf("read %d inputs", len(facts.Inputs))
	}
	for _, in := range facts.Inputs {
		// Hook payloads and a subagent's .meta.json are no history:
		// listed with a notice, not read.
		notHistory := strings.Contains(in.Path, "/hooks/hook-") || strings.HasSuffix(in.Path, ".meta.json")
		switch {
		case notHistory && (in.Format != "unknown" || len(in.Notices) == 0):
			t.Errorf("%s: format %s, notices %v; want not read, with a notice", in.Path, in.Format, in.Notices)
		case !notHistory && in.Format != "claude-code", len(in.Problems) != 0:
			t.Errorf("%s: format %s, problems %v", in.Path, in.Format, in.Problems)
		}
	}
	// The spotter session 258c… has one subagent and one compaction agent,
	// a user interruption and a compaction.
	const session = "258c7280-ae70-4798-800f-63464d01a85d"
	for _, child := range []string{session + "/agent-a881341", session + "/agent-acompact-fffbd0"} {
		c, ok := facts.Tasks[child]
		if !ok || c.Relation != "delegated" || c.Parent != session {
			t.Errorf("subagent %s: %+v (present %v), want a delegated child of the session", child, c, ok)
		}
	}
	var reasons []string
	for _, i := range facts.Tasks[session].Interruptions {
		reasons = append(reasons, i.Reason)
	}
	if strings.Join(reasons, ",") != "user,context_reset" {
		t.Errorf("interruptions of %s = %v, want the user interruption then the compaction", session, reasons)
	}
	// The inline sidechain of the older (2.0.x) layout is a delegated child.
	if c := facts.Tasks["88a8d761-7b9a-4bf1-a8ca-c1febe6bf358/agent-sidechain"]; c.Relation != "delegated" {
		t.Errorf("inline sidechain not a delegated child: %+v", c)
	}

	// The older sessions deliver nothing twice. cli-2.1.197 holds one
	// experiment per folder, several uploading the same file to the same
	// channel: read together they are duplicates, rightly, so it is
	// judged case by case elsewhere.
	out, _, _ = runWith(t, "", rules, "analyze", "--format", "json", dir+"/claude-code-log", dir+"/spotter")
	var rep struct {
		Findings []struct {
			Rule string  `json:"rule"`
			Key  *string `json:"key"`
		} `json:"findings"`
		Summary struct {
			Keys int `json:"keys"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Keys == 0 {
		t.Error("no key scope: the git push calls were not read as crossings")
	}
	deduplicated := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Rule == "PROVIDER_DEDUPLICATED" && f.Key != nil {
			deduplicated[*f.Key] = true
		}
	}
	for _, f := range rep.Findings {
		switch {
		case f.Rule == "PROVIDER_DEDUPLICATED": // repeated git push: idempotent by content
		case f.Rule == "DUPLICATE_RISK_RESUME" && f.Key != nil && deduplicated[*f.Key]:
			// The same push repeated after a compaction: no duplicate
			// delivery, but a crossing of a consumed scope all the same
			// (SPEC §6: the token never excuses a risky resume).
		default:
			t.Errorf("finding %s on real sessions that deliver nothing twice", f.Rule)
		}
	}
}

// TestCorpus_EveryFileIsReadWithoutAProblem: every real transcript and
// history in the corpus is read without a crash and without a spurious
// problem; formats no reader knows get a notice, archives are skipped.
func TestCorpus_EveryFileIsReadWithoutAProblem(t *testing.T) {
	dir := needCorpus(t, "")
	out, stderr, code := runWith(t, "", builtinRules(t), "facts", dir)
	if code != 0 {
		t.Fatalf("facts exit %d: %s", code, stderr)
	}
	facts := decodeFacts(t, out)
	formats := map[string]int{}
	for _, in := range facts.Inputs {
		formats[in.Format]++
		// (Temporal's reset history lacks its base run's own: one
		// problem by design, see corpus_temporal_test.go. Inspect AI's
		// redacted test log holds tool results whose calls it dropped:
		// a problem each for those that ran, see transcripts'
		// TestInspect_Corpus.)
		if len(in.Problems) != 0 && !strings.HasSuffix(in.Path, "go-reset-workflow-after-child-complete.json") &&
			!strings.HasSuffix(in.Path, "inspect-ai/log_tool_call_error.json") {
			t.Errorf("%s (%s): problems %v", in.Path, in.Format, in.Problems)
		}
		if in.Format == "unknown" && len(in.Notices) == 0 {
			t.Errorf("%s: not read and nothing said", in.Path)
		}
	}
	for _, f := range []string{"claude-code", "otel", "temporal", "stepfunctions", "inspect-ai"} {
		if formats[f] == 0 {
			t.Errorf("no corpus input was read as %s: %v", f, formats)
		}
	}
}
