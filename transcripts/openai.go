package transcripts

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// OpenAI conversations.
//
// Read: Chat Completions message arrays ({"messages": [...]} or a bare
// array: assistant tool_calls [{id, function: {name, arguments}}] or the
// older function_call, answered by role "tool" messages with tool_call_id,
// or role "function" messages) and Responses API item lists ({"output":
// [...]}, {"input": [...]}, both in one document, or a bare array:
// function_call / function_call_output, custom_tool_call,
// computer_call, local_shell_call, shell_call and their *_output items, and
// mcp_call items, which carry their own output or error). Chat messages and
// Responses items may be mixed in one list.
//
// Task: the document's conversation id (conversation.id, conversation,
// conversation_id, metadata.conversation_id), else its id (a Response or
// a chat completion), else the file path. One task per document, started
// (relation root) at its first item; the format records no end, no
// interruption and no delegation, so a call without an output stays an
// open crossing.
//
// Time: an item's own created_at / created / timestamp (Unix seconds or
// RFC 3339) when present; otherwise the previous item's time plus one
// millisecond, starting at the document's created_at / created (Response
// and chat completion objects) or, without one, at the Unix epoch
// (1970-01-01T00:00:00Z). Such synthetic times only keep the document's
// order: compare documents without real times by content, not by time.
//
// Results: an output is an error by the convention of toolresult.go (text
// beginning with "Error", JSON with an "error" key, ...), or when its item
// status is "incomplete"; an mcp_call with a non-empty error or status
// "failed"/"incomplete" is an error. A computer_call becomes the tool call
// "computer_call" with the whole item as arguments: the built-in
// conventions see no delivery in it (a click has coordinates, no element
// text), a profile may.
//
// A call is counted once per run by its call id and its turn (documents
// that log each request repeat the whole history): ids of 12 characters or
// more, as OpenAI writes them, are taken as unique across tasks; shorter
// ones only within their task. Providers behind OpenAI-compatible APIs
// reuse ids ("0", "call_0") turn after turn, so an id alone does not name
// a call. A turn is what one response made: an assistant message, a run
// of call items with nothing between them, or a Response's whole output
// list. A call is named by its id and by how many turns of the document
// had a call with that id before (a repeated history repeats them in the
// same order), and it is the same call again only when its name and
// arguments are those recorded first under that name. A result answers
// the latest call of its id in the document. Limit: a history that drops
// its early turns (a truncated context window) and repeats a call with the
// same name, arguments and reused id at the same count is taken for the
// recorded one.

func (rn *run) readOpenAI(d *document) {
	conv := rn.conventions(d.in)
	task, named := openAITask(d)
	var lists []gjson.Result
	output := -1 // the index of the output list: one response, one turn
	if d.root.IsArray() {
		lists = append(lists, d.root)
	} else {
		for _, k := range []string{"messages", "input", "output"} {
			if v := d.root.Get(k); v.IsArray() {
				if k == "output" {
					output = len(lists)
				}
				lists = append(lists, v)
			}
		}
	}
	if len(lists) == 0 {
		d.in.addProblem(Problem{File: d.in.Path, Line: 1,
			Message: "not an OpenAI conversation: no messages, input or output list (nor a bare list of items)"})
		return
	}
	clock, hasBase := docTime(d.root)
	if !hasBase {
		clock = time.Unix(0, 0).UTC()
	}
	type item struct {
		r    gjson.Result
		ts   time.Time
		turn int
		own  bool // ts is the item's own time, not one made up from the order
	}
	var items []item
	start := clock
	turn := 0
	for li, l := range lists {
		afterCall := false
		if li == output {
			turn++
		}
		l.ForEach(func(_, r gjson.Result) bool {
			if d.partial(r) {
				return false // cut by a break in the document
			}
			own := false
			if t, ok := docTime(r); ok {
				clock, own = t, true
			} else {
				clock = clock.Add(time.Millisecond)
			}
			if clock.Before(start) {
				start = clock
			}
			// A turn is what one response made: an assistant message, a
			// run of call items (parallel calls), or a whole output list.
			call := strings.HasSuffix(r.Get("type").String(), "_call")
			if li != output && (r.Get("role").String() == "assistant" || (call && !afterCall)) {
				turn++
			}
			afterCall = call
			items = append(items, item{r, clock, turn, own})
			return true
		})
	}
	d.in.Records += len(items)
	if rn.once("task:" + task) {
		// The start points at the task's id, else at the first item.
		line := 1
		if named.Exists() {
			line = d.lineOf(named)
		} else if len(items) > 0 {
			line = d.lineOf(items[0].r)
		}
		conv.lifecycle(task, start, line, "task_started", map[string]any{"relation": "root"})
	}
	o := &openAIDoc{rn: rn, d: d, conv: conv, task: task, legacy: map[string][]string{}, unread: map[string]int{},
		turns: map[string]int{}, lastTurn: map[string]int{}, latest: map[string]string{}, inTurn: map[string]int{}, inTurnRaw: map[string]string{}, inTurnOf: -1,
		answered: map[string]string{}}
	repeats := findRepeats(d)
	for i, it := range items {
		if rep, ok := repeats.in(it.r); ok {
			// Two readings of the item: neither is taken.
			o.problem(it.r, repeatMessage(rep.path, "item"))
			continue
		}
		o.turn, o.ownTime = it.turn, it.own
		o.item(i, it.r, it.ts)
	}
	repeats.rest(d)
	var kinds []string
	for k, n := range o.unread {
		kinds = append(kinds, fmt.Sprintf("%s (%d)", clip(k, 60), n))
	}
	sort.Strings(kinds)
	if len(kinds) > 0 {
		d.in.Notices = append(d.in.Notices, "item types not read as tool calls: "+listed(kinds, 8))
	}
}

type openAIDoc struct {
	rn       *run
	d        *document
	conv     *conventions
	task     string
	legacy   map[string][]string // function name → ids of legacy function_call messages awaiting a result
	unread   map[string]int
	turn     int               // the turn of the item being read
	ownTime  bool              // the item being read has a time of its own
	turns    map[string]int    // call id → turns with a call of that id so far in the document
	lastTurn map[string]int    // call id → the latest of those turns
	latest   map[string]string // call id → key of its latest call in the document
	// inTurn counts the calls of each id in the turn being read
	// (inTurnOf): parallel calls that share an id are calls each.
	inTurn    map[string]int
	inTurnRaw map[string]string // call id → its latest record's text in the turn
	inTurnOf  int
	answered  map[string]string // call key → the output this document gave it
}

// openAITask names the document's task and the value that names it (which
// does not exist for the file path).
func openAITask(d *document) (string, gjson.Result) {
	if d.root.IsObject() {
		for _, p := range []string{"conversation.id", "conversation", "conversation_id", "metadata.conversation_id", "id"} {
			if v := d.root.Get(p); v.Type == gjson.String && strings.TrimSpace(v.Str) != "" {
				return v.Str, v
			}
		}
	}
	return d.in.Path, gjson.Result{}
}

// docTime is a record's own time: created_at, created or timestamp.
func docTime(r gjson.Result) (time.Time, bool) {
	if !r.IsObject() {
		return time.Time{}, false
	}
	for _, k := range []string{"created_at", "created", "timestamp"} {
		if t, ok := parseTime(r.Get(k)); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

// callKey is the id a call is known by in this run (see the top comment).
func (o *openAIDoc) callKey(id string) string {
	if len(id) >= 12 {
		return id
	}
	return o.task + "/" + id
}

// resultKey is the call a result answers: the latest call of its id in
// the document, else the first call of that id (recorded in another
// document of the run).
func (o *openAIDoc) resultKey(id string) string {
	if k, ok := o.latest[id]; ok {
		return k
	}
	return o.callKey(id)
}

// orphan makes an output whose call was not read (trimmed from the
// context, or in an export not given, or in one read later) a problem of
// its line: the call it answers ran, and may have delivered, with
// arguments no input shows.
func (o *openAIDoc) orphan(r gjson.Result, callID string) bool {
	if callID == "" || o.rn.seen["openai-call-id:"+callID] {
		return false
	}
	o.problem(r, fmt.Sprintf("output of call %q, which is not in the history read: the call it answers ran, and may have delivered", clip(callID, 60)))
	return true
}

func (o *openAIDoc) problem(r gjson.Result, msg string) {
	o.d.in.addProblem(Problem{File: o.d.in.Path, Line: o.d.lineOf(r), Task: o.task, Message: msg})
}

// call records a tool call; id may be empty (then the call is named by its
// place in the document and never deduplicated).
func (o *openAIDoc) call(r gjson.Result, ts time.Time, n int, id, name, args string) string {
	if id != "" {
		o.rn.seen["openai-call-id:"+id] = true
	}
	if strings.TrimSpace(name) == "" {
		o.problem(r, "tool call without a name: what it did cannot be told")
		return ""
	}
	if p, repeated := argumentsRepeat(args); repeated {
		// Arguments are JSON text inside a string: the document's scan
		// does not see into them, and the conventions read the first
		// value of a repeated key.
		o.problem(r, repeatMessage(p, "call's arguments"))
		return ""
	}
	key := fmt.Sprintf("%s#%d", o.d.in.Path, n)
	if id != "" {
		if last, ok := o.lastTurn[id]; !ok || last != o.turn {
			o.turns[id]++
			o.lastTurn[id] = o.turn
		}
		key = o.callKey(id)
		if turn := o.turns[id]; turn > 1 {
			key = fmt.Sprintf("%s#%d", key, turn)
		}
		// Two different records of one turn with one call id (parallel
		// calls an exporter numbered alike, items fc_1 and fc_2 with one
		// call_id: the third adversarial review) are two calls; a
		// re-recorded history repeats the whole turn, so the same place in
		// it names the same call again.
		if o.inTurnOf != o.turn {
			clear(o.inTurn)
			clear(o.inTurnRaw)
			o.inTurnOf = o.turn
		}
		if prev, ok := o.inTurnRaw[id]; !ok || prev != r.Raw {
			// (The very same record twice is one call recorded twice.)
			o.inTurn[id]++
			o.inTurnRaw[id] = r.Raw
		}
		if k := o.inTurn[id]; k > 1 {
			key = fmt.Sprintf("%s~%d", key, k)
		}
		content := "openai-call-content:" + key + "|" + sha256Hex(name+"\x00"+args)
		if o.ownTime {
			// A re-recorded history repeats a call with its time; the
			// same id, name and arguments at another time is another call
			// (a seventh review: two conversations a day apart reused one
			// call id, and the second delivery was read as a copy).
			content += "|" + ts.UTC().Format(time.RFC3339Nano)
		}
		switch {
		case o.rn.once("openai-call:" + key):
			o.rn.seen[content] = true
		case o.rn.seen[content]:
			o.latest[id] = key
			return key // the same call again (a repeated history)
		default:
			// The id and turn of a recorded call, another name or other
			// arguments: another call, not a copy.
			key = fmt.Sprintf("%s@%s#%d.%d", key, o.d.in.Path, n, o.turns[id])
		}
		o.latest[id] = key
	}
	o.conv.Call(ToolCall{Task: o.task, TS: ts, ID: key, Name: name, Args: args, Line: o.d.lineOf(r)})
	return key
}

func (o *openAIDoc) result(r gjson.Result, ts time.Time, key string, failed bool) {
	if key == "" {
		return
	}
	if prev, ok := o.answered[key]; ok {
		// One history answers one call once. The same output again is
		// one answer recorded twice; another output means two calls under
		// one id (parallel calls numbered alike), or one answered twice:
		// which, cannot be told.
		if prev != r.Raw {
			o.problem(r, fmt.Sprintf("a second, different output for call %q in one history: two calls under one id, or one answered twice", clip(key, 60)))
		}
		return
	}
	o.answered[key] = r.Raw
	if !o.rn.once("openai-result:" + key) {
		return
	}
	// The output's text too: an `effectlint check` in it says its own
	// decision (a fifth review: a check inside `bash -lc` was read from
	// no text and its allow taken for a stop).
	out := r
	if ov := r.Get("output"); ov.Exists() {
		out = ov
	}
	text := out.Raw
	if out.Type == gjson.String {
		text = out.Str
	}
	o.conv.Result(key, toolResult{TS: ts, Error: failed, Line: o.d.lineOf(r), Output: text})
}

func (o *openAIDoc) item(n int, r gjson.Result, ts time.Time) {
	if !r.IsObject() {
		o.problem(r, "item is not a JSON object")
		return
	}
	typ := r.Get("type").String()
	callID := r.Get("call_id").String()
	incomplete := r.Get("status").String() == "incomplete"
	switch typ {
	case "function_call":
		o.call(r, ts, n, callID, r.Get("name").String(), jsonText(r.Get("arguments")))
	case "custom_tool_call":
		o.call(r, ts, n, callID, r.Get("name").String(), object("input", r.Get("input").String()))
	case "computer_call":
		o.call(r, ts, n, callID, "computer_call", r.Raw)
	case "local_shell_call":
		o.call(r, ts, n, callID, "local_shell", object("command", shellText(r.Get("action.command"))))
	case "shell_call":
		o.call(r, ts, n, callID, "shell", object("command", joinStrings(r.Get("action.commands"), "\n")))
	case "mcp_call":
		name := r.Get("name").String()
		if label := r.Get("server_label").String(); label != "" && name != "" {
			name = "mcp__" + label + "__" + name
		}
		key := o.call(r, ts, n, r.Get("id").String(), name, jsonText(r.Get("arguments")))
		status := r.Get("status").String()
		out, errv := r.Get("output"), r.Get("error")
		switch {
		case truthy(errv):
			o.result(errv, ts, key, true)
		case status == "failed" || incomplete:
			o.result(r, ts, key, true)
		case out.Exists() && out.Type != gjson.Null:
			o.result(out, ts, key, outputSaysError(out))
		case status == "completed":
			o.result(r, ts, key, false)
		}
	case "function_call_output", "custom_tool_call_output", "computer_call_output", "local_shell_call_output", "shell_call_output":
		if o.orphan(r, callID) {
			return
		}
		o.result(r, ts, o.resultKey(callID), incomplete || outputSaysError(r.Get("output")))
	case "", "message":
		o.message(n, r, ts)
	default:
		if strings.HasSuffix(typ, "_call") {
			o.unread[typ]++
		}
	}
}

// message reads a Chat Completions message (or a Responses message item).
func (o *openAIDoc) message(n int, r gjson.Result, ts time.Time) {
	switch r.Get("role").String() {
	case "assistant":
		r.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
			id := tc.Get("id").String()
			switch {
			case tc.Get("function").Exists():
				o.call(tc, ts, n, id, tc.Get("function.name").String(), jsonText(tc.Get("function.arguments")))
			case tc.Get("custom").Exists():
				o.call(tc, ts, n, id, tc.Get("custom.name").String(), object("input", tc.Get("custom.input").String()))
			default:
				o.problem(tc, "tool call of an unknown kind: what it did cannot be told")
			}
			return true
		})
		if fc := r.Get("function_call"); fc.IsObject() {
			// The older functions API: no ids, answered by the next
			// role "function" message of the same name.
			name := fc.Get("name").String()
			if key := o.call(fc, ts, n, "", name, jsonText(fc.Get("arguments"))); key != "" {
				o.legacy[name] = append(o.legacy[name], key)
			}
		}
	case "tool":
		if o.orphan(r, r.Get("tool_call_id").String()) {
			return
		}
		o.result(r, ts, o.resultKey(r.Get("tool_call_id").String()), outputSaysError(r.Get("content")))
	case "function":
		name := r.Get("name").String()
		if q := o.legacy[name]; len(q) > 0 {
			o.legacy[name] = q[1:]
			o.result(r, ts, q[0], outputSaysError(r.Get("content")))
		} else {
			// As for an output whose call id was never read: the call ran.
			o.problem(r, fmt.Sprintf("result of function %q, whose function_call is not in the history read: the call it answers ran, and may have delivered", clip(name, 60)))
		}
	}
}

// jsonText is an arguments value as JSON object text: a string holding
// JSON, or the value itself.
func jsonText(r gjson.Result) string {
	if r.Type == gjson.String {
		return r.Str
	}
	return r.Raw
}

// object is {key: value} as JSON text.
func object(key, value string) string {
	b, _ := json.Marshal(map[string]string{key: value})
	return string(b)
}

func joinStrings(r gjson.Result, sep string) string {
	if r.Type == gjson.String {
		return r.Str
	}
	var parts []string
	r.ForEach(func(_, v gjson.Result) bool { parts = append(parts, v.String()); return true })
	return strings.Join(parts, sep)
}
