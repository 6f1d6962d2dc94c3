// Package largescenario writes a large, deterministic incident history:
// a nightly batch fans out 200 workers that were all told to post the same
// digest to the same channel. The gate stops most of them; a few cross.
// It exists to test that reports stay readable at scale; it is generated
// (not stored) to keep the repository small.
package largescenario

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Workers is the number of worker tasks in the fan-out.
const Workers = 200

var base = time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)

// digest is the content every worker was told to deliver.
var digest = func() string {
	s := sha256.Sum256([]byte("nightly digest 2026-11-30\n"))
	return hex.EncodeToString(s[:])
}()

type log struct {
	lines []string
}

func (l *log) add(ts time.Time, task, typ string, kv ...any) {
	m := map[string]any{"ts": ts.Format(time.RFC3339), "task": task, "type": typ}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	l.lines = append(l.lines, string(b))
}

func hot() []any {
	return []any{"intent", "digest",
		"destination", map[string]any{"provider": "slack", "id": "C0NIGHTLY", "title": "#nightly-digest"},
		"content", map[string]any{"sha256": digest, "name": "digest.md"}}
}

// Write writes the scenario's files into dir (created if needed): batch.jsonl
// and one workers/wNNN.jsonl per worker, plus a few side tasks with other keys.
func Write(dir string) error {
	files := map[string]*log{}
	get := func(name string) *log {
		if files[name] == nil {
			files[name] = &log{}
		}
		return files[name]
	}
	batch := get("batch.jsonl")
	batch.add(base, "batch", "task_started", "relation", "root")
	for i := 1; i <= Workers; i++ {
		id := fmt.Sprintf("w%03d", i)
		start := base.Add(time.Duration(i) * 7 * time.Second)
		batch.add(start.Add(-time.Second), "batch", "task_spawned", "child", id)
		l := get(filepath.Join("workers", id+".jsonl"))
		l.add(start, id, "task_started", "relation", "child", "parent", "batch")
		l.add(start.Add(time.Second), id, "intent", hot()...)
		at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
		switch id {
		case "w001": // the elected executor: checked, sent, confirmed
			l.add(at(2), id, "gate_check", "checkpoint", "picker", "decision", "allow")
			l.add(at(3), id, "picker_opened")
			l.add(at(4), id, "picker_accepted", "file", "digest.md")
			l.add(at(5), id, "gate_check", "checkpoint", "send", "decision", "allow")
			l.add(at(6), id, "send_fired")
			l.add(at(8), id, "response", "ok", true, "status", 200)
			l.add(at(9), id, "status", "label", "sent_verified")
			l.add(at(10), id, "task_ended", "status", "completed")
		case "w017": // opened the picker, thought better of it
			l.add(at(2), id, "gate_check", "checkpoint", "picker", "decision", "allow")
			l.add(at(3), id, "picker_opened")
			l.add(at(4), id, "picker_dismissed")
			l.add(at(5), id, "task_ended", "status", "cancelled")
		case "w042": // restarted, came back without a check and sent again
			l.add(at(2), id, "gate_check", "checkpoint", "picker", "decision", "stop")
			l.add(at(3), id, "interrupted", "reason", "restart")
			back := at(3).Add(2*time.Hour + 14*time.Minute)
			l.add(back, id, "status", "label", "not_sent", "detail", "fresh process, nothing sent")
			l.add(back.Add(2*time.Second), id, "picker_opened")
			l.add(back.Add(3*time.Second), id, "picker_accepted", "file", "digest.md")
			l.add(back.Add(4*time.Second), id, "send_fired")
			l.add(back.Add(9*time.Second), id, "response_lost", "detail", "socket closed <b>before</b> reply | retry?")
			l.add(back.Add(10*time.Second), id, "status", "label", "send_status_unknown")
			l.add(back.Add(11*time.Second), id, "task_ended", "status", "failed")
		case "w113": // told to stop at send, sent anyway (twice, same token)
			l.add(at(2), id, "gate_check", "checkpoint", "picker", "decision", "allow")
			l.add(at(3), id, "picker_opened")
			l.add(at(4), id, "picker_accepted", "file", "digest.md")
			l.add(at(5), id, "gate_check", "checkpoint", "send", "decision", "stop")
			l.add(at(6), id, "request_sent", "idempotency_token", "tok-113")
			l.add(at(7), id, "timeout", "detail", "no answer in 30s")
			l.add(at(40), id, "request_sent", "idempotency_token", "tok-113")
			l.add(at(41), id, "response", "ok", true, "status", 200)
			l.add(at(42), id, "task_ended", "status", "completed")
		case "w150": // claims success it never saw
			l.add(at(2), id, "gate_check", "checkpoint", "picker", "decision", "stop")
			l.add(at(3), id, "status", "label", "sent_verified")
			l.add(at(4), id, "task_ended", "status", "completed")
		case "w199", "w200": // still running: asked, were stopped, wait
			l.add(at(2), id, "gate_check", "checkpoint", "picker", "decision", "stop")
		default: // asked the gate, were told to stop, ended
			l.add(at(2), id, "gate_check", "checkpoint", "picker", "decision", "stop")
			l.add(at(3), id, "task_ended", "status", "cancelled")
		}
	}
	// Side tasks with keys of their own, so the summary has more states.
	side := get("side.jsonl")
	t0 := base.Add(30 * time.Minute)
	receipt := func(i int) []any {
		s := sha256.Sum256([]byte(fmt.Sprintf("receipt %d\n", i)))
		return []any{"destination", map[string]any{"provider": "mail", "id": "ops@example.com"},
			"content", map[string]any{"sha256": hex.EncodeToString(s[:])}}
	}
	side.add(t0, "r1", "task_started", "relation", "delegated", "parent", "batch")
	side.add(t0.Add(time.Second), "r1", "intent", receipt(1)...)
	side.add(t0.Add(2*time.Second), "r1", "gate_check", "checkpoint", "send", "decision", "allow")
	side.add(t0.Add(3*time.Second), "r1", "picker_opened")
	side.add(t0.Add(4*time.Second), "r1", "picker_dismissed")
	side.add(t0.Add(5*time.Second), "r1", "task_ended", "status", "completed")
	side.add(t0.Add(10*time.Second), "r2", "task_started", "relation", "delegated", "parent", "batch")
	side.add(t0.Add(11*time.Second), "r2", "intent", receipt(2)...)
	side.add(t0.Add(12*time.Second), "r2", "gate_check", "checkpoint", "send", "decision", "allow")
	side.add(t0.Add(13*time.Second), "r2", "send_fired")
	side.add(t0.Add(20*time.Second), "r3", "task_started", "relation", "delegated", "parent", "batch")
	side.add(t0.Add(21*time.Second), "r3", "intent", "destination", map[string]any{"title": "#General"},
		"content", map[string]any{"sha256": digest})
	files["side.jsonl"] = side

	for name, l := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(strings.Join(l.lines, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}
