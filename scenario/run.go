package scenario

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/transcripts"
)

// Case is one scenario: a folder with transcripts and its expectations.
type Case struct {
	// Dir is the case folder, as found (relative to the test directory
	// given).
	Dir string
	// Expected is Dir/expected.yaml.
	Expected string
	// HasExpected is false for a new case found by --update.
	HasExpected bool
}

// Discover finds the cases of dir: dir itself when it holds an
// expected.yaml, else each immediate subfolder that holds one. With
// includeNew (--update), subfolders with transcripts but no expectations
// yet are cases too, so that `--update` records new scenarios.
func Discover(dir string, includeNew bool) ([]Case, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	if c, ok := caseAt(dir); ok {
		return []Case{c}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if c, ok := caseAt(sub); ok {
			out = append(out, c)
		} else if includeNew && holdsTranscripts(sub) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, nil
}

func caseAt(dir string) (Case, bool) {
	c := Case{Dir: filepath.ToSlash(dir), Expected: filepath.ToSlash(filepath.Join(dir, ExpectedFile))}
	_, err := os.Stat(c.Expected)
	c.HasExpected = err == nil
	return c, c.HasExpected
}

func holdsTranscripts(dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && transcripts.IsTranscriptName(d.Name()) {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// Options configure Run.
type Options struct {
	Engine *policy.Engine
	// Context gives each evaluation its context (the --timeout).
	Context      func() (context.Context, context.CancelFunc)
	MaxLineBytes int
}

// isExpected leaves every case's expected.yaml out of its history.
func isExpected(path string) bool { return filepath.Base(path) == ExpectedFile }

// Run reads the case's transcripts once, analyzes them, and asks each of
// questions (their Decision and Reasons are ignored) afresh over the
// history up to its as_of. The result has the shape of Expected.
func Run(c Case, questions []Check, opt Options) (*Expected, error) {
	// The case is read once, and once more for each replay time, as
	// --as-of reads it: readers that decide over a whole document see it
	// as written at that time.
	read := func(asOf time.Time) ([]transcripts.Event, transcripts.Result, error) {
		var events []transcripts.Event
		res, err := transcripts.Read([]string{c.Dir}, transcripts.Options{MaxLineBytes: opt.MaxLineBytes, Ignore: isExpected, AsOf: asOf},
			func(e transcripts.Event) { events = append(events, e) })
		return events, res, err
	}
	events, res, err := read(time.Time{})
	if err != nil {
		return nil, err
	}
	if len(res.Inputs) == 0 {
		return nil, fmt.Errorf("no transcript files (.jsonl, .ndjson, .json, optionally .gz) in %s", c.Dir)
	}
	build := func(asOf time.Time) (*analyzer.Facts, error) {
		evs, r := events, res
		if !asOf.IsZero() {
			var err error
			if evs, r, err = read(asOf); err != nil {
				return nil, err
			}
		}
		b := analyzer.New()
		for _, e := range evs {
			if asOf.IsZero() || !e.TS.After(asOf) {
				b.Add(e)
			}
		}
		return b.Build(r), nil
	}

	out := &Expected{States: map[string]map[string]string{}, Findings: map[string]Tasks{}}
	facts, err := build(time.Time{})
	if err != nil {
		return nil, err
	}
	ctx, cancel := opt.Context()
	a, err := opt.Engine.Analyze(ctx, facts)
	cancel()
	if err != nil {
		return nil, err
	}
	if len(a.Scopes) != len(facts.Scopes) {
		return nil, fmt.Errorf("policy judged %d key scopes, the facts hold %d", len(a.Scopes), len(facts.Scopes))
	}
	for i, sc := range facts.Scopes {
		if out.States[sc.Key] == nil {
			out.States[sc.Key] = map[string]string{}
		}
		out.States[sc.Key][sc.Scope] = a.Scopes[i].State
	}
	for _, f := range a.Findings {
		task := NoTask
		if f.Task != nil {
			task = *f.Task
		}
		out.Findings[f.Rule] = append(out.Findings[f.Rule], task)
	}

	for i, q := range questions {
		got := q
		got.Decision, got.Reasons = "", nil
		var asOf time.Time
		if q.AsOf != "" {
			if asOf, err = time.Parse(time.RFC3339Nano, q.AsOf); err != nil {
				return nil, fmt.Errorf("check %d: as_of %q is not an RFC 3339 time with offset", i+1, q.AsOf)
			}
		}
		spec, err := q.intent(c.Dir)
		if err != nil {
			return nil, fmt.Errorf("check %d (%s): %v", i+1, q.Question(), err)
		}
		f, err := build(asOf)
		if err != nil {
			return nil, err
		}
		ctx, cancel := opt.Context()
		g, err := opt.Engine.CheckEach(ctx, f, f.AskAll(q.Task, q.checkpoint(), spec))
		cancel()
		if err != nil {
			return nil, fmt.Errorf("check %d (%s): %w", i+1, q.Question(), err)
		}
		got.Decision = g.Decision
		got.Reasons = Tasks{}
		for _, r := range g.Reasons {
			got.Reasons = append(got.Reasons, r.Rule)
		}
		out.Checks = append(out.Checks, got)
	}
	out.normalize()
	return out, nil
}

// intent is the intent a check names, as check's flags give it.
func (c Check) intent(caseDir string) (analyzer.IntentSpec, error) {
	s := analyzer.IntentSpec{Key: c.Key, File: c.File, SHA256: c.SHA256, Authorization: c.Authorization}
	if c.Destination != "" {
		d, err := analyzer.ParseDestination(c.Destination)
		if err != nil {
			return s, err
		}
		s.Destination = d
	}
	// A title with a destination names the channel's title too: the
	// gate then weighs crossings known by that title alone.
	s.Destination.Title = c.Title
	if s.File != "" && !filepath.IsAbs(s.File) {
		// Relative to the case folder, wherever effectlint test runs.
		s.File = filepath.Join(caseDir, s.File)
	}
	return s, nil
}
