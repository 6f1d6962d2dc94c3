package ledger

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"sort"
	"time"

	"github.com/effectlint/effectlint/effect"
)

// ExportTask is the task id the export gives the records that belong to no
// worker (authorizations).
const ExportTask = "effectlint-ledger"

// Export writes the journal as effectlint/v1 events (SPEC §3), one JSON
// object a line, so that analyze reads a ledger like any history and the
// rules decide over the ledger and transcripts together. now is the
// store's clock: leases that ran out by then end as they would have.
//
// How operations read as evidence (each scope's state in the ledger is
// what the rules of SPEC §4 derive from these events):
//
//   - a granted claim that starts a hold: the task starts (again, after it
//     ended), declares the intent {key, authorization} and approaches
//     (gate_check allow at picker), so other tasks see the scope held;
//   - cross: picker_accepted (at picker), or a gate_check allow at send
//     and send_fired (at send): a crossing;
//   - settle confirmed: a readback confirmed; settle unknown: the label
//     send_status_unknown; not_crossed, or a lease that ran out before any
//     crossing: picker_dismissed (the approach retreats);
//   - a lease that ran out on a crossing: an interrupted (reason
//     lease_expired), so the crossing sits in an ended segment;
//   - when a task holds no scope any more, it ends (task_ended), so it is
//     not an executor of anything; it starts again if it claims again;
//   - authorize: an authorization record;
//   - a pruned scope's tombstone: a history that gives its terminal state.
//
// Refused operations changed nothing and are not written. A task holding
// several scopes at once is one task with one segment: a lease running
// out on one of its crossings ends the segment of its other crossings too,
// which can only make the rules stop more, never less.
func Export(ctx context.Context, s Store, w io.Writer) error {
	now, err := s.Now(ctx)
	if err != nil {
		return err
	}
	x := newExporter(w)
	if err := s.Journal(ctx, "", func(e Entry) error { return x.entry(e) }); err != nil {
		return err
	}
	return x.finish(storeTime(now))
}

type hold struct {
	task     string
	key      string
	scope    string
	expires  time.Time
	crossing bool
	done     bool
}

type exporter struct {
	bw *bufio.Writer
	// holds by scope, and each task's count of live holds
	holds   map[[2]string]*hold
	held    map[string]int
	running map[string]bool
	last    map[string]time.Time
	// terminal is the state each settled scope was last given, so a
	// settle repeated (granted, changing nothing) is not written twice.
	terminal map[[2]string]State
	err      error
}

func newExporter(w io.Writer) *exporter {
	return &exporter{bw: bufio.NewWriter(w), holds: map[[2]string]*hold{}, held: map[string]int{},
		running: map[string]bool{}, last: map[string]time.Time{},
		terminal: map[[2]string]State{}}
}

// IntentID is the id the export gives the intent of a key scope.
func IntentID(key, scope string) string { return ProviderToken(key, scope) }

// emit writes one event. One task's events get strictly increasing times
// (a nanosecond apart when the journal gives two the same microsecond), so
// the order of its lifecycle never rests on tie-breaking.
func (x *exporter) emit(at time.Time, task, typ string, fields map[string]any) {
	if x.err != nil {
		return
	}
	if l, ok := x.last[task]; ok && !at.After(l) {
		at = l.Add(time.Nanosecond)
	}
	x.last[task] = at
	ev := map[string]any{"ts": at.UTC().Format(time.RFC3339Nano), "task": task, "type": typ}
	for k, v := range fields {
		ev[k] = v
	}
	b, err := json.Marshal(ev)
	if err != nil {
		x.err = err
		return
	}
	b = append(b, '\n')
	_, x.err = x.bw.Write(b)
}

func (x *exporter) intentFields(key, scope, title string) map[string]any {
	f := map[string]any{"intent": IntentID(key, scope), "key": key}
	// A title the key does not carry is part of the evidence: a crossing
	// known by that title alone may be this one (SPEC §2). The intent
	// then names destination and content, which give the same key.
	if k, err := effect.ParseKey(key); err == nil && title != "" && k.Destination.Title == "" {
		delete(f, "key")
		f["destination"] = map[string]any{"provider": k.Destination.Provider, "id": k.Destination.ID, "title": title}
		f["content"] = map[string]any{"sha256": k.SHA256}
	}
	if scope != OriginalScope {
		f["authorization"] = scope
	}
	return f
}

func (x *exporter) ref(key, scope string) map[string]any {
	return map[string]any{"intent": IntentID(key, scope)}
}

// expireUntil ends, in time order, the holds whose lease ran out by t.
func (x *exporter) expireUntil(t time.Time) {
	var due []*hold
	for _, h := range x.holds {
		if !h.done && !h.expires.After(t) {
			due = append(due, h)
		}
	}
	sort.Slice(due, func(i, j int) bool {
		if !due[i].expires.Equal(due[j].expires) {
			return due[i].expires.Before(due[j].expires)
		}
		return due[i].key+due[i].scope < due[j].key+due[j].scope
	})
	for _, h := range due {
		if h.crossing {
			x.emit(h.expires, h.task, "interrupted", map[string]any{"reason": "lease_expired"})
		}
		x.release(h, h.expires, "cancelled")
	}
}

// release ends a hold; a task that holds nothing more ends.
func (x *exporter) release(h *hold, at time.Time, status string) {
	if h.done {
		return
	}
	h.done = true
	if !h.crossing {
		// Released or run out before any crossing: the approach retreats.
		x.emit(at, h.task, "picker_dismissed", x.ref(h.key, h.scope))
	}
	x.held[h.task]--
	if x.held[h.task] == 0 && x.running[h.task] {
		x.running[h.task] = false
		x.emit(at, h.task, "task_ended", map[string]any{"status": status})
	}
}

func (x *exporter) start(task string, at time.Time) {
	if x.running[task] {
		return
	}
	x.running[task] = true
	x.emit(at, task, "task_started", map[string]any{"relation": "root"})
}

func (x *exporter) entry(e Entry) error {
	x.expireUntil(e.Time)
	k := [2]string{e.Key, e.Scope}
	h := x.holds[k]
	switch {
	case e.Op == OpAuthorize && e.Granted:
		x.emit(e.Time, ExportTask, "authorization", map[string]any{
			"authorization": e.Scope, "by": e.By, "reason": e.Reason, "key": e.Key})
	case e.Op == OpTombstone:
		x.tombstone(e)
	case !e.Granted:
	case e.Op == OpClaim:
		if h != nil && !h.done && h.task == e.Task {
			h.expires = e.LeaseExpires // a renewal
			break
		}
		x.start(e.Task, e.Time)
		x.emit(e.Time, e.Task, "intent", x.intentFields(e.Key, e.Scope, e.Title))
		// A live claim is an approach: other tasks see a scope held.
		x.emit(e.Time, e.Task, "gate_check", map[string]any{"intent": IntentID(e.Key, e.Scope), "checkpoint": "picker", "decision": "allow"})
		x.holds[k] = &hold{task: e.Task, key: e.Key, scope: e.Scope, expires: e.LeaseExpires}
		x.held[e.Task]++
	case h == nil || h.done:
		// A settle or cross whose hold the export already ended: a late
		// confirmation of a crossing whose lease ran out. Its task starts
		// again to give the evidence.
		if e.Op == OpSettle && (e.State == SentVerified || e.State == SendStatusUnknown) && e.Task != "" &&
			x.terminal[k] != e.State {
			x.start(e.Task, e.Time)
			x.emit(e.Time, e.Task, "intent", x.intentFields(e.Key, e.Scope, e.Title))
			x.settled(e, e.Task)
			if x.held[e.Task] == 0 { // it may hold other scopes meanwhile
				x.emit(e.Time, e.Task, "task_ended", map[string]any{"status": "completed"})
				x.running[e.Task] = false
			}
		}
	case e.Op == OpCross:
		if !h.crossing {
			if e.Checkpoint == "picker" {
				x.emit(e.Time, h.task, "picker_accepted", x.ref(e.Key, e.Scope))
			} else {
				// cross at send is the ledger's gate at send, then the press.
				x.emit(e.Time, h.task, "gate_check", map[string]any{"intent": IntentID(e.Key, e.Scope), "checkpoint": "send", "decision": "allow"})
				x.emit(e.Time, h.task, "send_fired", x.ref(e.Key, e.Scope))
			}
			h.crossing = true
		}
	case e.Op == OpSettle:
		switch e.State {
		case SentVerified, SendStatusUnknown:
			x.settled(e, h.task)
			x.release(h, e.Time, "completed")
		case Free:
			x.release(h, e.Time, "cancelled")
		}
	}
	return x.err
}

func (x *exporter) settled(e Entry, task string) {
	k := [2]string{e.Key, e.Scope}
	if x.terminal[k] == e.State {
		return
	}
	x.terminal[k] = e.State
	if e.State == SentVerified {
		x.emit(e.Time, task, "readback", map[string]any{"intent": IntentID(e.Key, e.Scope), "result": "confirmed"})
		return
	}
	x.emit(e.Time, task, "status", map[string]any{"intent": IntentID(e.Key, e.Scope), "label": "send_status_unknown"})
}

// tombstone gives a pruned terminal scope a history of its state.
func (x *exporter) tombstone(e Entry) {
	task := e.Task
	if task == "" {
		task = ExportTask
	}
	if e.Scope != OriginalScope && e.By != "" {
		x.emit(e.Time, ExportTask, "authorization", map[string]any{
			"authorization": e.Scope, "by": e.By, "reason": e.Reason, "key": e.Key})
	}
	x.start(task, e.Time)
	x.emit(e.Time, task, "intent", x.intentFields(e.Key, e.Scope, e.Title))
	x.settled(e, task)
	if x.held[task] == 0 {
		x.running[task] = false
		x.emit(e.Time, task, "task_ended", map[string]any{"status": "completed"})
	}
}

func (x *exporter) finish(now time.Time) error {
	x.expireUntil(now)
	if x.err != nil {
		return x.err
	}
	return x.bw.Flush()
}
