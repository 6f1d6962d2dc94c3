package analyzer

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/effectlint/effectlint/transcripts"
)

// FactsVersion names the shape of the policy input. `effectlint facts`
// prints exactly this document, and rules.rego reads it as `input`.
const FactsVersion = "effectlint.facts/v1"

// ScopeOriginal is the scope of a key's original intent.
const ScopeOriginal = "original"

// Facts is the policy input: plain, pre-grouped facts and no verdicts.
// Go orders events, cuts segments, computes keys and groups evidence by key
// scope (grouping in Go keeps Rego evaluation linear, see OPA-NOTES);
// rules.rego decides what the evidence proves.
type Facts struct {
	Version string              `json:"version"`
	Inputs  []transcripts.Input `json:"inputs"`
	Skipped []string            `json:"skipped"`
	Tasks   map[string]*Task    `json:"tasks"`
	Scopes  []*Scope            `json:"scopes"`
	// Unkeyed holds evidence that cannot be tied to a key: the task has no
	// intent, the intent's key cannot be computed, or the event names an
	// intent that does not exist.
	Unkeyed        []Fact          `json:"unkeyed"`
	Authorizations []Authorization `json:"authorizations"`
	// Titles maps each canonical display title to the distinct provider
	// identities intents used it with (first use of each).
	Titles map[string][]TitleUse `json:"titles"`
	// UnattributedProblems are unreadable parts of inputs that may belong
	// to any task (a cut file, a line with no recoverable task id).
	UnattributedProblems []Pointer `json:"unattributed_problems"`
	// Options are the run's settings the rules read.
	Options Options `json:"options"`
	// Query is set only for `check`: the question being asked.
	Query *Query `json:"query,omitempty"`

	titlesByIdentity map[string][]string          // identityTitles, built on first use
	ambiguous        []Fact                       // otherReadings' copies, until Build merges them
	resolving        map[taskSegment][]resolution // during attribution: see Build
	onCycle          map[*Task]bool               // the tasks on a cycle of resumes
	byID             map[string][]*Intent         // every intent by id, on first use
	namedTakenOver   map[taskNamed]*Intent        // inheritedNamed's answers off a cycle
	intentIdx        map[*Task]*intentIndex       // during attribution: see indexOf
}

// Options are settings of a run that rules read.
type Options struct {
	// RequireChecks: judge every task's process (gate checks before
	// crossings), not only native tasks and foreign tasks that gate.
	RequireChecks bool `json:"require_checks"`
}

// Pointer locates an event: the input file and its 1-based line.
type Pointer struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// Task is one execution: a session, worker, run.
type Task struct {
	ID       string `json:"id"`
	Relation string `json:"relation"`
	Parent   string `json:"parent"`
	Resumes  string `json:"resumes"`
	// History is false for a task that is referenced (parent, resumes,
	// spawned child) but has no events in any input.
	History bool `json:"history"`
	// Source is the format of the task's first event.
	Source string `json:"source"`
	// Gated: the task ran at least one gate check.
	Gated bool `json:"gated"`
	// StartRank orders tasks by start time, ties by id (0 = earliest).
	StartRank int    `json:"start_rank"`
	StartTS   string `json:"start_ts"`
	Ended     bool   `json:"ended"`
	Status    string `json:"status"`
	// SupersededBy names the task that resumes this one.
	SupersededBy string `json:"superseded_by"`
	// Complete is false when any part of the task's history could not be
	// read; IncompleteBecause says why.
	Complete          bool      `json:"complete"`
	IncompleteBecause []string  `json:"incomplete_because"`
	Problems          []Pointer `json:"problems"`
	// Segment is the index of the task's last segment (0 when it was
	// never interrupted).
	Segment       int            `json:"segment"`
	Interruptions []Interruption `json:"interruptions"`
	Intents       []Intent       `json:"intents"`
	// Lineage lists the tasks this one continues through `resumes` links,
	// nearest first: their evidence is part of its own story.
	Lineage []string `json:"lineage"`
	// InheritedIntent is the intent a resumed task continues when it
	// declares none of its own.
	InheritedIntent *Intent `json:"inherited_intent"`
	// Keys lists the keys of the task's intents (own or inherited).
	Keys []string `json:"keys"`
	// KeyUnknown is set when the task has evidence or an intent that no key
	// could be computed for: it may concern any key.
	KeyUnknown bool    `json:"key_unknown"`
	Start      Pointer `json:"start"`
	// ReferencedAt lists the events that name this task as a parent,
	// resumed task or spawned child: where to look when it has no history.
	ReferencedAt []Pointer `json:"referenced_at"`

	files     map[string]bool
	started   bool // a task_started was seen: the next one is a restart
	startSeq  int
	startTime time.Time
	endSeq    int
	// mayHold lists the intents a resumed task that started at a tie may
	// have taken over besides InheritedIntent: it is a task of their key
	// scopes too (inheritedAtATie).
	mayHold []*Intent
}

// Interruption is an `interrupted` event; it starts segment Segment.
type Interruption struct {
	Seq     int     `json:"seq"`
	TS      string  `json:"ts"`
	Reason  string  `json:"reason"`
	Segment int     `json:"segment"`
	At      Pointer `json:"at"`
}

// Intent is one intended delivery of a task.
type Intent struct {
	ID            string      `json:"id"`
	Task          string      `json:"task"`
	Key           string      `json:"key"`
	KeyError      string      `json:"key_error,omitempty"`
	Scope         string      `json:"scope"`
	ScopeID       string      `json:"scope_id"`
	Authorization string      `json:"authorization"`
	Destination   Destination `json:"destination"`
	// WeakDestination is set when the key was built from a title alone.
	WeakDestination bool    `json:"weak_destination"`
	ContentSHA256   string  `json:"content_sha256"`
	ContentName     string  `json:"content_name,omitempty"`
	Seq             int     `json:"seq"`
	At              Pointer `json:"at"`
	at              stamp   // when it was declared
	tied            bool    // another intent of the task shares that instant
}

// Authorization is a person's record re-authorizing one more delivery.
type Authorization struct {
	ID       string  `json:"id"`
	By       string  `json:"by"`
	Reason   string  `json:"reason"`
	Key      string  `json:"key"`
	KeyError string  `json:"key_error,omitempty"`
	Seq      int     `json:"seq"`
	At       Pointer `json:"at"`
	// title is the display title the record gives its destination's
	// provider identity (canonical; "" when none, or when the record names
	// its destination by title alone): a title the history gives that
	// identity, as an intent's is.
	title string
}

// TitleUse is one provider identity a display title was used for.
type TitleUse struct {
	Identity string  `json:"identity"`
	At       Pointer `json:"at"`
}

// Scope groups every fact of one key scope: the original intent for a key,
// or one authorization's redelivery of it.
type Scope struct {
	ID            string      `json:"id"`
	Key           string      `json:"key"`
	Scope         string      `json:"scope"`
	Destination   Destination `json:"destination"`
	ContentSHA256 string      `json:"content_sha256"`
	// Tasks are the matching tasks (own or inherited intent in this
	// scope), by start.
	Tasks []string `json:"tasks"`
	Facts []Fact   `json:"facts"`
}

// Fact is one evidence event, placed in time (Seq orders all events of a
// run) and in its task's segment.
type Fact struct {
	Seq     int     `json:"seq"`
	TS      Instant `json:"ts"`
	Task    string  `json:"task"`
	Type    string  `json:"type"`
	Segment int     `json:"segment"`
	// SegmentEnded: an interruption or task_ended followed this fact's
	// segment, or the task was superseded by a resuming task.
	SegmentEnded bool    `json:"segment_ended"`
	At           Pointer `json:"at"`
	Intent       string  `json:"intent,omitempty"`
	// *FactRare holds the fields few facts have (nil: none of them); JSON
	// shows them as the fact's own. Read them with Rare.
	*FactRare
}

// FactRare is what few facts carry, held apart: a fact is 144 bytes
// smaller for it, and a month of history holds millions of facts (issue
// 15: with the facts and the report they were a 1 GB analyze's peak).
type FactRare struct {
	// Unkeyed facts say why no key could be tied to them, and where
	// their intent names a destination, which (the scopes they may
	// concern, SPEC §4).
	UnkeyedBecause     string       `json:"unkeyed_because,omitempty"`
	UnkeyedDestination *Destination `json:"unkeyed_destination,omitempty"`
	// IntentTask is the task that declared the intent an unkeyed fact
	// is given (its Intent): ids are a task's own, and a resumed task may
	// declare one its predecessor also did. "" when it is given none.
	IntentTask string `json:"intent_task,omitempty"`
	// Ambiguous marks an unkeyed fact that may be of more readings than
	// it names: a retreat that may be another intent's than the one it
	// would be given (two tied at one instant, or an id the tasks it
	// continues declared too) resolves no approach, and an approach
	// copied once for more than maxReadings readings is resolved by none.
	Ambiguous        bool   `json:"ambiguous,omitempty"`
	Label            string `json:"label,omitempty"`
	IdempotencyToken string `json:"idempotency_token,omitempty"`
	// A gate check's checkpoint and decision, a read-back's result, a
	// response's ok: a few facts in a history have them (read them with
	// the Fact methods of the same names).
	Checkpoint string `json:"checkpoint,omitempty"`
	Decision   string `json:"decision,omitempty"`
	Result     string `json:"result,omitempty"`
	OK         *bool  `json:"ok,omitempty"`
	// Fields holds the event's other fields (SPEC §3: kept and passed to
	// policy), as a JSON object. Only users' rules read them, so analyze
	// and check without such rules keep none.
	Fields Fields `json:"fields,omitempty"`
}

// Checkpoint is a gate check's checkpoint, "" for other facts. (A method,
// not the promoted field, so that no read can meet a nil FactRare.)
func (f *Fact) Checkpoint() string { return f.Rare().Checkpoint }

// Decision is a gate check's decision, "" for other facts.
func (f *Fact) Decision() string { return f.Rare().Decision }

// Result is a read-back's result, "" for other facts.
func (f *Fact) Result() string { return f.Rare().Result }

// Fields are the event's other fields, "" when it has none.
func (f *Fact) Fields() Fields { return f.Rare().Fields }

// OK is a response's ok, nil when the fact has none.
func (f *Fact) OK() *bool { return f.Rare().OK }

// Rare returns the fact's rare fields, zero when it has none.
func (f *Fact) Rare() FactRare {
	if f.FactRare == nil {
		return FactRare{}
	}
	return *f.FactRare
}

// rare returns the fact's rare fields to set, made on first use. A copy
// of a fact shares them: set them before copying, or give the copy its
// own (copyAs in otherReadings does), or the write reaches both.
func (f *Fact) rare() *FactRare {
	if f.FactRare == nil {
		f.FactRare = &FactRare{}
	}
	return f.FactRare
}

// Fields is a JSON object held as its text: most facts have none, and text
// is far smaller than maps of boxed values. "" means no fields.
type Fields string

// NewFields encodes fields as encoding/json does (keys sorted, the same
// escapes). Flat objects, the common case, are written here without
// reflection; anything nested goes through encoding/json.
func NewFields(fields map[string]any) Fields {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	return fieldsOf(fields, keys)
}

// fieldsOf encodes the fields of m named by keys (which it sorts).
func fieldsOf(m map[string]any, keys []string) Fields {
	slices.Sort(keys)
	if b, ok := appendFlat(make([]byte, 0, 64), m, keys); ok {
		return Fields(b)
	}
	sub := make(map[string]any, len(keys))
	for _, k := range keys {
		sub[k] = m[k]
	}
	b, err := json.Marshal(sub)
	if err != nil {
		// Readers decode JSON, so this cannot happen; keep the
		// reason rather than lose the fields silently.
		b, _ = json.Marshal(map[string]string{"unencodable_fields": err.Error()})
	}
	return Fields(b)
}

// appendFlat writes the flat object of m's keys (sorted), or reports that
// a value is not flat.
func appendFlat(dst []byte, m map[string]any, keys []string) ([]byte, bool) {
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, ':')
		switch v := m[k].(type) {
		case string:
			dst = appendJSONString(dst, v)
		case json.Number:
			if !validNumber(string(v)) {
				return nil, false
			}
			dst = append(dst, v...)
		case bool:
			dst = strconv.AppendBool(dst, v)
		case nil:
			dst = append(dst, "null"...)
		default:
			return nil, false
		}
	}
	return append(dst, '}'), true
}

const hexDigits = "0123456789abcdef"

// appendJSONString is encoding/json's string encoding with HTML escaping.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// validNumber is encoding/json's check of a json.Number.
func validNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	digits := func() {
		for s != "" && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		digits()
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		digits()
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		if s[0] < '0' || s[0] > '9' {
			return false
		}
		digits()
	}
	return s == ""
}

// MarshalJSON writes the object as it is.
func (f Fields) MarshalJSON() ([]byte, error) {
	if f == "" {
		return []byte("null"), nil
	}
	return []byte(f), nil
}

// UnmarshalJSON keeps the object's text, so that the output of `effectlint
// facts` decodes back into Facts (tests, tools built on effectlint).
func (f *Fields) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = ""
		return nil
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return err
	}
	*f = Fields(c.String())
	return nil
}

// Map decodes the fields (nil when there are none).
func (f Fields) Map() map[string]any {
	if f == "" {
		return nil
	}
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(f)))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return nil
	}
	return m
}

// Query is the question `check` asks: may Task proceed at Checkpoint?
type Query struct {
	Task       string `json:"task"`
	Checkpoint string `json:"checkpoint"`
	// TaskKnown: the task has a history in the inputs.
	TaskKnown bool `json:"task_known"`
	// IntentGiven: the intent came from the command line.
	IntentGiven   bool   `json:"intent_given"`
	Key           string `json:"key"`
	KeyError      string `json:"key_error"`
	Scope         string `json:"scope"`
	ScopeID       string `json:"scope_id"`
	Authorization string `json:"authorization"`
	// Destination and ContentSHA256 are the key's parts: the gate also
	// weighs the scopes whose destination may be the same (SPEC §2).
	Destination   Destination `json:"destination"`
	ContentSHA256 string      `json:"content_sha256"`
	// Titles are the display titles (canonical) the history gives the
	// asked destination's identity: a crossing known by one of them alone
	// may have gone to the same channel.
	Titles []string `json:"titles"`
	// Identities are the provider identities (provider/id, in lower case)
	// the history gives the asked title, when the asked destination is
	// known by its title alone: a crossing to one of them may have gone to
	// the same channel. Empty for a destination with a provider identity.
	Identities []string `json:"identities"`
	// Intent names the task's intent the question is about ("" when it
	// was given on the command line).
	Intent string `json:"intent,omitempty"`
}
