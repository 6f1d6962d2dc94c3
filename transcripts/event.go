// Package transcripts reads execution histories into events.
//
// A reader knows one input format and nothing about what the events mean:
// it turns bytes into Events and records every line it could not read as a
// Problem with the file and line, so that the analyzer can treat the history
// it belongs to as incomplete (fail closed) without losing the lines it could
// read.
package transcripts

import "time"

// FormatNative is the name of effectlint's own JSON Lines event log.
const FormatNative = "effectlint/v1"

// Event is one line of a history, in the vocabulary of SPEC §3.
type Event struct {
	File string    // display path of the input file
	Line int       // 1-based line number in File
	TS   time.Time // parsed `ts`
	Task string    // `task`
	Type string    // `type`
	// Source is the format the event was read from (effectlint/v1,
	// claude-code, ...): process rules judge native tasks and foreign
	// tasks that gate themselves.
	Source string
	// Fields holds every other top-level field of the line, decoded from
	// JSON (string, float64/json number, bool, nil, []any, map[string]any).
	Fields map[string]any
}

// Str returns the string field name, or "" when it is absent or not a string.
func (e *Event) Str(name string) string {
	s, _ := e.Fields[name].(string)
	return s
}

// Problem is a part of an input that could not be read. Task is set when the
// task id could still be recovered from the broken line; a problem without a
// task may belong to any task.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Task    string `json:"task,omitempty"`
	Message string `json:"message"`
}

// Input summarizes one file (or standard input) that was read.
type Input struct {
	Path     string    `json:"path"`
	Format   string    `json:"format"`
	Events   int       `json:"events"`
	Problems []Problem `json:"problems"`
	// Records counts the non-blank lines (or records) seen, including
	// those not turned into events (copies counted once, no evidence).
	Records int `json:"-"`
	// Notices are things worth saying that do not make the history
	// incomplete, such as event types this version does not know.
	Notices []string `json:"notices,omitempty"`
	// ProblemsOmitted counts the problems found beyond the listing limit
	// (Options.MaxProblems): counted, not listed, so that a file of
	// garbage cannot fill memory or a report. OmittedFrom is the line of
	// the first of them. They may have been any task's: an input with
	// omitted problems is incomplete for every task in it.
	ProblemsOmitted int `json:"problems_omitted,omitempty"`
	OmittedFrom     int `json:"-"`

	maxProblems int
	// gzipped, for an input read through gzip: the compressed bytes
	// read so far (an archive's budget is sized by them: zip_budget.go).
	gzipped *int64
}

// DefaultMaxProblems is how many problems are listed per input.
const DefaultMaxProblems = 100

// addProblem lists a problem, or counts it once the listing limit is
// reached.
func (in *Input) addProblem(p Problem) {
	if in.maxProblems > 0 && len(in.Problems) >= in.maxProblems {
		if in.ProblemsOmitted == 0 || p.Line < in.OmittedFrom {
			in.OmittedFrom = p.Line
		}
		in.ProblemsOmitted++
		return
	}
	in.Problems = append(in.Problems, p)
}
