# The same as keystates.rego, written more naively: a key's events are found
# by scanning every event (no grouping by task first). What a user would
# write instead of effectlint: `opa eval` over the raw
# native events (one JSON array, input) computing every delivery key's
# state (SPEC §4), in straightforward Rego. scripts/bench.sh runs it on the
# benchmark corpus and checks that it agrees with effectlint's states.
#
# It reads what the benchmark corpus holds: one intent per task (a
# destination with provider and id, a content digest), interruptions, task
# ends, evidence. No resumed tasks, authorizations, unreadable lines or
# titles-only destinations: the corpus has none.
package keystates_naive

key_of(e) := sprintf("v1|dest=%s/%s|sha256=%s", [lower(e.destination.provider), e.destination.id, lower(e.content.sha256)])

# task -> key
task_keys := {e.task: key_of(e) | some e in input; e.type == "intent"}

# key -> tasks
key_tasks := {k: tasks |
	some k in {k | some _, k in task_keys}
	tasks := [t | some t, k2 in task_keys; k2 == k]
}

# task -> its events
task_events := {t: events |
	some t, _ in task_keys
	events := [e | some e in input; e.task == t]
}

ended := {e.task | some e in input; e.type == "task_ended"}

interruptions(t) := [e.ts | some e in task_events[t]; e.type == "interrupted"]

# The segment of an event: how many interruptions of its task came before.
segment(e) := count([ts | some ts in interruptions(e.task); ts < e.ts])

segment_ended(e) if segment(e) < count(interruptions(e.task))

segment_ended(e) if e.task in ended

crossing(e) if e.type in {"picker_accepted", "send_fired", "request_sent", "outgoing_item_seen", "readback", "response"}

confirmation(e) if {
	e.type == "readback"
	e.result == "confirmed"
}

confirmation(e) if {
	e.type == "response"
	e.ok == true
}

approach(e) if e.type == "picker_opened"

approach(e) if {
	e.type == "gate_check"
	e.decision == "allow"
	e.checkpoint in {"picker", "send"}
}

crossing_or_retreat(e) if crossing(e)

crossing_or_retreat(e) if e.type == "picker_dismissed"

unresolved(a) if {
	approach(a)
	not resolved(a)
}

resolved(a) if {
	some e in task_events[a.task]
	e.ts > a.ts
	segment(e) == segment(a)
	crossing_or_retreat(e)
}

key_events(k) := [e | some e in input; task_keys[e.task] == k]

state(k) := "sent_verified" if {
	some e in key_events(k)
	confirmation(e)
} else := "send_status_unknown" if {
	some e in key_events(k)
	crossing(e)
	segment_ended(e)
} else := "send_status_unknown" if {
	some e in key_events(k)
	e.type == "status"
	e.label in {"sent_verified", "send_status_unknown"}
} else := "send_status_unknown" if {
	some e in key_events(k)
	segment_ended(e)
	unresolved(e)
} else := "in_flight" if {
	some e in key_events(k)
	crossing(e)
	not segment_ended(e)
} else := "not_sent" if {
	every t in key_tasks[k] {
		t in ended
	}
} else := "open"

states := {k: state(k) | some k, _ in key_tasks}
