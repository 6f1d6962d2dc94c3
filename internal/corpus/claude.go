package corpus

import (
	"fmt"
	"time"
)

// Claude Code sessions, one file per session as ~/.claude/projects keeps
// them: a prompt, tool calls whose results are long outputs (the bytes),
// and the delivery, an MCP Slack post, whose result confirms it or times
// out. Kinds: most sessions post once and are confirmed; some gate
// themselves with `effectlint check` first; some are interrupted by the
// user or compacted; a few post, time out, and a session the next day
// posts the same text again (the incident); some only work.

var claudeKinds = []kind{
	{"clean_post", 780, 1},
	{"gated_post", 80, 1},
	{"interrupted_then_post", 40, 1},
	{"compacted_then_post", 30, 1},
	{"work_only", 50, 1},
	{"timeout_then_duplicate", 20, 2},
}

func (g *gen) pickClaude() kind {
	n := g.rng.IntN(1000)
	for _, k := range claudeKinds {
		if n < k.weight {
			return k
		}
		n -= k.weight
	}
	return claudeKinds[0]
}

type csession struct {
	g      *gen
	id     string
	at     time.Time
	parent string
	n      int
	lines  int
}

func (g *gen) uuid(n uint64) string {
	h := (n + 1) * 0x9E3779B97F4A7C15
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(h>>32), uint16(h>>16), uint16(h>>4)&0xfff, uint16(n)&0xfff, n&0xffffffffffff)
}

// rec writes one line: the envelope every Claude Code line has, and body
// (the type-specific fields, raw JSON after a comma).
func (s *csession) rec(step time.Duration, typ, body string) {
	g := s.g
	s.at = s.at.Add(step)
	s.n++
	u := fmt.Sprintf("%s-%d", s.id, s.n)
	b := g.buf[:0]
	b = append(b, `{"parentUuid":`...)
	if s.parent == "" {
		b = append(b, "null"...)
	} else {
		b = appendString(b, s.parent)
	}
	b = append(b, `,"isSidechain":false,"userType":"external","cwd":"/home/USER/projects/reports","version":"2.1.39","gitBranch":"main","sessionId":`...)
	b = appendString(b, s.id)
	b = append(b, `,"type":`...)
	b = appendString(b, typ)
	b = append(b, ',')
	b = append(b, body...)
	b = append(b, `,"uuid":`...)
	b = appendString(b, u)
	b = append(b, `,"timestamp":"`...)
	b = s.at.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	b = append(b, `"}`...)
	g.buf = b
	g.line(b)
	s.parent = u
	s.lines++
}

func (s *csession) prompt(text string) {
	s.rec(0, "user", `"message":{"role":"user","content":`+string(appendString(nil, text))+`}`)
}

func (s *csession) toolUse(id, name, input string) {
	s.rec(time.Duration(2+s.g.rng.IntN(8))*time.Second, "assistant",
		`"message":{"model":"claude-opus-4-6","id":"msg_`+id+`","type":"message","role":"assistant","content":[{"type":"tool_use","id":"`+id+`","name":"`+name+`","input":`+input+`}],"stop_reason":null}`)
}

func (s *csession) toolResult(id, content string, isError bool) {
	e := ""
	if isError {
		e = `,"is_error":true`
	}
	s.rec(time.Duration(1+s.g.rng.IntN(30))*time.Second, "user",
		`"message":{"role":"user","content":[{"tool_use_id":"`+id+`","type":"tool_result","content":`+content+e+`}]}`)
}

func (s *csession) text(t string) {
	s.rec(2*time.Second, "assistant", `"message":{"model":"claude-opus-4-6","id":"msg_t`+fmt.Sprint(s.n)+`","type":"message","role":"assistant","content":[{"type":"text","text":`+string(appendString(nil, t))+`}],"stop_reason":"end_turn"}`)
}

// work writes n lines of tool calls and their long results.
func (s *csession) work(n int) {
	g := s.g
	for i := 0; i+1 < n; i += 2 {
		id := fmt.Sprintf("toolu_%s_%d", s.id, s.n)
		if g.rng.IntN(2) == 0 {
			s.toolUse(id, "Bash", `{"command":"go test ./... 2>&1 | tail -n 200","description":"Run the tests"}`)
		} else {
			s.toolUse(id, "Read", `{"file_path":"/home/USER/projects/reports/src/report.go"}`)
		}
		s.toolResult(id, `"`+string(g.textOf(g.outputLen()))+`"`, false)
	}
	if n%2 == 1 {
		s.text("Working on it.")
	}
}

func (s *csession) post(group int, ok bool) {
	id := fmt.Sprintf("toolu_%s_post%d", s.id, s.n)
	s.toolUse(id, "mcp__slack__slack_post_message", fmt.Sprintf(`{"channel_id":"C%07d","text":"Report %d is ready: https://reports.example.com/r/%d"}`, group, group, group))
	if ok {
		s.toolResult(id, `[{"type":"text","text":"{\"ok\":true,\"channel\":\"C`+fmt.Sprintf("%07d", group)+`\",\"ts\":\"1764490203.000200\"}"}]`, false)
	} else {
		s.toolResult(id, `"MCP error -32001: Request timed out"`, true)
	}
}

func (g *gen) claude() {
	for i := 0; i < g.cfg.Tasks && g.err == nil; {
		k := g.pickClaude()
		if i+k.tasks > g.cfg.Tasks {
			k = claudeKinds[0]
		}
		group := g.stats.Keys
		g.stats.Keys++
		g.stats.Kinds[k.name]++
		for j := 0; j < k.tasks; j++ {
			start := g.taskStart(i + j)
			if j > 0 {
				start = start.Add(15 * time.Hour)
			}
			s := &csession{g: g, id: g.uuid(uint64(i + j)), at: start}
			g.inFile = g.cfg.TasksPerFile // one file per session
			g.openFor(start, "")
			if g.err != nil {
				return
			}
			g.renameTo(s.id + ".jsonl")
			s.prompt(fmt.Sprintf("Post report %d to #ch-%07d", group, group))
			b := g.budget(i + j)
			switch k.name {
			case "clean_post":
				s.work(b - 4)
				s.post(group, true)
				s.text("Posted.")
			case "gated_post":
				s.work(b - 6)
				id := fmt.Sprintf("toolu_%s_gate", s.id)
				s.toolUse(id, "Bash", fmt.Sprintf(`{"command":"effectlint check --task %s --checkpoint send --destination slack/C%07d histories/"}`, s.id, group))
				s.toolResult(id, `"ALLOW task may proceed"`, false)
				s.post(group, true)
				s.text("Posted.")
			case "interrupted_then_post":
				s.work((b - 5) / 2)
				s.rec(30*time.Second, "user", `"message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}`)
				s.work(b - 5 - (b-5)/2)
				s.post(group, true)
				s.text("Posted.")
			case "compacted_then_post":
				s.work((b - 5) / 2)
				s.rec(time.Minute, "system", `"subtype":"compact_boundary","content":"Conversation compacted","level":"info"`)
				s.work(b - 5 - (b-5)/2)
				s.post(group, true)
				s.text("Posted.")
			case "work_only":
				s.work(b - 2)
				s.text("Done; nothing to post.")
			case "timeout_then_duplicate":
				s.work(b - 4)
				s.post(group, j > 0)
				if j == 0 {
					s.text("The Slack request timed out; I cannot tell whether the message was posted.")
				} else {
					s.text("Posted.")
				}
			}
			g.stats.Tasks++
			g.stats.Events += s.lines
		}
		i += k.tasks
	}
}
