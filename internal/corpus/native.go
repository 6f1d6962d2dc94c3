package corpus

import (
	"fmt"
	"time"
)

// ntask is one native task being written.
type ntask struct {
	id    string
	start time.Time
	lines [][]byte
	g     *gen
}

func (t *ntask) ev(at time.Duration, typ string, extra ...string) {
	g := t.g
	b := g.buf[:0]
	b = append(b, `{"ts":"`...)
	b = t.start.Add(at).AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	b = append(b, `","task":`...)
	b = appendString(b, t.id)
	b = append(b, `,"type":`...)
	b = appendString(b, typ)
	for _, e := range extra {
		b = append(b, ',')
		b = append(b, e...)
	}
	b = append(b, '}')
	g.buf = b
	t.lines = append(t.lines, append([]byte(nil), b...))
}

// filler adds n lines of work before the delivery: tool outputs (an event
// type effectlint does not know, kept as a fact) and screen changes, each
// carrying a long text. They start at 10 s and take 5 s each.
func (t *ntask) filler(n int) time.Duration {
	g := t.g
	at := 10 * time.Second
	for i := 0; i < n; i++ {
		at += time.Duration(1+g.rng.IntN(9)) * time.Second
		text := g.textOf(g.outputLen())
		if g.rng.IntN(10) < 7 {
			t.ev(at, "tool_output", `"tool":"bash"`, fmt.Sprintf(`"exit_code":%d`, g.rng.IntN(2)),
				`"output":"`+string(text)+`"`)
		} else {
			t.ev(at, "ui_changed", `"detail":"`+string(text)+`"`)
		}
	}
	return at + 10*time.Second
}

// chance is true with probability perMille/1000; it draws nothing when
// perMille is 0, so the friendly shape writes the bytes it always wrote.
func (g *gen) chance(perMille int) bool {
	return perMille > 0 && g.rng.IntN(1000) < perMille
}

func (g *gen) native() {
	sh := g.cfg.Shape
	for i := 0; i < g.cfg.Tasks && g.err == nil; {
		k := g.pick()
		parent, extra, resume := 0, 0, 0
		if sh.Family > 1 {
			parent = 1
			if k.name == "clean_send" {
				extra = g.rng.IntN(sh.Family)
			}
		}
		if g.chance(sh.Resumes) {
			resume = 1
		}
		redeliver := 0
		if g.chance(sh.Redeliveries) {
			redeliver = 1
		}
		if i+parent+k.tasks+extra+resume+redeliver > g.cfg.Tasks {
			k, parent, extra, resume, redeliver = kinds[0], 0, 0, 0, 0
		}
		n := parent + k.tasks + extra + resume + redeliver
		last := n - redeliver // tasks[last:]: the authorized redelivery
		group := g.stats.Keys
		g.stats.Keys++
		g.stats.Kinds[k.name]++
		tasks := make([]*ntask, n)
		for j := range tasks {
			tasks[j] = &ntask{id: fmt.Sprintf("w%07d", i+j), start: g.taskStart(i + j), g: g}
			if k.name == "unknown_then_gate_stops" && j == parent+1 {
				// The next morning a second task asks the gate.
				tasks[j].start = tasks[parent].start.Add(14 * time.Hour)
			}
		}
		if resume > 0 {
			tasks[last-1].start = tasks[last-2].start.Add(14 * time.Hour)
		}
		if redeliver > 0 {
			tasks[last].start = tasks[last-1].start.Add(48 * time.Hour)
		}
		d := group
		if sh.Destinations > 0 {
			d = group % sh.Destinations
		}
		title := d
		if sh.Titles > 0 {
			title = d % sh.Titles
		}
		dest := fmt.Sprintf(`"destination":{"provider":"slack","id":"C%07d","title":"#ch-%07d"}`, d, title)
		content := fmt.Sprintf(`"content":{"sha256":"%s","name":"report-%d.pdf"}`, g.sha("report", group), group)
		intent := []string{`"intent":"deliver"`, dest, content}
		for j, t := range tasks {
			budget := g.budget(i + j)
			switch {
			case j < parent: // the parent: declares, spawns, waits, ends
				t.ev(0, "task_started", `"relation":"root"`)
				t.ev(time.Second, "intent", intent...)
				for _, c := range tasks[parent : last-resume] {
					t.ev(2*time.Second, "task_spawned", `"child":"`+c.id+`"`)
				}
				at := t.filler(max(budget-3-(last-resume-parent), 0))
				t.ev(at+time.Hour, "task_ended", `"status":"completed"`)
				continue
			case j == last: // two days later, a person authorizes one more delivery
				auth := fmt.Sprintf(`"authorization":"auth-%d"`, group)
				t.ev(0, "task_started", `"relation":"root"`)
				t.ev(time.Second, "authorization", auth, `"by":"ops@example.com"`, `"reason":"the channel was purged"`, dest, content)
				t.ev(2*time.Second, "intent", append(intent[:len(intent):len(intent)], auth)...)
				g.script("clean_send", 0, t, t.filler(max(budget-3-coreEvents["clean_send"][0], 0)))
				continue
			case j == last-1 && resume > 0: // the next day's resume
				t.ev(0, "task_started", `"relation":"resumed"`, `"resumes":"`+tasks[j-1].id+`"`)
				at := t.filler(max(budget-3, 0))
				t.ev(at, "gate_check", `"checkpoint":"resume"`, `"decision":"stop"`)
				t.ev(at+time.Second, "task_ended", `"status":"cancelled"`)
				continue
			}
			kj := j - parent
			rel, declares := `"relation":"root"`, true
			switch {
			case parent > 0 && g.chance(sh.Delegated):
				// a delegated worker declares no intent of its own: its
				// crossings are unkeyed (SPEC §4)
				rel, declares = `"relation":"delegated","parent":"`+tasks[0].id+`"`, false
			case parent > 0:
				rel = `"relation":"child","parent":"` + tasks[0].id + `"`
			case kj > 0:
				rel = `"relation":"sibling"`
			}
			t.ev(0, "task_started", rel)
			if declares {
				t.ev(time.Second, "intent", intent...)
			} else {
				t.ev(time.Second, "tool_output", `"tool":"brief"`, `"output":"deliver report-`+fmt.Sprint(group)+`.pdf"`)
			}
			name, sj := k.name, kj
			if kj >= k.tasks { // one more sibling, stopped by the gate
				name, sj = "siblings_stopped_by_gate", 1
			}
			core := coreEvents[name][min(sj, len(coreEvents[name])-1)]
			interrupted := g.chance(sh.Interruptions)
			bad := g.chance(sh.Problems)
			if interrupted {
				core += 2
			}
			if bad {
				core++
			}
			at := t.filler(max(budget-2-core, 0))
			if interrupted {
				t.ev(at, "interrupted", `"reason":"crash"`)
				at += 10 * time.Minute
				t.ev(at, "gate_check", `"checkpoint":"resume"`, `"decision":"allow"`)
			}
			if bad { // a line cut short: the task's history is incomplete
				l := fmt.Sprintf(`{"ts":"%s","task":"%s","type":"tool_out`, t.start.Add(at).Format("2006-01-02T15:04:05.000Z07:00"), t.id)
				t.lines = append(t.lines, []byte(l))
			}
			g.script(name, sj, t, at)
		}
		for _, t := range tasks {
			g.openFor(t.start, ".jsonl")
			for _, l := range t.lines {
				g.line(l)
			}
			g.stats.Tasks++
			g.stats.Events += len(t.lines)
		}
		i += n
	}
}

// coreEvents counts the events each kind's script writes per task (after
// task_started and intent), so the filler keeps the total on budget.
var coreEvents = map[string][]int{
	"clean_send":                 {9},
	"decided_not_to_send":        {5},
	"siblings_stopped_by_gate":   {9, 2},
	"interrupted_rechecked":      {12},
	"unknown_then_gate_stops":    {6, 2},
	"overnight_resume_duplicate": {6, 7},
	"provider_deduplicated":      {7},
	"ignored_gate_stop":          {5},
	"in_flight":                  {4},
	"label_contradicts":          {5},
}

const sec = time.Second

// script writes task j's delivery events, from at on.
func (g *gen) script(kind string, j int, t *ntask, at time.Duration) {
	ev := func(d time.Duration, typ string, extra ...string) {
		at += d
		t.ev(at, typ, extra...)
	}
	send := func() {
		ev(sec, "gate_check", `"checkpoint":"picker"`, `"decision":"allow"`)
		ev(sec, "picker_opened")
		ev(2*sec, "picker_accepted", `"file":"report.pdf"`)
		ev(sec, "gate_check", `"checkpoint":"send"`, `"decision":"allow"`)
		ev(sec, "send_fired")
		ev(2*sec, "response", `"ok":true`, `"status":200`)
		ev(3*sec, "readback", `"result":"confirmed"`)
	}
	switch kind {
	case "clean_send": // 9
		send()
		ev(sec, "status", `"label":"sent_verified"`)
		ev(sec, "task_ended", `"status":"completed"`)
	case "decided_not_to_send": // 5
		ev(sec, "gate_check", `"checkpoint":"picker"`, `"decision":"allow"`)
		ev(sec, "picker_opened")
		ev(4*sec, "picker_dismissed")
		ev(sec, "status", `"label":"not_sent"`)
		ev(sec, "task_ended", `"status":"cancelled"`)
	case "siblings_stopped_by_gate": // 9, 2, 2
		if j == 0 {
			send()
			ev(sec, "status", `"label":"sent_verified"`)
			ev(sec, "task_ended", `"status":"completed"`)
			return
		}
		ev(sec, "gate_check", `"checkpoint":"picker"`, `"decision":"stop"`)
		ev(sec, "task_ended", `"status":"cancelled"`)
	case "interrupted_rechecked": // 12
		ev(sec, "gate_check", `"checkpoint":"picker"`, `"decision":"allow"`)
		ev(sec, "interrupted", `"reason":"restart"`)
		at += 20 * time.Minute
		ev(sec, "gate_check", `"checkpoint":"resume"`, `"decision":"allow"`)
		send()
		ev(sec, "status", `"label":"sent_verified"`)
		ev(sec, "task_ended", `"status":"completed"`)
	case "unknown_then_gate_stops": // 6, 2
		if j == 0 {
			ev(sec, "gate_check", `"checkpoint":"send"`, `"decision":"allow"`)
			ev(sec, "send_fired")
			ev(sec, "ui_changed", `"detail":"composer cleared"`)
			ev(30*sec, "response_lost", `"detail":"socket closed before reply"`)
			ev(sec, "status", `"label":"send_status_unknown"`)
			ev(sec, "task_ended", `"status":"failed"`)
			return
		}
		ev(sec, "gate_check", `"checkpoint":"resume"`, `"decision":"stop"`)
		ev(sec, "task_ended", `"status":"cancelled"`)
	case "overnight_resume_duplicate": // 7, 7
		if j == 0 {
			ev(sec, "gate_check", `"checkpoint":"send"`, `"decision":"allow"`)
			ev(sec, "send_fired")
			ev(sec, "ui_changed", `"detail":"composer cleared, message list re-rendered"`)
			ev(12*sec, "readback", `"result":"unavailable"`)
			ev(sec, "status", `"label":"send_status_unknown"`)
			ev(sec, "task_ended", `"status":"completed"`)
			return
		}
		ev(sec, "interrupted", `"reason":"overnight"`)
		at += 15 * time.Hour
		ev(sec, "status", `"label":"not_sent"`, `"detail":"I have not sent anything"`)
		ev(5*sec, "picker_opened")
		ev(2*sec, "picker_accepted", `"file":"report.pdf"`)
		ev(sec, "send_fired")
		ev(4*sec, "readback", `"result":"confirmed"`)
		ev(sec, "task_ended", `"status":"completed"`)
	case "provider_deduplicated": // 7
		ev(sec, "gate_check", `"checkpoint":"send"`, `"decision":"allow"`)
		ev(sec, "request_sent", `"idempotency_token":"tok-`+t.id+`"`)
		ev(30*sec, "timeout", `"detail":"no answer in 30s"`)
		ev(sec, "request_sent", `"idempotency_token":"tok-`+t.id+`"`)
		ev(sec, "response", `"ok":true`, `"status":200`)
		ev(sec, "status", `"label":"sent_verified"`)
		ev(sec, "task_ended", `"status":"completed"`)
	case "ignored_gate_stop": // 5
		ev(sec, "gate_check", `"checkpoint":"send"`, `"decision":"stop"`)
		ev(sec, "send_fired")
		ev(sec, "response", `"ok":true`)
		ev(sec, "status", `"label":"sent_verified"`)
		ev(sec, "task_ended", `"status":"completed"`)
	case "in_flight": // 4: still running
		ev(sec, "gate_check", `"checkpoint":"send"`, `"decision":"allow"`)
		ev(sec, "send_fired")
		ev(sec, "ui_changed", `"detail":"spinner"`)
		ev(sec, "status", `"label":"send_status_unknown"`)
	case "label_contradicts": // 5
		ev(sec, "gate_check", `"checkpoint":"send"`, `"decision":"allow"`)
		ev(sec, "send_fired")
		ev(sec, "timeout")
		ev(sec, "status", `"label":"sent_verified"`)
		ev(sec, "task_ended", `"status":"completed"`)
	}
}
