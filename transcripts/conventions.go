package transcripts

import (
	"github.com/effectlint/effectlint/effect"

	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	"go.yaml.in/yaml/v3"
)

//go:embed profiles/builtin.yaml
var builtinProfile []byte

// BuiltinProfile returns the text of the embedded conventions, for users to
// read and copy.
func BuiltinProfile() []byte { return builtinProfile }

// Profile maps tool calls to side-effect evidence (Rules) and, for a user's
// own JSON/JSONL format, says where the tool calls are (Source).
type Profile struct {
	Name   string  `json:"name"`
	Source *Source `json:"source,omitempty"`
	// Extends: also apply the built-in rules after these (default true).
	Extends *bool  `json:"extends_builtin,omitempty"`
	Rules   []Rule `json:"rules"`

	compiled []*compiledRule
}

// Source locates tool calls in records of a JSON Lines file (one record a
// line) or of a JSON document (Records is the gjson path of the record
// array). Every other field is a gjson path inside one record.
type Source struct {
	Detect  string `json:"detect"`  // path that must exist in a record of this format
	Records string `json:"records"` // JSON document: path of the record array; empty: JSON Lines
	Task    string `json:"task"`
	Time    string `json:"time"`
	Tool    string `json:"tool"`    // a record with a tool name is a call
	Args    string `json:"args"`    // object, or a string holding JSON
	CallID  string `json:"call_id"` // id of the call
	// A call's outcome, in the call record or in a later result record
	// (a record where ResultCallID is present).
	ResultCallID string `json:"result_call_id"`
	Error        string `json:"error"` // present and not false/empty/null: the call failed
	Result       string `json:"result"`
	Cwd          string `json:"cwd"`
}

// Rule is one convention; see profiles/builtin.yaml for the meaning of
// each field.
type Rule struct {
	Name              string      `json:"name"`
	Tool              string      `json:"tool"`
	ToolNot           string      `json:"tool_not"`
	Arg               string      `json:"arg"`
	Matches           string      `json:"matches"`
	Evidence          string      `json:"evidence"`
	Result            string      `json:"result"`
	Idempotent        bool        `json:"idempotent"`
	CheckpointPattern string      `json:"checkpoint_pattern"`
	Destination       DestRule    `json:"destination"`
	Content           ContentRule `json:"content"`
	// Shell: the arg is a shell command line, judged one simple command
	// at a time (see shell.go).
	Shell bool `json:"shell"`
	// ValueOptions of the command take the next word as their value
	// (so that value is not a positional word): for $url and
	// file_positionals_after.
	ValueOptions []string `json:"value_options"`
	// OverridesBuiltin: a profile rule that is no delivery (ignore,
	// navigate, gate_check) keeps the built-in delivery rules from also
	// judging the calls it matches. Without it they still do.
	OverridesBuiltin bool `json:"overrides_builtin"`
}

// DestRule says where a call's destination comes from.
type DestRule struct {
	Provider  string   `json:"provider"`
	IDArgs    []string `json:"id_args"`
	IDPattern string   `json:"id_pattern"`
	IDDefault string   `json:"id_default"`
}

// ContentRule says which bytes a call delivers.
type ContentRule struct {
	SHA256Args []string `json:"sha256_args"`
	FileArgs   []string `json:"file_args"`
	TextArgs   []string `json:"text_args"`
	Pattern    string   `json:"pattern"`
	WholeArg   bool     `json:"whole_arg"`
	// FilePattern: every match of this expression (groups named file, or
	// qfile for text inside "…" with backslash escapes) over the shell
	// command's words, one a line, names a file whose bytes are sent.
	FilePattern string `json:"file_pattern"`
	// FilePositionalsAfter: the positional words (not options, not the
	// values of value_options) after the first N are files sent.
	FilePositionalsAfter int `json:"file_positionals_after"`
}

func (c ContentRule) empty() bool {
	return len(c.SHA256Args)+len(c.FileArgs)+len(c.TextArgs) == 0 && c.Pattern == "" && !c.WholeArg &&
		c.FilePattern == "" && c.FilePositionalsAfter == 0
}

type compiledRule struct {
	Rule
	tool, toolNot, matches, idPattern, contentPattern, checkpoint, filePattern *regexp.Regexp
	valueOptions                                                               map[string]bool
	// matchesFast is matches behind its literal prefilter (prefilter.go).
	matchesFast *prefiltered
	builtin     bool // one of the embedded rules
}

var evidenceKinds = map[string]bool{"request_sent": true, "send_fired": true, "picker_accepted": true,
	"gate_check": true, "navigate": true, "ignore": true}

// ParseProfile reads a profile written in YAML or JSON.
func ParseProfile(name string, text []byte) (*Profile, error) {
	var raw any
	if err := yaml.Unmarshal(text, &raw); err != nil {
		return nil, fmt.Errorf("profile %s: %v", name, err)
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %v", name, err)
	}
	var p Profile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("profile %s: %v", name, err)
	}
	if p.Name == "" {
		p.Name = name
	}
	for i, r := range p.Rules {
		c, err := compileRule(r)
		if err != nil {
			return nil, fmt.Errorf("profile %s: rule %d (%s): %v", name, i+1, r.Name, err)
		}
		p.compiled = append(p.compiled, c)
	}
	if s := p.Source; s != nil && (s.Task == "" || s.Tool == "" || s.Detect == "") {
		return nil, fmt.Errorf("profile %s: source needs detect, task and tool paths", name)
	}
	return &p, nil
}

// LoadProfile reads a profile file.
func LoadProfile(path string) (*Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("profile: %v", err)
	}
	return ParseProfile(path, b)
}

func compileRule(r Rule) (*compiledRule, error) {
	if !evidenceKinds[r.Evidence] {
		return nil, fmt.Errorf("evidence %q is not one of request_sent, send_fired, picker_accepted, gate_check, navigate, ignore", r.Evidence)
	}
	if r.Result != "" && r.Result != "response" && r.Result != "gate" {
		return nil, fmt.Errorf("result %q is not response or gate", r.Result)
	}
	c := &compiledRule{Rule: r}
	for _, x := range []struct {
		expr string
		dst  **regexp.Regexp
		fold bool
	}{{r.Tool, &c.tool, true}, {r.ToolNot, &c.toolNot, true}, {r.Matches, &c.matches, false},
		{r.Destination.IDPattern, &c.idPattern, false}, {r.Content.Pattern, &c.contentPattern, false},
		{r.CheckpointPattern, &c.checkpoint, false}, {r.Content.FilePattern, &c.filePattern, false}} {
		if x.expr == "" {
			continue
		}
		expr := x.expr
		if x.fold {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, err
		}
		*x.dst = re
	}
	if c.matches != nil {
		c.matchesFast = newPrefiltered(c.matches)
	}
	if (r.Arg == "") != (r.Matches == "") {
		return nil, fmt.Errorf("arg and matches go together")
	}
	if r.Shell && r.Arg == "" {
		return nil, fmt.Errorf("shell needs arg (the command line) and matches")
	}
	if (r.Content.FilePattern != "" || r.Content.FilePositionalsAfter != 0) && !r.Shell {
		return nil, fmt.Errorf("file_pattern and file_positionals_after read shell words: they need shell: true")
	}
	if r.Content.FilePositionalsAfter < 0 {
		return nil, fmt.Errorf("file_positionals_after must not be negative")
	}
	if c.filePattern != nil && c.filePattern.SubexpIndex("file") < 0 && c.filePattern.SubexpIndex("qfile") < 0 {
		return nil, fmt.Errorf("file_pattern needs a group named file (or qfile)")
	}
	if r.OverridesBuiltin && (r.Evidence != "ignore" && r.Evidence != "navigate" && r.Evidence != "gate_check") {
		return nil, fmt.Errorf("overrides_builtin is for rules that are no delivery (ignore, navigate, gate_check)")
	}
	if r.Destination.IDDefault == "$url" && !r.Shell {
		return nil, fmt.Errorf("id_default $url reads shell words: it needs shell: true")
	}
	c.valueOptions = map[string]bool{}
	for _, o := range r.ValueOptions {
		c.valueOptions[o] = true
	}
	return c, nil
}

// builtin is the embedded profile, parsed on first use: parsing it (its
// YAML and its rules' regular expressions) took about 4 ms of every
// process's start-up, also of the commands that read no transcript (key,
// claim without PATHs, cross, settle).
var builtin = sync.OnceValue(func() *Profile {
	p, err := ParseProfile("builtin", builtinProfile)
	if err != nil {
		panic(err) // the embedded file is tested
	}
	for _, r := range p.compiled {
		r.builtin = true
	}
	return p
})

// ToolCall is one recorded tool invocation, whatever the envelope.
type ToolCall struct {
	Task string
	TS   time.Time
	ID   string
	// Seq: the n-th distinct call of its task under ID (a provider or a
	// proxy reusing ids); above 1 its intent is "call:<ID>~<Seq>".
	Seq  int
	Name string
	Args string // JSON object text
	Line int    // where the call is recorded (line, or event index)
	Cwd  string
}

// toolResult is the outcome of a call.
type toolResult struct {
	TS    time.Time
	Error bool
	Line  int
	// Output is the tool's output text, where the format records it: a
	// gate check's decision is read from it.
	Output string
	// Denied: the call never ran (a PreToolUse hook blocked it);
	// DeniedByGate: the hook was effectlint's own gate.
	Denied, DeniedByGate bool
}

// conventions turns the tool calls of one input into events.
type conventions struct {
	rules    []*compiledRule
	recorded func(callID string) []RecordedKey
	in       *Input
	file     string
	source   string
	emit     func(Event)
	count    *int
	pending  map[string]*pendingCall // call id → what its result means
	page     map[string]string       // task → last navigated page
	notices  map[string]bool
	toolHits map[toolQuery]bool // conventions.toolMatches

	// hold: a call's events wait for its result (or the end of the
	// input), so that a call that never ran leaves no crossing.
	agentCalls []agentCall                  // Claude Code Task/Agent calls of this input
	metas      map[string]map[string]string // session → its subagents' .meta.json: toolUseId → agent id

	hold bool
	// tag: fields every event gets (an archive member's name, whose lines
	// the events' lines are: inspect_eval.go).
	tag map[string]any
	// asking: the call a PreToolUse hook is asked about (Options.Asking);
	// lastLine: the last line each task wrote in this input.
	asking   AskingCall
	lastLine map[string]int
	holding  string
	held     map[string][]Event
	order    []string
}

// pendingCall is what a call's result will mean, for each judged part.
type pendingCall struct {
	task  string
	name  string // the tool's name, as the call gives it
	parts []pendingPart
}

type pendingPart struct {
	rule    *compiledRule
	intents []string // intent ids the result belongs to
	u       unit
	// checked: the intent an `effectlint check` call names (its key
	// flags), and the id to declare it by when the check allows.
	// unreadKey: the call names a key by its flags that cannot be read
	// whole (a shell variable, a relative file in an unknown directory).
	checked   map[string]any
	checkedID string
	unreadKey bool
}

// conventions returns the rule engine for one input of the run. Pending
// results and pages are shared by all inputs: a call and its result can sit
// in different files (Claude Code subagent copies).
// recordedKeys are the keys a key ledger recorded for a call's id when it
// was claimed (Options.RecordedKeys), in the order of its intents.
//
// A recorded key stands for the call only when the claim was the call's
// own task's, and names a destination the call itself names (when the
// call names any): a claim under a borrowed id must not re-key another
// task's crossing, which would hide it (an adversarial review).
func (c *conventions) recordedKeys(tc ToolCall, dests []map[string]any) []string {
	if c.recorded == nil || tc.ID == "" {
		return nil
	}
	var out []string
	for _, k := range c.recorded(tc.ID) {
		if k.Task != tc.Task {
			continue
		}
		key, err := effect.ParseKey(k.Key)
		if err != nil {
			continue
		}
		if len(dests) > 0 && !namesDestination(dests, key.Destination) {
			continue
		}
		out = append(out, k.Key)
	}
	return out
}

// namesDestination: one of a call's destinations may be d (SPEC §2).
func namesDestination(dests []map[string]any, d effect.Destination) bool {
	for _, m := range dests {
		var x effect.Destination
		x.Provider, _ = m["provider"].(string)
		x.ID, _ = m["id"].(string)
		x.Title, _ = m["title"].(string)
		if effect.MayBeSame(x, d) {
			return true
		}
	}
	return false
}

func (rn *run) conventions(in *Input) *conventions {
	rules := builtin().compiled
	if p := rn.opt.Profile; p != nil {
		rules = p.compiled
		if p.Extends == nil || *p.Extends {
			rules = append(append([]*compiledRule{}, p.compiled...), builtin().compiled...)
		}
	}
	return &conventions{asking: rn.opt.Asking, lastLine: map[string]int{}, rules: rules, recorded: rn.opt.RecordedKeys, in: in, file: in.Path, source: in.Format, emit: rn.emit, count: &in.Events,
		pending: rn.pending, page: rn.page, notices: map[string]bool{}, held: map[string][]Event{},
		metas: map[string]map[string]string{}}
}

func (c *conventions) event(task string, ts time.Time, line int, typ string, fields map[string]any) {
	if fields == nil {
		fields = map[string]any{}
	}
	for k, v := range c.tag {
		if _, ok := fields[k]; !ok {
			fields[k] = v
		}
	}
	e := Event{File: c.file, Line: line, TS: ts, Task: task, Type: typ, Source: c.source, Fields: fields}
	if c.holding != "" {
		if _, ok := c.held[c.holding]; !ok {
			c.order = append(c.order, c.holding)
		}
		c.held[c.holding] = append(c.held[c.holding], e)
		return
	}
	*c.count++
	c.emit(e)
}

// release emits the held events of a call (those keep is true for).
func (c *conventions) release(id string, keep func(Event) bool) {
	evs, ok := c.held[id]
	if !ok {
		return
	}
	delete(c.held, id)
	for _, e := range evs {
		if keep == nil || keep(e) {
			*c.count++
			c.emit(e)
		}
	}
}

// flush emits the events of every call still waiting for its result: a
// call whose result is not in this input may have run.
func (c *conventions) flush() {
	for _, id := range c.order {
		if c.isAsked(id) {
			c.release(id, func(Event) bool { return false }) // the call asked about: not run yet
			continue
		}
		c.release(id, nil)
	}
	c.order = nil
}

// isAsked: the held call id is the one a hook is asked about, of the
// asking task, and the last line that task wrote here (nothing after it:
// the session has not gone on past it, so it cannot have run).
func (c *conventions) isAsked(id string) bool {
	if c.asking.ID == "" || id != c.asking.ID {
		return false
	}
	evs := c.held[id]
	if len(evs) == 0 {
		return false
	}
	for _, e := range evs {
		if e.Task != c.asking.Task || e.Line < c.lastLine[e.Task] {
			return false
		}
	}
	return true
}

// wrote notes a line of a task (isAsked).
func (c *conventions) wrote(task string, line int) {
	if line > c.lastLine[task] {
		c.lastLine[task] = line
	}
}

// Lifecycle events (task_started, interrupted, ...) of foreign formats.
func (c *conventions) lifecycle(task string, ts time.Time, line int, typ string, fields map[string]any) {
	c.event(task, ts, line, typ, fields)
}

var mcpPrefix = regexp.MustCompile(`^mcp__(.+?)__(.+)$`)

// unit is what one rule judges: a whole call, or one simple command of a
// shell call.
type unit struct {
	text  string      // the arg text the rule reads
	parts []shellPart // a shell call's simple commands (nil: a whole call)
	i     int         // this part's index
	line  *shellLine  // what the parts' units share (nil: worked out on demand)
}

func (u unit) words() []string {
	if u.parts == nil {
		return nil
	}
	return u.parts[u.i].words
}

// trusted: the call's result status is this unit's own on success.
func (u unit) successImplied() bool {
	if u.parts == nil {
		return true
	}
	if u.line == nil {
		return successImplied(u.parts, u.i)
	}
	return u.line.success(u.i)
}

// failureOwn: had the unit run and succeeded, the call would have
// succeeded: it is the call, or the last command of an && chain that ends
// the line. A failed call then means the unit failed or never ran.
func (u unit) failureOwn() bool {
	if u.parts == nil {
		return true
	}
	if u.i != len(u.parts)-1 || !u.successImplied() {
		return false
	}
	for _, w := range u.parts[u.i].words {
		if w == "!" {
			return false // ! turns its success into the call's failure
		}
		if isEffectlint(w) {
			break
		}
	}
	for _, p := range u.parts {
		if name, _ := commandName(p.words); name == "trap" {
			return false // an EXIT trap may set the call's status
		}
	}
	return true
}

// splits is shellPart.splits of the unit's command (nil when the call is
// no shell line).
func (u unit) splits() []bool {
	if u.parts == nil {
		return nil
	}
	return u.parts[u.i].splits
}

type judged struct {
	rule *compiledRule
	u    unit
}

func isDelivery(r *compiledRule) bool {
	return r.Evidence == "request_sent" || r.Evidence == "send_fired" || r.Evidence == "picker_accepted"
}

// toolMatches is r.toolMatches(name), remembered for the input: a shell
// call asks it of every shell rule for each of its simple commands, and
// an input names few tools.
func (c *conventions) toolMatches(r *compiledRule, name string) bool {
	k := toolQuery{r, name}
	hit, ok := c.toolHits[k]
	if !ok {
		hit = r.toolMatches(name)
		if c.toolHits == nil {
			c.toolHits = map[toolQuery]bool{}
		}
		if len(c.toolHits) < 4096 { // a bound: tool names come from the input
			c.toolHits[k] = hit
		}
	}
	return hit
}

type toolQuery struct {
	r    *compiledRule
	name string
}

func (r *compiledRule) toolMatches(name string) bool {
	return (r.tool == nil || r.tool.MatchString(name)) && (r.toolNot == nil || !r.toolNot.MatchString(name))
}

// judge finds the rules that decide a call. The first rule that matches
// decides, as a whole; when it is a shell rule, the command line is split
// and each simple command is decided by the first shell rule that matches
// it. A profile's rule that is no delivery does not keep the built-in
// delivery rules from judging the same call or command too, unless it says
// overrides_builtin.
func (c *conventions) judge(tc ToolCall, name string, rules []*compiledRule) []judged {
	var lines map[string][]shellPart
	split := func(arg string) (string, []shellPart) {
		text := shellText(gjson.Get(tc.Args, arg))
		if arg == "command" {
			// Codex's exec_command names it cmd (a fourth review today:
			// neither a check nor a curl there was read). Given both,
			// each is judged: which one ran cannot be told.
			if alt := shellText(gjson.Get(tc.Args, "cmd")); alt != "" && alt != text {
				if text != "" {
					text += "\n"
				}
				text += alt
			}
		}
		if lines == nil {
			lines = map[string][]shellPart{}
		}
		ps, ok := lines[arg]
		if !ok {
			ps = splitShell(text)
			lines[arg] = ps
		}
		return text, ps
	}
	for _, r := range rules {
		if !c.toolMatches(r, name) {
			continue
		}
		if r.Shell {
			_, parts := split(r.Arg)
			out := c.judgeParts(tc, name, rules, parts)
			if len(out) == 0 {
				continue // no command of the line matches this rule
			}
			return out
		}
		argText := ""
		if r.Arg != "" {
			argText = argString(gjson.Get(tc.Args, r.Arg))
			if !r.matchesFast.MatchString(argText) {
				continue
			}
		}
		out := []judged{{r, unit{text: argText}}}
		if !r.builtin && !isDelivery(r) {
			out = append(out, c.backstop(tc, name, r, func(b []*compiledRule) []judged { return c.judge(tc, name, b) })...)
		}
		return out
	}
	return nil
}

// judgeParts decides each simple command of a shell call by the first
// shell rule that matches it; nil when none matches any.
func (c *conventions) judgeParts(tc ToolCall, name string, rules []*compiledRule, parts []shellPart) []judged {
	var out []judged
	line := newShellLine(parts)
	for i := range parts {
		if parts[i].runs {
			continue // its script's commands follow it
		}
		u := unit{text: parts[i].text, parts: parts, i: i, line: line}
		unquoted, unquotedDone := "", false // built once per part, when a rule needs it
		one := func(rs []*compiledRule) []judged {
			for _, r := range rs {
				if !r.Shell || !c.toolMatches(r, name) {
					continue
				}
				if r.matchesFast.MatchString(u.text) {
					return []judged{{r, u}}
				}
				if !unquotedDone {
					unquoted, unquotedDone = parts[i].unquoted(), true
				}
				if r.matchesFast.MatchString(unquoted) {
					return []judged{{r, u}}
				}
			}
			return nil
		}
		got := one(rules)
		if len(got) == 1 && !got[0].rule.builtin && !isDelivery(got[0].rule) {
			got = append(got, c.backstop(tc, name, got[0].rule, one)...)
		}
		out = append(out, got...)
	}
	return out
}

// backstop: the built-in delivery rules judge what a profile's rule that
// is no delivery matched, unless it overrides them (then a notice says
// what it kept from being read).
func (c *conventions) backstop(tc ToolCall, name string, r *compiledRule, judge func([]*compiledRule) []judged) []judged {
	var deliveries []*compiledRule
	for _, b := range builtin().compiled {
		if isDelivery(b) {
			deliveries = append(deliveries, b)
		}
	}
	got := judge(deliveries)
	if len(got) == 0 || !r.OverridesBuiltin {
		return got
	}
	msg := fmt.Sprintf("profile rule %q (overrides_builtin) keeps the built-in rule %q from reading calls as %s: first at line %d",
		clip(r.Name, 80), got[0].rule.Name, got[0].rule.Evidence, tc.Line)
	key := r.Name + "\x00" + got[0].rule.Name
	if !c.notices[key] {
		c.notices[key] = true
		c.in.Notices = append(c.in.Notices, msg)
	}
	return nil
}

// Call applies the conventions to a tool call.
func (c *conventions) Call(tc ToolCall) {
	server, name := "", tc.Name
	if m := mcpPrefix.FindStringSubmatch(tc.Name); m != nil {
		server, name = m[1], m[2]
	}
	if tc.Args == "" || !validJSONString(tc.Args) {
		tc.Args = "{}"
	}
	js := c.judge(tc, name, c.rules)
	if len(js) == 0 {
		return
	}
	if c.hold && tc.ID != "" {
		c.holding = tc.ID
		defer func() { c.holding = "" }()
	}
	pc := &pendingCall{task: tc.Task, name: tc.Name}
	n := 0 // intents declared by this call
	for _, j := range js {
		if p, ok := c.apply(j.rule, j.u, tc, server, name, &n); ok {
			pc.parts = append(pc.parts, p)
		}
	}
	if tc.ID != "" && len(pc.parts) > 0 {
		c.pending[tc.ID] = pc
	}
}

// callName names the call in intent ids: its id, and which call under
// that id it is when the id was reused.
func (tc ToolCall) callName() string {
	if tc.Seq > 1 {
		return fmt.Sprintf("%s~%d", tc.ID, tc.Seq)
	}
	return tc.ID
}

// shellText is a shell call's command line: a string as it is, an argv
// array (["bash","-lc","curl …"], as Codex writes it) joined with each
// word quoted for the shell, so that the script a shell is handed stays
// one word (an adversarial review: the array's raw JSON hid an
// `effectlint check`, and a plain join split `bash -lc` from its script).
func shellText(r gjson.Result) string {
	if !r.IsArray() {
		return argString(r)
	}
	var words []string
	r.ForEach(func(_, v gjson.Result) bool {
		words = append(words, shellQuote(v.String()))
		return true
	})
	return strings.Join(words, " ")
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(w string) string {
	if w != "" && strings.IndexFunc(w, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_@%+=:,./-", c))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

func argString(r gjson.Result) string {
	if r.Type == gjson.String {
		return r.Str
	}
	return r.Raw
}

// apply turns one judged unit into events; ok when its result means
// something.
func (c *conventions) apply(r *compiledRule, u unit, tc ToolCall, server, name string, n *int) (pendingPart, bool) {
	switch r.Evidence {
	case "ignore":
		return pendingPart{}, false
	case "navigate":
		if id := firstArg(tc.Args, r.Destination.IDArgs); id != "" {
			c.page[tc.Task] = id
		}
		return pendingPart{}, false
	case "gate_check":
		cwd, known := unitCwd(u, tc.Cwd)
		checked, names := checkedIntent(u.words(), u.splits(), cwd, known)
		return pendingPart{rule: r, u: u, checked: checked, checkedID: "check:" + tc.callName(), unreadKey: names && checked == nil}, r.Result == "gate"
	}
	var intents []string
	fields := func() map[string]any { return map[string]any{"tool": tc.Name} }
	dests, contents := c.intentsOf(r, u, tc, server, name)
	// The gate remembers what it saw: a call a key ledger claimed (a
	// hook, keyed when it ran) is read with the keys recorded then, not
	// by hashing its files now, which may hold other bytes.
	if keys := c.recordedKeys(tc, dests); len(keys) > 0 && !r.Content.empty() {
		for _, k := range keys {
			*n++
			id := "call:" + tc.callName()
			if *n > 1 {
				id += fmt.Sprintf("#%d", *n)
			}
			c.event(tc.Task, tc.TS, tc.Line, "intent", map[string]any{"intent": id, "key": k})
			f := fields()
			f["intent"] = id
			c.event(tc.Task, tc.TS, tc.Line, r.Evidence, f)
			intents = append(intents, id)
		}
		return pendingPart{rule: r, intents: intents, u: u}, r.Result != ""
	}
	for _, dest := range dests {
		for _, content := range contents {
			*n++
			id := "call:" + tc.callName()
			if tc.ID == "" {
				id = fmt.Sprintf("call@%d", tc.Line)
			}
			if *n > 1 {
				id += fmt.Sprintf("#%d", *n)
			}
			c.event(tc.Task, tc.TS, tc.Line, "intent", map[string]any{"intent": id, "destination": dest, "content": content})
			f := fields()
			f["intent"] = id
			if r.Idempotent {
				// Repeating an idempotent effect changes nothing: the provider
				// "deduplicates" by content, so repeats share one token.
				f["idempotency_token"] = "idempotent:" + tokenOf(dest, content)
			}
			c.event(tc.Task, tc.TS, tc.Line, r.Evidence, f)
			intents = append(intents, id)
		}
	}
	if len(intents) == 0 {
		f := fields()
		if !r.Content.empty() {
			// A delivery whose destination or content cannot be found stays
			// evidence, tied to no key (UNKEYED_CROSSING), never nothing.
			f["intent"] = "unkeyed-call:" + tc.callName()
		}
		c.event(tc.Task, tc.TS, tc.Line, r.Evidence, f)
	}
	return pendingPart{rule: r, intents: intents, u: u}, r.Result != ""
}

// intentsOf finds the destinations and contents of a delivery: none when
// the rule has no content (the call continues the latest intent) or either
// is missing. A command that sends several files, or to several URLs,
// declares one intent for each pair: each file is a delivery of its own.
func (c *conventions) intentsOf(r *compiledRule, u unit, tc ToolCall, server, name string) ([]map[string]any, []map[string]any) {
	if r.Content.empty() {
		return nil, nil
	}
	provider := r.Destination.Provider
	if provider == "$server" {
		provider = server
		if provider == "" {
			provider = name
		}
	}
	if provider == "" {
		return nil, nil
	}
	var dests []map[string]any
	for _, id := range destIDs(r, tc, u, c.page[tc.Task]) {
		dests = append(dests, map[string]any{"provider": provider, "id": id})
	}
	if len(dests) == 0 {
		return nil, nil
	}
	cwd, known := unitCwd(u, tc.Cwd)
	contents := contentsOf(r, tc.Args, u, cwd)
	if len(contents) == 0 {
		return nil, nil
	}
	if !known {
		// The command runs in a directory the line changed to in a way
		// not followed: a relative file it names cannot be found, so
		// the delivery stays without a key (fail closed).
		for _, c := range contentsOf(r, tc.Args, u, "") {
			if p, ok := c["path"].(string); ok && !filepath.IsAbs(p) {
				return nil, nil
			}
		}
	}
	return dests, contents
}

func destIDs(r *compiledRule, tc ToolCall, u unit, page string) []string {
	if len(r.Destination.IDArgs) > 0 {
		if ids, present := argValues(tc.Args, r.Destination.IDArgs); present {
			return ids
		}
	}
	if r.idPattern != nil {
		if m := r.idPattern.FindStringSubmatch(u.text); m != nil {
			if i := r.idPattern.SubexpIndex("id"); i > 0 && strings.TrimSpace(m[i]) != "" {
				return []string{strings.TrimSpace(m[i])}
			}
		}
	}
	one := func(s string) []string {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	switch r.Destination.IDDefault {
	case "":
		return nil
	case "$cwd":
		return one(tc.Cwd)
	case "$page":
		return one(page)
	case "$url":
		return commandURLs(r, u.words())
	}
	return []string{r.Destination.IDDefault}
}

func contentsOf(r *compiledRule, args string, u unit, cwd string) []map[string]any {
	cr := r.Content
	// Every content argument the call gives is a content of its own (an
	// upload given a file and an attachment delivers both); a value no
	// one could hash leaves the call without a key (fail closed).
	shas, withSHA := argValues(args, cr.SHA256Args)
	files, withFile := argValues(args, cr.FileArgs)
	if withSHA || withFile {
		if withSHA && shas == nil || withFile && files == nil {
			return nil
		}
		var out []map[string]any
		for _, s := range shas {
			out = append(out, map[string]any{"sha256": s})
		}
		for _, p := range files {
			out = append(out, map[string]any{"path": inDir(cwd, p)})
		}
		return out
	}
	if files := commandFiles(r, u.words()); len(files) > 0 {
		// The bytes of the files the command names, never its text: a
		// file that cannot be read leaves the intent without a key.
		var out []map[string]any
		for _, f := range files {
			out = append(out, map[string]any{"path": inDir(cwd, f)})
		}
		return out
	}
	if t, ok := firstArgPresent(args, cr.TextArgs); ok {
		return []map[string]any{{"sha256": sha256Hex(t)}}
	}
	if r.contentPattern != nil {
		if m := r.contentPattern.FindStringSubmatch(u.text); m != nil {
			if i := r.contentPattern.SubexpIndex("content"); i > 0 {
				return []map[string]any{{"sha256": sha256Hex(strings.Trim(m[i], `"'`))}}
			}
		}
	}
	if cr.WholeArg && u.text != "" {
		return []map[string]any{{"sha256": sha256Hex(u.text)}}
	}
	return nil
}

// commandFiles lists the files a shell command names as sent (file_pattern,
// file_positionals_after), each once, in order.
func commandFiles(r *compiledRule, words []string) []string {
	if len(words) == 0 {
		return nil
	}
	var files []string
	seen := map[string]bool{}
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	if re := r.filePattern; re != nil {
		for _, m := range re.FindAllStringSubmatch(wordsText(words), -1) {
			for i, g := range re.SubexpNames() {
				switch {
				case m[i] == "":
				case g == "file":
					add(m[i])
				case g == "qfile":
					add(unbackslash(m[i]))
				}
			}
		}
	}
	if n := r.Content.FilePositionalsAfter; n > 0 {
		pos := positionals(r, words)
		for i := n; i < len(pos); i++ {
			add(pos[i])
		}
	}
	return files
}

func unbackslash(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// positionals are the words of a command that are neither options nor the
// values of its value_options (from the command's name on: environment
// assignments and wrappers such as sudo are skipped).
func positionals(r *compiledRule, words []string) []string {
	i := 0
	for i < len(words) && (isAssignment(words[i]) || wrapper[words[i]]) {
		i++
	}
	var out []string
	for ; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--":
			return append(out, words[i+1:]...)
		case strings.HasPrefix(w, "--"):
			if r.valueOptions[w] && !strings.Contains(w, "=") {
				i++
			}
		case strings.HasPrefix(w, "-") && len(w) > 1:
			// Short options, bundled: the first that takes a value takes
			// the rest of the word, or the next word.
			for k := 1; k < len(w); k++ {
				if r.valueOptions["-"+w[k:k+1]] {
					if k == len(w)-1 {
						i++
					}
					break
				}
			}
		default:
			out = append(out, w)
		}
	}
	return out
}

// commandURLs are the URLs a command sends to (the values of --url and
// the positional words that are http or https URLs), normalized so that
// the same URL is one destination however the command is written.
func commandURLs(r *compiledRule, words []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if n := effect.NormalizeURL(s); n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for i, w := range words {
		if w == "--url" && i+1 < len(words) {
			add(words[i+1])
		}
	}
	for _, w := range positionals(r, words) {
		add(w)
	}
	return out
}

// inDir resolves a path a tool call names against the call's working
// directory (SPEC §2), when the format records one. Without a cwd the path
// stays as written: the analyzer resolves a relative path against the
// directory of the transcript.
func inDir(cwd, p string) string {
	if cwd == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(cwd, p)
}

func firstArg(args string, paths []string) string {
	s, _ := firstArgPresent(args, paths)
	return s
}

func firstArgPresent(args string, paths []string) (string, bool) {
	for _, p := range paths {
		v := gjson.Get(args, p)
		switch {
		case v.Type == gjson.String && v.Str != "":
			return v.Str, true
		case v.IsArray() || v.IsObject():
			// A list of recipients or an object payload: its JSON text.
			return v.Raw, true
		case v.Exists() && v.Type != gjson.Null && v.Type != gjson.String:
			return v.Raw, true
		}
	}
	return "", false
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func tokenOf(dest, content map[string]any) string {
	b, _ := json.Marshal([]any{dest, content})
	return sha256Hex(string(b))[:16]
}

// Result records a call's outcome.
func (c *conventions) Result(id string, res toolResult) {
	p := c.pending[id]
	if res.Denied {
		// A call a PreToolUse hook denied never ran: no crossing. When the
		// hook was effectlint's gate, its denial is a stop at send for
		// what the call intended.
		var intents []string
		c.release(id, func(e Event) bool {
			if res.DeniedByGate && e.Type == "intent" {
				intents = append(intents, e.Str("intent"))
				return true
			}
			return false
		})
		delete(c.pending, id)
		if res.DeniedByGate && p != nil {
			if len(intents) == 0 {
				c.event(p.task, res.TS, res.Line, "gate_check", map[string]any{"checkpoint": "send", "decision": "stop"})
			}
			for _, in := range intents {
				c.event(p.task, res.TS, res.Line, "gate_check", map[string]any{"checkpoint": "send", "decision": "stop", "intent": in})
			}
		}
		return
	}
	c.release(id, nil)
	if p == nil {
		return
	}
	delete(c.pending, id)
	checks := 0
	for _, part := range p.parts {
		if part.rule.Result == "gate" {
			checks++
		}
	}
	for _, part := range p.parts {
		switch part.rule.Result {
		case "response":
			// No error: a confirmation, when the call's status is this
			// command's own; an error: not confirmed, whichever command
			// failed. A success that may be another command's says nothing.
			if !res.Error && !part.u.successImplied() {
				continue
			}
			if len(part.intents) == 0 {
				c.event(p.task, res.TS, res.Line, "response", map[string]any{"ok": !res.Error})
			}
			for _, in := range part.intents {
				c.event(p.task, res.TS, res.Line, "response", map[string]any{"ok": !res.Error, "intent": in})
			}
		case "gate":
			cp := "resume"
			if part.rule.checkpoint != nil {
				// The words, quotes removed, when the call is a shell
				// line: `--checkpoint "send"` is send (a fifth review:
				// read in the quoted text, it was resume, and the
				// approach was lost); the last one counts, as for the
				// command itself.
				text := part.u.text
				if w := part.u.words(); w != nil {
					text = strings.Join(w, " ")
				}
				if ms := part.rule.checkpoint.FindAllStringSubmatch(text, -1); ms != nil {
					if i := part.rule.checkpoint.SubexpIndex("checkpoint"); i > 0 {
						cp = ms[len(ms)-1][i]
					}
				}
				// A word the shell expands ($'send', "$(echo send)", $CP,
				// $ARGS) may make it any checkpoint: send, the reading at
				// which an allowed check approaches (a seventh review:
				// read as resume, the check approached nothing and the
				// session's own unresolved approach was lost).
				if checkpointExpands(part.u.words(), part.u.splits()) {
					cp = "send"
				}
			}
			decision := gateDecision(part.u, res, checks)
			fields := map[string]any{"checkpoint": cp, "decision": decision}
			if decision == "allow" && part.checked != nil {
				// An allowed check approaches the key it names: declared
				// as the task's intent, the approach is that scope's, and
				// only its own crossing or retreat resolves it (an
				// adversarial review: the allowed check for slack/C1 went
				// to the task's later post to slack/C2, which resolved it,
				// and a second task was allowed for C1).
				in := map[string]any{"intent": part.checkedID}
				for k, v := range part.checked {
					in[k] = v
				}
				c.event(p.task, res.TS, res.Line, "intent", in)
				fields["intent"] = part.checkedID
			} else if decision == "allow" && part.unreadKey {
				// It named a key that cannot be read (--destination
				// slack/$CH): its approach is of no key the history
				// declares, an unkeyed approach that may be any
				// destination's, not the task's latest intent's (a
				// seventh review: it went to slack/$CH, and a sibling
				// was allowed for slack/C1).
				fields["intent"] = part.checkedID
			}
			c.event(p.task, res.TS, res.Line, "gate_check", fields)
		}
	}
}

var (
	ansiEscape  = regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")
	textVerdict = regexp.MustCompile(`(?m)^[ \t#>*]*(ALLOW|STOP)\**[ \t]+task[ \t]+(\S+)`)
	// --format github's annotation title, and a decision printed alone
	// (`--format json | jq -r .decision`): a sixth review found both read
	// as no verdict, so an allow was taken for a stop.
	githubVerdict = regexp.MustCompile(`::(?:notice|warning|error) title=effectlint check (ALLOW|STOP)(?:%3A|:) task (\S+)`)
	bareVerdict   = regexp.MustCompile(`(?m)^[ \t]*"?(allow|stop)"?[ \t]*$`)
	jsonVerdict   = regexp.MustCompile(`"decision"\s*:\s*"(allow|stop)"`)
	taskArg       = regexp.MustCompile(`(?:^|\s)--task(?:=|\s+)(?:'([^']*)'|"([^"]*)"|(\S+))`)
	passThrough   = map[string]bool{"tee": true, "cat": true, "jq": true} // jq: a decision it prints alone is read (bareVerdict)
	stdoutRedirs  = regexp.MustCompile(`^(?:1?>>?|&>>?|>\|)`)
)

// gateDecision reads the decision of a recorded `effectlint check`: stop
// when its own output says stop for its task (the text report begins with
// "STOP task T", JSON has "decision"), or when the call failed and its
// status is the check's whenever the check ran (alone, or last of an &&
// chain: callers treat every non-zero exit as stop, and a check that
// never ran allowed nothing); otherwise allow. Allow is also the reading
// when nothing says which: an allowed check at picker or send is an
// approach (SPEC §2), which keeps every other task from its key, while a
// stop says nothing.
// Read as a stop, a check nobody saw lost its approach and siblings were
// allowed (a seventh review: --format junit or html, --output FILE, a
// decision printed by a pipeline whose status is not the check's).
func gateDecision(u unit, res toolResult, checks int) string {
	shown := ""
	if checks == 1 && checkOutputShown(u) {
		// (Of several checks in one call, whose the output's words are
		// cannot be told; through sed or awk, they may be another's.)
		shown = outputVerdict(u, res.Output)
	}
	if shown == "stop" {
		return "stop"
	}
	if res.Error && u.failureOwn() && shown != "allow" {
		// The check stopped, or never ran: no allow either way. Unless
		// it printed an allow: then something else failed the call (an
		// EXIT trap set by an earlier call, a seventh review found).
		return "stop"
	}
	return "allow"
}

// checkpointExpands: the shell may give a check another checkpoint than
// its words show. Read at send, the check approaches where it may not
// have (fail closed).
func checkpointExpands(words []string, splits []bool) bool {
	return flagsExpand(words, splits, map[string]bool{"checkpoint": true})
}

// flagsExpand: the shell or a wrapper may give the check other values of
// the flags named than its words show (three reviews today, each form seen
// read literally):
//   - a value of one of them holds an expansion ($CH, "$CP", $(…));
//   - a word holds an expansion, a brace or a glob outside quotes ($ARGS,
//     {send,resume}, sen?), which the shell may split or widen into
//     several arguments;
//   - an argument that is no flag's value holds an expansion, quoted or
//     not ("$FLAGS" may be --checkpoint=send, "$@" several arguments);
//   - xargs or parallel runs it, appending arguments, or a flag named
//     ends the line without its value.
//
// Words after a bare -- are no flags. A history given by a variable is
// safe there: effectlint check --checkpoint send … -- "$DIR".
func flagsExpand(words []string, splits []bool, names map[string]bool) bool {
	start := 0
	for i, w := range words {
		if appendsArgs[w] {
			return true
		}
		if isEffectlint(w) {
			start = i + 1
			break
		}
	}
	for i := start; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			return false
		}
		if i < len(splits) && splits[i] {
			return true
		}
		if !strings.HasPrefix(w, "--") {
			if expands(w) {
				return true
			}
			continue
		}
		name, value, eq := strings.Cut(w[2:], "=")
		if !eq && !booleanFlags[name] {
			if i+1 >= len(words) {
				return names[name] // its value comes from elsewhere, or not at all
			}
			i++
			value = words[i]
			if i < len(splits) && splits[i] {
				return true
			}
		}
		if names[name] && expands(value) {
			return true
		}
	}
	return false
}

// appendsArgs are the commands that run another with arguments of their
// own appended (from standard input, a list).
var appendsArgs = map[string]bool{"xargs": true, "parallel": true}

// keyFlags are the flags of `effectlint check` that name its key.
var keyFlags = map[string]bool{"key": true, "destination": true, "title": true, "sha256": true, "file": true, "authorization": true}

// booleanFlags are the flags of `effectlint check` that take no value.
var booleanFlags = map[string]bool{"no-cache": true, "require-checks": true, "help": true, "version": true}

// expands: a word holds something the shell replaces ($NAME, ${…}, $(…),
// `…`, $'…'), so it does not say what the command was given.
func expands(word string) bool { return strings.ContainsAny(word, "$`") }

// isEffectlint: the word runs effectlint (by name or path).
func isEffectlint(word string) bool {
	return word == "effectlint" || strings.HasSuffix(word, "/effectlint")
}

// checkedIntent is the intent an `effectlint check` command line names by
// its flags: --key, or --destination/--title with --sha256 or --file (a
// relative file against the command's directory, when that is known), and
// --authorization. nil when it names none or cannot be read whole; names
// says whether it gives any of the key's flags.
func checkedIntent(words []string, splits []bool, cwd string, cwdKnown bool) (in map[string]any, names bool) {
	for _, w := range words {
		name, _, _ := strings.Cut(strings.TrimPrefix(w, "--"), "=")
		if strings.HasPrefix(w, "--") && keyFlags[name] && name != "authorization" {
			names = true
		}
	}
	if flagsExpand(words, splits, keyFlags) {
		return nil, names // $CH, $(…): not what the check was given
	}
	return readCheckedIntent(words, cwd, cwdKnown), names
}

func readCheckedIntent(words []string, cwd string, cwdKnown bool) map[string]any {
	flags := map[string]string{}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "--") {
			continue
		}
		name, value, eq := strings.Cut(w[2:], "=")
		switch name {
		case "key", "destination", "title", "sha256", "file", "authorization":
		default:
			continue
		}
		if !eq {
			if i+1 >= len(words) {
				return nil
			}
			i++
			value = words[i]
		}
		if _, twice := flags[name]; twice {
			return nil // which one counts is the command's business
		}
		flags[name] = value
	}
	in := map[string]any{}
	if a := flags["authorization"]; a != "" {
		in["authorization"] = a
	}
	if k := flags["key"]; k != "" {
		in["key"] = k
		return in
	}
	d := map[string]any{}
	if dest := flags["destination"]; dest != "" {
		provider, id, ok := strings.Cut(dest, "/")
		if !ok {
			return nil
		}
		d["provider"], d["id"] = provider, id
	}
	if t := flags["title"]; t != "" {
		d["title"] = t
	}
	if len(d) == 0 {
		return nil
	}
	switch {
	case flags["sha256"] != "":
		in["content"] = map[string]any{"sha256": flags["sha256"]}
	case flags["file"] != "":
		f := flags["file"]
		if !filepath.IsAbs(f) {
			if !cwdKnown || cwd == "" {
				return nil
			}
			f = filepath.Join(cwd, f)
		}
		in["content"] = map[string]any{"path": f}
	default:
		return nil
	}
	in["destination"] = d
	return in
}

// outputVerdict: "stop" when the output holds any stop for the check's
// task (or a JSON stop), else "allow" when it holds an allow, else "".
func outputVerdict(u unit, out string) string {
	if out == "" {
		return ""
	}
	out = ansiEscape.ReplaceAllString(out, "")
	task := ""
	if m := taskArg.FindStringSubmatch(u.text); m != nil {
		task = m[1] + m[2] + m[3]
	}
	allow, stop := false, false
	// The text report's verdict line and the github annotation name the
	// task: only this check's count.
	named := append(textVerdict.FindAllStringSubmatch(out, -1), githubVerdict.FindAllStringSubmatch(out, -1)...)
	for _, m := range named {
		if task != "" && m[2] != task {
			continue
		}
		stop = stop || m[1] == "STOP"
		allow = allow || m[1] == "ALLOW"
	}
	for _, m := range append(jsonVerdict.FindAllStringSubmatch(out, -1), bareVerdict.FindAllStringSubmatch(out, -1)...) {
		stop = stop || m[1] == "stop"
		allow = allow || m[1] == "allow"
	}
	switch {
	case allow:
		// Also beside a stop: the check ran more than once (a loop), or
		// the stop may be another command's; an allow it may have had is
		// an approach (a third review today: "a STOP anywhere wins" lost
		// it).
		return "allow"
	case stop:
		return "stop"
	}
	return ""
}

// checkOutputShown: the check's standard output reaches the recorded
// output (not redirected, not piped into anything but tee or cat).
func checkOutputShown(u unit) bool {
	if u.parts == nil {
		return true
	}
	p := u.parts[u.i]
	for _, w := range p.words {
		if stdoutRedirs.MatchString(w) {
			return false
		}
	}
	for j := u.i; j+1 < len(u.parts) && (u.parts[j].after == "|" || u.parts[j].after == "|&"); j++ {
		next := u.parts[j+1].words
		if len(next) == 0 || !passThrough[next[0]] {
			return false
		}
		for _, w := range next {
			if stdoutRedirs.MatchString(w) {
				return false
			}
		}
	}
	return true
}

// argValues reads every argument of paths a call gives, not only the
// first: a call naming two destinations (channel and channel_id, say), or
// two files, may deliver to or deliver either, so each is one of its own.
// A list of strings is one value each; any other value (an object, a
// number, a list of anything else) names nothing anyone could check, so
// the call has none (ids nil) and stays without a key (fail closed).
// present is false when the call gives none of the arguments.
func argValues(args string, paths []string) (ids []string, present bool) {
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			ids = append(ids, s)
		}
	}
	for _, p := range paths {
		v := gjson.Get(args, p)
		switch {
		case !v.Exists() || v.Type == gjson.Null || v.Type == gjson.String && v.Str == "":
			continue
		case v.Type == gjson.String:
			present = true
			add(v.Str)
		case v.IsArray():
			present = true
			ok := true
			v.ForEach(func(_, e gjson.Result) bool {
				if e.Type != gjson.String || e.Str == "" {
					ok = false
					return false
				}
				add(e.Str)
				return true
			})
			if !ok {
				return nil, true
			}
		default:
			return nil, true
		}
	}
	return ids, present
}
