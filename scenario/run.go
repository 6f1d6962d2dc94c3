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
	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/gate"
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
	// Gate answers the case's questions; it must leave out each case's
	// expected.yaml (gate.WithIgnore(IsExpected)).
	Gate *gate.Gate
}

// IsExpected says whether a path is a case's expected.yaml, which is no
// history.
func IsExpected(path string) bool { return filepath.Base(path) == ExpectedFile }

// Run analyzes the case's transcripts and asks each of questions (their
// Decision and Reasons are ignored) afresh over the history up to its
// as_of, through the same gate as every other caller. The result has the
// shape of Expected. A check the gate could not make is an error.
func Run(c Case, questions []Check, opt Options) (*Expected, error) {
	ctx := context.Background()
	rep, err := opt.Gate.Analyze(ctx, gate.AnalyzeRequest{Paths: []string{c.Dir}, FailOn: "none"})
	if err != nil {
		return nil, err
	}
	out := &Expected{States: map[string]map[string]string{}, Findings: map[string]Tasks{}}
	for _, k := range rep.Keys {
		if out.States[k.Key] == nil {
			out.States[k.Key] = map[string]string{}
		}
		out.States[k.Key][k.Scope] = k.State
	}
	for _, f := range rep.Findings {
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
		d := opt.Gate.Check(ctx, gate.Request{Task: q.Task, Checkpoint: q.checkpoint(), Intent: spec, Paths: []string{c.Dir}, AsOf: asOf})
		if d.Err != nil {
			return nil, fmt.Errorf("check %d (%s): %w", i+1, q.Question(), d.Err)
		}
		got.Decision = d.Decision
		got.Reasons = Tasks{}
		for _, r := range d.Reasons {
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
		d, err := effect.ParseDestination(c.Destination)
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
