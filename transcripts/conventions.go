package transcripts

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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
}

func (c ContentRule) empty() bool {
	return len(c.SHA256Args)+len(c.FileArgs)+len(c.TextArgs) == 0 && c.Pattern == "" && !c.WholeArg
}

type compiledRule struct {
	Rule
	tool, toolNot, matches, idPattern, contentPattern, checkpoint *regexp.Regexp
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
		{r.CheckpointPattern, &c.checkpoint, false}} {
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
	if (r.Arg == "") != (r.Matches == "") {
		return nil, fmt.Errorf("arg and matches go together")
	}
	return c, nil
}

var builtin = func() *Profile {
	p, err := ParseProfile("builtin", builtinProfile)
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return p
}()

// ToolCall is one recorded tool invocation, whatever the envelope.
type ToolCall struct {
	Task string
	TS   time.Time
	ID   string
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
}

// conventions turns the tool calls of one input into events.
type conventions struct {
	rules   []*compiledRule
	file    string
	source  string
	emit    func(Event)
	count   *int
	pending map[string]*pendingCall // call id → what its result means
	page    map[string]string       // task → last navigated page
}

type pendingCall struct {
	task   string
	intent string // intent id the result belongs to, or ""
	rule   *compiledRule
	args   string
}

// conventions returns the rule engine for one input of the run. Pending
// results and pages are shared by all inputs: a call and its result can sit
// in different files (Claude Code subagent copies).
func (rn *run) conventions(in *Input) *conventions {
	rules := builtin.compiled
	if p := rn.opt.Profile; p != nil {
		rules = p.compiled
		if p.Extends == nil || *p.Extends {
			rules = append(append([]*compiledRule{}, p.compiled...), builtin.compiled...)
		}
	}
	return &conventions{rules: rules, file: in.Path, source: in.Format, emit: rn.emit, count: &in.Events,
		pending: rn.pending, page: rn.page}
}

func (c *conventions) event(task string, ts time.Time, line int, typ string, fields map[string]any) {
	if fields == nil {
		fields = map[string]any{}
	}
	*c.count++
	c.emit(Event{File: c.file, Line: line, TS: ts, Task: task, Type: typ, Source: c.source, Fields: fields})
}

// Lifecycle events (task_started, interrupted, ...) of foreign formats.
func (c *conventions) lifecycle(task string, ts time.Time, line int, typ string, fields map[string]any) {
	c.event(task, ts, line, typ, fields)
}

var mcpPrefix = regexp.MustCompile(`^mcp__(.+?)__(.+)$`)

// Call applies the first matching rule to a tool call.
func (c *conventions) Call(tc ToolCall) {
	server, name := "", tc.Name
	if m := mcpPrefix.FindStringSubmatch(tc.Name); m != nil {
		server, name = m[1], m[2]
	}
	if tc.Args == "" || !validJSONString(tc.Args) {
		tc.Args = "{}"
	}
	for _, r := range c.rules {
		if r.tool != nil && !r.tool.MatchString(name) {
			continue
		}
		if r.toolNot != nil && r.toolNot.MatchString(name) {
			continue
		}
		argText := ""
		if r.Arg != "" {
			argText = argString(gjson.Get(tc.Args, r.Arg))
			if !r.matches.MatchString(argText) {
				continue
			}
		}
		c.apply(r, tc, server, name, argText)
		return
	}
}

func argString(r gjson.Result) string {
	if r.Type == gjson.String {
		return r.Str
	}
	return r.Raw
}

func (c *conventions) apply(r *compiledRule, tc ToolCall, server, name, argText string) {
	switch r.Evidence {
	case "ignore":
		return
	case "navigate":
		if id := firstArg(tc.Args, r.Destination.IDArgs); id != "" {
			c.page[tc.Task] = id
		}
		return
	case "gate_check":
		if tc.ID != "" {
			c.pending[tc.ID] = &pendingCall{task: tc.Task, rule: r, args: argText}
		}
		return
	}
	fields := map[string]any{"tool": tc.Name}
	intentID := ""
	if dest, content, ok := c.intentOf(r, tc, server, name, argText); ok {
		intentID = "call:" + tc.ID
		if tc.ID == "" {
			intentID = fmt.Sprintf("call@%d", tc.Line)
		}
		c.event(tc.Task, tc.TS, tc.Line, "intent", map[string]any{"intent": intentID, "destination": dest, "content": content})
		fields["intent"] = intentID
		if r.Idempotent {
			// Repeating an idempotent effect changes nothing: the provider
			// "deduplicates" by content, so repeats share one token.
			fields["idempotency_token"] = "idempotent:" + tokenOf(dest, content)
		}
	} else if !r.Content.empty() {
		// A delivery whose destination or content cannot be found stays
		// evidence, tied to no key (UNKEYED_CROSSING), never nothing.
		fields["intent"] = "unkeyed-call:" + tc.ID
	}
	c.event(tc.Task, tc.TS, tc.Line, r.Evidence, fields)
	if tc.ID != "" && r.Result != "" {
		c.pending[tc.ID] = &pendingCall{task: tc.Task, intent: intentID, rule: r}
	}
}

func destID(r *compiledRule, tc ToolCall, argText, page string) string {
	if id := firstArg(tc.Args, r.Destination.IDArgs); id != "" {
		return id
	}
	if r.idPattern != nil {
		if m := r.idPattern.FindStringSubmatch(argText); m != nil {
			if i := r.idPattern.SubexpIndex("id"); i > 0 && strings.TrimSpace(m[i]) != "" {
				return strings.TrimSpace(m[i])
			}
		}
	}
	switch r.Destination.IDDefault {
	case "":
		return ""
	case "$cwd":
		return tc.Cwd
	case "$page":
		return page
	}
	return r.Destination.IDDefault
}

// intentOf finds destination and content; ok is false when the rule has
// no content (the call continues the latest intent) or either is missing.
func (c *conventions) intentOf(r *compiledRule, tc ToolCall, server, name, argText string) (map[string]any, map[string]any, bool) {
	if r.Content.empty() {
		return nil, nil, false
	}
	provider := r.Destination.Provider
	if provider == "$server" {
		provider = server
		if provider == "" {
			provider = name
		}
	}
	id := destID(r, tc, argText, c.page[tc.Task])
	if provider == "" || id == "" {
		return nil, nil, false
	}
	content := contentOf(r, tc.Args, argText, tc.Cwd)
	if content == nil {
		return nil, nil, false
	}
	return map[string]any{"provider": provider, "id": id}, content, true
}

func contentOf(r *compiledRule, args, argText, cwd string) map[string]any {
	cr := r.Content
	if s := firstArg(args, cr.SHA256Args); s != "" {
		return map[string]any{"sha256": s}
	}
	if p := firstArg(args, cr.FileArgs); p != "" {
		return map[string]any{"path": inDir(cwd, p)}
	}
	if t, ok := firstArgPresent(args, cr.TextArgs); ok {
		return map[string]any{"sha256": sha256Hex(t)}
	}
	if r.contentPattern != nil {
		if m := r.contentPattern.FindStringSubmatch(argText); m != nil {
			if i := r.contentPattern.SubexpIndex("content"); i > 0 {
				return map[string]any{"sha256": sha256Hex(strings.Trim(m[i], `"'`))}
			}
		}
	}
	if cr.WholeArg && argText != "" {
		return map[string]any{"sha256": sha256Hex(argText)}
	}
	return nil
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
	if p == nil {
		return
	}
	delete(c.pending, id)
	switch p.rule.Result {
	case "response":
		fields := map[string]any{"ok": !res.Error}
		if p.intent != "" {
			fields["intent"] = p.intent
		}
		c.event(p.task, res.TS, res.Line, "response", fields)
	case "gate":
		decision := "allow"
		if res.Error {
			decision = "stop"
		}
		cp := "resume"
		if p.rule.checkpoint != nil {
			if m := p.rule.checkpoint.FindStringSubmatch(p.args); m != nil {
				if i := p.rule.checkpoint.SubexpIndex("checkpoint"); i > 0 {
					cp = m[i]
				}
			}
		}
		c.event(p.task, res.TS, res.Line, "gate_check", map[string]any{"checkpoint": cp, "decision": decision})
	}
}
