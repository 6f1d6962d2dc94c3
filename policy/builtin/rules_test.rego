# Unit tests of the built-in rules, derived from SPEC §4 (states of a key
# scope), §5 (the gate) and §6 (findings), not from what rules.rego prints.
#
# Every test builds a small facts document in the shape of analyzer/facts.go
# (what `effectlint facts` prints) and evaluates one of the three documents
# the engine queries: data.effectlint.scopes, .findings and .gate.
#
# Helpers are prefixed or named so they cannot clash with rules.rego.
package effectlint

# ---------------------------------------------------------------------------
# Helpers: building facts documents

sha_a := "1111111111111111111111111111111111111111111111111111111111111111"

key_a := concat("", ["v1|dest=slack/C024BE91L|sha256=", sha_a])

# key_b: another key nobody in the default world uses.
key_b := concat("", ["v1|dest=slack/C0OTHER99|sha256=", sha_a])

dest_a := {"provider": "slack", "id": "C024BE91L", "title": "#reports"}

scope_id(key, scope) := concat("#", [key, scope])

sid_a := scope_id(key_a, "original")

ts(seq) := sprintf("2026-11-29T17:%02d:00Z", [seq])

at(task_id, line) := {"file": concat("", [task_id, ".jsonl"]), "line": line}

auth_of("original") := ""

auth_of(scope) := scope if scope != "original"

# intent_of: task_id's intent "i1" for key in scope ("original" or the id
# of the authorization it names).
intent_of(task_id, key, scope) := {
	"id": "i1",
	"task": task_id,
	"key": key,
	"scope": scope,
	"scope_id": scope_id(key, scope),
	"authorization": auth_of(scope),
	"destination": dest_a,
	"weak_destination": false,
	"content_sha256": sha_a,
	"seq": 0,
	"at": at(task_id, 2),
}

# live: a running task with an original-scope intent for key_a; rank is its
# start_rank (0 = earliest).
live(task_id, rank) := {
	"id": task_id,
	"relation": "root",
	"parent": "",
	"resumes": "",
	"history": true,
	"source": "effectlint/v1",
	"gated": false,
	"start_rank": rank,
	"start_ts": ts(rank),
	"ended": false,
	"status": "",
	"superseded_by": "",
	"complete": true,
	"incomplete_because": [],
	"problems": [],
	"segment": 0,
	"interruptions": [],
	"intents": [intent_of(task_id, key_a, "original")],
	"inherited_intent": null,
	"keys": [key_a],
	"lineage": [],
	"key_unknown": false,
	"start": at(task_id, 1),
	"referenced_at": [],
}

# done: like live, but the task has ended (task_ended, status completed).
done(task_id, rank) := object.union(live(task_id, rank), {"ended": true, "status": "completed"})

# live_auth: a running task whose intent names authorization auth for key_a.
live_auth(task_id, rank, auth) := object.union(live(task_id, rank), {"intents": [intent_of(task_id, key_a, auth)]})

done_auth(task_id, rank, auth) := object.union(live_auth(task_id, rank, auth), {"ended": true, "status": "completed"})

# resumed: a running task with relation resumed that continues `of` and
# inherits its intent.
resumed(task_id, rank, of) := object.union(live(task_id, rank), {
	"relation": "resumed",
	"resumes": of,
	"lineage": [of],
	"intents": [],
	"inherited_intent": intent_of(of, key_a, "original"),
})

# ghost: a task that is referenced but has no history in the inputs.
ghost(task_id, rank) := ghost_named_at(task_id, rank, [])

# ghost_named_at: a ghost with the events that reference it (a spawn, or
# another task's parent/resumes).
ghost_named_at(task_id, rank, refs) := object.union(live(task_id, rank), {
	"referenced_at": refs,
	"relation": "unknown",
	"history": false,
	"complete": false,
	"incomplete_because": ["referenced but no history in the inputs"],
	"intents": [],
	"keys": [],
	"start": {"file": "", "line": 0},
})

# incomplete: t with unreadable lines.
incomplete(t) := object.union(t, {
	"complete": false,
	"incomplete_because": ["unreadable lines"],
	"problems": [at(t.id, 99)],
})

# interrupt: t had an `interrupted` event at seq; its later events are in
# the next segment.
interrupt(t, seq) := object.union(t, {
	"segment": t.segment + 1,
	"interruptions": array.concat(t.interruptions, [{
		"seq": seq,
		"ts": ts(seq),
		"reason": "overnight",
		"segment": t.segment + 1,
		"at": at(t.id, seq),
	}]),
})

# Events. ev is an evidence event of segment 0; in_seg moves it to another
# segment. segment_ended is derived from the tasks by `world`, as Go does.
ev(seq, task_id, type) := evx(seq, task_id, type, {})

evx(seq, task_id, type, extra) := object.union(
	{
		"seq": seq,
		"ts": ts(seq),
		"task": task_id,
		"type": type,
		"segment": 0,
		"at": at(task_id, seq),
		"intent": "i1",
	},
	extra,
)

in_seg(f, segment) := object.union(f, {"segment": segment})

check_allow(seq, task_id, checkpoint) := evx(seq, task_id, "gate_check", {"checkpoint": checkpoint, "decision": "allow"})

check_stop(seq, task_id, checkpoint) := evx(seq, task_id, "gate_check", {"checkpoint": checkpoint, "decision": "stop"})

readback(seq, task_id, result) := evx(seq, task_id, "readback", {"result": result})

response(seq, task_id, ok) := evx(seq, task_id, "response", {"ok": ok})

label(seq, task_id, value) := evx(seq, task_id, "status", {"label": value})

request(seq, task_id, token) := evx(seq, task_id, "request_sent", {"idempotency_token": token})

# A checked picker-and-send crossing by task_id at seq..seq+4.
checked_send(seq, task_id) := [
	check_allow(seq, task_id, "picker"),
	ev(seq + 1, task_id, "picker_opened"),
	ev(seq + 2, task_id, "picker_accepted"),
	check_allow(seq + 3, task_id, "send"),
	ev(seq + 4, task_id, "send_fired"),
]

auth_record(auth) := {
	"id": auth,
	"by": "alice",
	"reason": "the recipient lost the file",
	"key": key_a,
	"seq": 0,
	"at": {"file": "auth.jsonl", "line": 1},
}

# unkeyed_task: t5 has evidence but declares no intent; unkeyed(f) is one of
# its facts as Go lists it in input.unkeyed.
unkeyed_task := object.union(done("t5", 0), {"intents": [], "keys": [], "key_unknown": true})

unkeyed(f) := object.union(f, {"segment_ended": true, "unkeyed_because": "task t5 declares no intent"})

# world: a facts document whose only scope is key_a's original scope.
world(tasks, facts) := world_scopes(tasks, [{"key": key_a, "scope": "original", "facts": facts}])

# world_scopes: a facts document with the given tasks and one key scope per
# spec ({key, scope, facts}); each scope's tasks are those whose own or
# inherited intent is in it, by start.
world_scopes(tasks, specs) := {
	"version": "effectlint.facts/v1",
	"inputs": [{"path": "t1.jsonl", "format": "effectlint/v1", "events": 10, "problems": []}],
	"skipped": [],
	"tasks": {t.id: t | some t in tasks},
	"scopes": [mk_scope(tasks, s) | some s in specs],
	"unkeyed": [],
	"authorizations": [],
	"titles": {"#reports": [{"identity": "dest=slack/C024BE91L", "at": at("t1", 2)}]},
	"unattributed_problems": [],
	"options": {"require_checks": false},
}

mk_scope(tasks, spec) := s if {
	sid := scope_id(spec.key, spec.scope)
	s := {
		"id": sid,
		"key": spec.key,
		"scope": spec.scope,
		"destination": dest_a,
		"content_sha256": sha_a,
		"tasks": [t.id | some t in by_rank(tasks); in_scope(t, sid)],
		"facts": [mark_ended(f, tasks) | some f in by_seq(spec.facts)],
	}
}

by_rank(tasks) := [t | some r in sort({x.start_rank | some x in tasks}); some t in tasks; t.start_rank == r]

by_seq(facts) := [f | some n in sort({x.seq | some x in facts}); some f in facts; f.seq == n]

in_scope(t, sid) if {
	some i in t.intents
	i.scope_id == sid
}

in_scope(t, sid) if t.inherited_intent.scope_id == sid

mark_ended(f, tasks) := object.union(f, {"segment_ended": ended_flag(t, f.segment)}) if {
	some t in tasks
	t.id == f.task
}

# A fact's segment has ended when the task went on to a later segment,
# ended, or was superseded by a task that resumes it (analyzer.attribute).
segment_done(t, segment) if segment < t.segment

segment_done(t, _) if t.ended

segment_done(t, _) if t.superseded_by != ""

ended_flag(t, segment) if segment_done(t, segment)

else := false

# ---------------------------------------------------------------------------
# Helpers: reading verdicts

state_in(d, sid) := st if {
	vs := data.effectlint.scopes with input as d
	some v in vs
	v.id == sid
	st := v.state
}

state_a(d) := state_in(d, sid_a)

findings_of(d) := fs if {
	fs := data.effectlint.findings with input as d
}

# The severity of each finding id (SPEC §6).
spec_severity := {
	"DUPLICATE_DELIVERY": "critical",
	"DUPLICATE_RISK_RESUME": "critical",
	"IGNORED_GATE_STOP": "critical",
	"STALE_GATE_DECISION": "high",
	"UNCHECKED_CROSSING": "high",
	"NO_RECHECK_AFTER_INTERRUPTION": "high",
	"LABEL_CONTRADICTS_EVIDENCE": "high",
	"UNREADABLE_HISTORY": "high",
	"UNKEYED_CROSSING": "high",
	"UNKNOWN_AUTHORIZATION": "high",
	"AMBIGUOUS_DESTINATION": "medium",
	"WEAK_DESTINATION_IDENTITY": "low",
	"AUTHORIZED_REDELIVERY": "info",
	"PROVIDER_DEDUPLICATED": "info",
}

# found: the findings of d with that rule id that have the spec's severity
# and rest on at least one evidence pointer.
found(d, rule) := [f |
	some f in findings_of(d)
	f.rule == rule
	f.severity == spec_severity[rule]
	count(f.evidence) > 0
]

has_finding(d, rule) if count(found(d, rule)) > 0

has_finding_for(d, rule, task_id) if {
	some f in found(d, rule)
	f.task == task_id
}

# no_finding: d evaluates, and none of its findings has that rule id.
no_finding(d, rule) if {
	fs := findings_of(d)
	count([f | some f in fs; f.rule == rule]) == 0
}

no_finding_for(d, rule, task_id) if {
	fs := findings_of(d)
	count([f | some f in fs; f.rule == rule; f.task == task_id]) == 0
}

# ask: task_id, which has a history, asks at checkpoint about its key_a
# original intent (the fields of analyzer.Query).
ask(task_id, checkpoint) := {
	"task": task_id,
	"checkpoint": checkpoint,
	"task_known": true,
	"intent_given": false,
	"key": key_a,
	"key_error": "",
	"scope": "original",
	"scope_id": sid_a,
	"authorization": "",
	"destination": dest_a,
	"content_sha256": sha_a,
}

# ask_new: a task with no history names its key_a intent on the command line.
ask_new(task_id, checkpoint) := object.union(ask(task_id, checkpoint), {"task_known": false, "intent_given": true})

# ask_auth: task_id asks about its intent that names authorization auth.
ask_auth(task_id, checkpoint, auth) := object.union(ask(task_id, checkpoint), {
	"scope": auth,
	"scope_id": scope_id(key_a, auth),
	"authorization": auth,
})

gate_for(d, query) := g if {
	g := data.effectlint.gate with input as object.union(d, {"query": query})
}

reason_rules(g) := {r.rule | some r in g.reasons}

stopped_by(d, query, rule) if {
	g := gate_for(d, query)
	g.decision == "stop"
	rule in reason_rules(g)
}

# stop_evidence: the evidence pointers of the gate's reasons with that rule.
stop_evidence(d, query, rule) := {p |
	g := gate_for(d, query)
	some r in g.reasons
	r.rule == rule
	some p in r.evidence
}

# not_stopped_by: the gate decides, and rule is not among its reasons.
not_stopped_by(d, query, rule) if {
	g := gate_for(d, query)
	g.decision in {"allow", "stop"}
	not rule in reason_rules(g)
}

# allowed_as: allow, with exactly one reason (SPEC §5).
allowed_as(d, query, rule) if {
	g := gate_for(d, query)
	g.decision == "allow"
	count(g.reasons) == 1
	g.reasons[0].rule == rule
}

# ---------------------------------------------------------------------------
# SPEC §4: interpretation of a key scope (the first rule that holds wins)

# Rule 1: sent_verified.

test_state_sent_verified_when_readback_confirmed if {
	d := world([done("t1", 0)], array.concat(checked_send(1, "t1"), [readback(6, "t1", "confirmed")]))
	state_a(d) == "sent_verified"
}

test_state_sent_verified_when_response_ok_even_in_open_segment if {
	d := world([live("t1", 0)], [
		check_allow(1, "t1", "send"),
		request(2, "t1", ""),
		response(3, "t1", true),
	])
	state_a(d) == "sent_verified"
}

test_state_sent_verified_wins_over_unknown_causes if {
	# t1 crossed before an interruption and its history is incomplete, but
	# t2 has confirmation evidence.
	t1 := incomplete(interrupt(live("t1", 0), 7))
	d := world([t1, done("t2", 1)], array.concat(
		checked_send(1, "t1"),
		array.concat(checked_send(10, "t2"), [readback(15, "t2", "confirmed")]),
	))
	state_a(d) == "sent_verified"
}

test_state_not_verified_by_failed_response_or_readback_mismatch if {
	d := world([done("t1", 0)], [
		check_allow(1, "t1", "send"),
		request(2, "t1", ""),
		response(3, "t1", false),
		readback(4, "t1", "mismatch"),
	])
	state_a(d) == "send_status_unknown"
}

# Rule 2: send_status_unknown, by each of its four causes.

test_state_unknown_when_crossing_in_ended_segment if {
	d := world([done("t1", 0)], array.concat(checked_send(1, "t1"), [
		ev(6, "t1", "ui_changed"),
		readback(7, "t1", "unavailable"),
	]))
	state_a(d) == "send_status_unknown"
}

test_state_unknown_when_crossing_before_interruption if {
	# The task still runs (segment 1 is open), but its crossing is in the
	# segment the interruption ended.
	t1 := interrupt(live("t1", 0), 7)
	d := world([t1], checked_send(1, "t1"))
	state_a(d) == "send_status_unknown"
}

test_state_unknown_when_picker_left_open_in_ended_segment if {
	d := world([done("t1", 0)], [check_allow(1, "t1", "picker"), ev(2, "t1", "picker_opened")])
	state_a(d) == "send_status_unknown"
}

test_state_unknown_when_send_allow_unresolved_before_interruption if {
	t1 := interrupt(live("t1", 0), 5)
	d := world([t1], [check_allow(1, "t1", "send")])
	state_a(d) == "send_status_unknown"
}

test_state_not_sent_when_approach_retreated_before_end if {
	d := world([done("t1", 0)], [
		check_allow(1, "t1", "picker"),
		ev(2, "t1", "picker_opened"),
		ev(3, "t1", "picker_dismissed"),
	])
	state_a(d) == "not_sent"
}

test_state_not_sent_when_only_resume_check_or_stop_before_end if {
	# Only an allowing check at picker or send is an approach.
	d := world([done("t1", 0)], [
		check_allow(1, "t1", "resume"),
		check_stop(2, "t1", "send"),
	])
	state_a(d) == "not_sent"
}

test_state_unknown_when_label_claims_sent_verified_without_evidence if {
	d := world([done("t1", 0)], [label(1, "t1", "sent_verified")])
	state_a(d) == "send_status_unknown"
}

test_state_unknown_when_label_claims_send_status_unknown if {
	d := world([done("t1", 0)], [label(1, "t1", "send_status_unknown")])
	state_a(d) == "send_status_unknown"
}

test_state_unknown_when_running_task_history_incomplete if {
	# No crossing is visible, but unreadable lines may hide one: not `open`.
	d := world([incomplete(live("t1", 0))], [ev(1, "t1", "picker_dismissed")])
	state_a(d) == "send_status_unknown"
}

test_state_unknown_when_ended_task_history_incomplete if {
	d := world([incomplete(done("t1", 0))], [])
	state_a(d) == "send_status_unknown"
}

test_state_unknown_when_task_resumes_task_without_history if {
	# Go marks a task that resumes an unseen task incomplete.
	t2 := object.union(resumed("t2", 1, "t0"), {
		"complete": false,
		"incomplete_because": ["resumes task t0, which has no history"],
	})
	d := world([ghost("t0", 0), t2], [check_allow(3, "t2", "resume")])
	state_a(d) == "send_status_unknown"
}

# Rule 3: in_flight.

test_state_in_flight_when_crossing_in_open_segment if {
	d := world([live("t1", 0)], [
		check_allow(1, "t1", "picker"),
		ev(2, "t1", "picker_opened"),
		ev(3, "t1", "picker_accepted"),
	])
	state_a(d) == "in_flight"
}

test_state_in_flight_when_uncertain_submission_in_open_segment if {
	d := world([live("t1", 0)], array.concat(checked_send(1, "t1"), [
		ev(6, "t1", "ui_changed"),
		readback(7, "t1", "unavailable"),
	]))
	state_a(d) == "in_flight"
}

test_state_unknown_wins_over_in_flight if {
	d := world([done("t1", 0), live("t2", 1)], array.concat(checked_send(1, "t1"), checked_send(10, "t2")))
	state_a(d) == "send_status_unknown"
}

# Rule 4: not_sent.

test_state_not_sent_when_every_task_ended_without_crossing if {
	d := world([done("t1", 0), done("t2", 1)], [
		label(1, "t1", "not_sent"),
		check_allow(2, "t2", "picker"),
		ev(3, "t2", "picker_opened"),
		ev(4, "t2", "picker_dismissed"),
		label(5, "t2", "not_sent"),
	])
	state_a(d) == "not_sent"
}

test_state_not_sent_when_superseded_task_and_its_resumption_ended if {
	# t1 stopped without task_ended; t2 resumed it and ended. Neither crossed.
	t1 := object.union(live("t1", 0), {"superseded_by": "t2"})
	t2 := object.union(resumed("t2", 1, "t1"), {"ended": true, "status": "completed"})
	d := world([t1, t2], [
		ev(1, "t1", "picker_opened"),
		ev(2, "t1", "picker_dismissed"),
		check_allow(4, "t2", "resume"),
	])
	state_a(d) == "not_sent"
}

# Rule 5: open.

test_state_open_when_running_task_has_not_crossed if {
	d := world([live("t1", 0)], [check_allow(1, "t1", "picker"), ev(2, "t1", "picker_opened")])
	state_a(d) == "open"
}

test_state_open_when_one_task_ended_clean_and_another_runs if {
	d := world([done("t1", 0), live("t2", 1)], [label(1, "t1", "not_sent"), check_allow(3, "t2", "resume")])
	state_a(d) == "open"
}

# Scopes (SPEC §2): consumption of one scope never frees another, and a
# consumed original does not consume the authorized scope.

test_state_authorized_scope_is_independent_of_consumed_original if {
	d := object.union(
		world_scopes([done("t1", 0), live_auth("t2", 1, "auth-1")], [
			{"key": key_a, "scope": "original", "facts": array.concat(checked_send(1, "t1"), [readback(6, "t1", "confirmed")])},
			{"key": key_a, "scope": "auth-1", "facts": [check_allow(10, "t2", "resume")]},
		]),
		{"authorizations": [auth_record("auth-1")]},
	)
	state_a(d) == "sent_verified"
	state_in(d, scope_id(key_a, "auth-1")) == "open"
}

# ---------------------------------------------------------------------------
# SPEC §6: findings

test_clean_checked_delivery_has_no_findings if {
	d := world([done("t1", 0)], array.concat(checked_send(1, "t1"), [
		readback(6, "t1", "confirmed"),
		label(7, "t1", "sent_verified"),
	]))
	count(findings_of(d)) == 0
}

# DUPLICATE_DELIVERY

test_duplicate_delivery_when_two_tasks_cross if {
	d := world([done("t1", 0), done("t2", 1)], array.concat(checked_send(1, "t1"), checked_send(10, "t2")))
	some f in found(d, "DUPLICATE_DELIVERY")
	f.key == key_a
	f.scope == "original"
}

test_duplicate_delivery_when_one_task_crosses_in_two_segments if {
	t1 := interrupt(live("t1", 0), 5)
	d := world([t1], [
		check_allow(1, "t1", "picker"),
		ev(2, "t1", "picker_opened"),
		ev(3, "t1", "picker_accepted"),
		in_seg(check_allow(6, "t1", "resume"), 1),
		in_seg(check_allow(7, "t1", "picker"), 1),
		in_seg(ev(8, "t1", "picker_accepted"), 1),
		in_seg(check_allow(9, "t1", "send"), 1),
		in_seg(ev(10, "t1", "send_fired"), 1),
	])
	has_finding_for(d, "DUPLICATE_DELIVERY", "t1")
}

test_duplicate_delivery_when_send_fired_twice_in_one_segment if {
	d := world([done("t1", 0)], array.concat(checked_send(1, "t1"), [
		ev(6, "t1", "ui_changed"),
		check_allow(7, "t1", "send"),
		ev(8, "t1", "send_fired"),
	]))
	has_finding_for(d, "DUPLICATE_DELIVERY", "t1")
}

test_duplicate_delivery_when_request_retried_without_token if {
	d := world([done("t1", 0)], [
		check_allow(1, "t1", "send"),
		request(2, "t1", ""),
		ev(3, "t1", "response_lost"),
		check_allow(4, "t1", "send"),
		request(5, "t1", ""),
	])
	has_finding_for(d, "DUPLICATE_DELIVERY", "t1")
}

test_duplicate_delivery_when_retry_tokens_differ if {
	d := world([done("t1", 0)], [
		check_allow(1, "t1", "send"),
		request(2, "t1", "tok-1"),
		ev(3, "t1", "timeout"),
		check_allow(4, "t1", "send"),
		request(5, "t1", "tok-2"),
	])
	has_finding_for(d, "DUPLICATE_DELIVERY", "t1")
}

test_duplicate_delivery_in_authorized_scope_names_that_scope if {
	d := object.union(
		world_scopes([live_auth("t1", 0, "auth-1"), live_auth("t2", 1, "auth-1")], [
			{"key": key_a, "scope": "auth-1", "facts": array.concat(checked_send(1, "t1"), checked_send(10, "t2"))},
		]),
		{"authorizations": [auth_record("auth-1")]},
	)
	some f in found(d, "DUPLICATE_DELIVERY")
	f.scope == "auth-1"
}

test_no_duplicate_delivery_for_retries_with_same_token if {
	d := world([done("t1", 0)], [
		check_allow(1, "t1", "send"),
		request(2, "t1", "tok-1"),
		ev(3, "t1", "timeout"),
		check_allow(4, "t1", "send"),
		request(5, "t1", "tok-1"),
		response(6, "t1", true),
	])
	no_finding(d, "DUPLICATE_DELIVERY")
}

test_no_duplicate_delivery_for_same_token_retry_after_interruption if {
	t1 := interrupt(done("t1", 0), 4)
	d := world([t1], [
		check_allow(1, "t1", "send"),
		request(2, "t1", "tok-1"),
		ev(3, "t1", "response_lost"),
		in_seg(check_allow(5, "t1", "resume"), 1),
		in_seg(check_allow(6, "t1", "send"), 1),
		in_seg(request(7, "t1", "tok-1"), 1),
	])
	no_finding(d, "DUPLICATE_DELIVERY")
}

test_no_duplicate_delivery_when_resuming_task_retries_with_same_token if {
	t1 := object.union(done("t1", 0), {"superseded_by": "t2"})
	t2 := object.union(resumed("t2", 1, "t1"), {"ended": true, "status": "completed"})
	d := world([t1, t2], [
		check_allow(1, "t1", "send"),
		request(2, "t1", "tok-1"),
		ev(3, "t1", "response_lost"),
		check_allow(5, "t2", "resume"),
		check_allow(6, "t2", "send"),
		request(7, "t2", "tok-1"),
		response(8, "t2", true),
	])
	no_finding(d, "DUPLICATE_DELIVERY")
	has_finding(d, "PROVIDER_DEDUPLICATED")
}

test_no_duplicate_delivery_for_one_crossing_episode if {
	# picker_accepted, one submission and its read-back are one episode.
	d := world([done("t1", 0)], array.concat(checked_send(1, "t1"), [
		ev(6, "t1", "outgoing_item_seen"),
		readback(7, "t1", "confirmed"),
	]))
	no_finding(d, "DUPLICATE_DELIVERY")
}

test_no_duplicate_delivery_across_scopes if {
	d := object.union(
		world_scopes([done("t1", 0), live_auth("t2", 1, "auth-1")], [
			{"key": key_a, "scope": "original", "facts": checked_send(1, "t1")},
			{"key": key_a, "scope": "auth-1", "facts": array.concat([check_allow(9, "t2", "resume")], checked_send(10, "t2"))},
		]),
		{"authorizations": [auth_record("auth-1")]},
	)
	no_finding(d, "DUPLICATE_DELIVERY")
}

# PROVIDER_DEDUPLICATED

test_provider_deduplicated_when_retry_repeats_token if {
	d := world([done("t1", 0)], [
		check_allow(1, "t1", "send"),
		request(2, "t1", "tok-1"),
		ev(3, "t1", "timeout"),
		check_allow(4, "t1", "send"),
		request(5, "t1", "tok-1"),
	])
	has_finding_for(d, "PROVIDER_DEDUPLICATED", "t1")
}

test_no_provider_deduplicated_for_single_tokened_request if {
	d := world([done("t1", 0)], [check_allow(1, "t1", "send"), request(2, "t1", "tok-1"), response(3, "t1", true)])
	no_finding(d, "PROVIDER_DEDUPLICATED")
}

test_no_provider_deduplicated_when_tokens_differ if {
	d := world([done("t1", 0)], [
		check_allow(1, "t1", "send"),
		request(2, "t1", "tok-1"),
		check_allow(3, "t1", "send"),
		request(4, "t1", "tok-2"),
	])
	no_finding(d, "PROVIDER_DEDUPLICATED")
}

# DUPLICATE_RISK_RESUME

test_duplicate_risk_resume_when_task_crosses_after_another_tasks_crossing if {
	# The incident of SPEC §1: t1 fired and could not confirm; t2 sends again.
	d := world([done("t1", 0), done("t2", 1)], array.concat(
		array.concat(checked_send(1, "t1"), [readback(6, "t1", "unavailable"), label(7, "t1", "send_status_unknown")]),
		checked_send(10, "t2"),
	))
	has_finding_for(d, "DUPLICATE_RISK_RESUME", "t2")
	no_finding_for(d, "DUPLICATE_RISK_RESUME", "t1")
}

test_duplicate_risk_resume_when_task_crosses_again_after_own_interrupted_crossing if {
	t1 := interrupt(live("t1", 0), 6)
	d := world([t1], array.concat(checked_send(1, "t1"), [
		in_seg(check_allow(7, "t1", "resume"), 1),
		in_seg(check_allow(8, "t1", "send"), 1),
		in_seg(ev(9, "t1", "send_fired"), 1),
	]))
	has_finding_for(d, "DUPLICATE_RISK_RESUME", "t1")
}

test_duplicate_risk_resume_even_when_repeat_carries_the_same_provider_token if {
	# An idempotent effect (git push) or a provider idempotency key: the
	# provider deduplicates, so the repeat is no duplicate delivery; but
	# the task crossed a consumed scope all the same (SPEC §6: the token
	# exception never covers DUPLICATE_RISK_RESUME).
	d := world([done("t1", 0), done("t2", 1)], [
		request(1, "t1", "tok-7"), response(2, "t1", true),
		request(10, "t2", "tok-7"), response(11, "t2", true),
	])
	has_finding_for(d, "DUPLICATE_RISK_RESUME", "t2")
	no_finding(d, "DUPLICATE_DELIVERY")
}

test_duplicate_delivery_when_ui_clicks_name_the_same_token if {
	# A click carries no provider token (SPEC §6): a token on send_fired
	# deduplicates nothing.
	d := world([done("t1", 0), done("t2", 1)], [
		evx(1, "t1", "send_fired", {"idempotency_token": "tok-7"}),
		evx(10, "t2", "send_fired", {"idempotency_token": "tok-7"}),
	])
	has_finding_for(d, "DUPLICATE_DELIVERY", "t2")
	no_finding(d, "PROVIDER_DEDUPLICATED")
}

test_duplicate_delivery_when_one_segment_clicks_twice_with_a_token if {
	d := world([done("t1", 0)], [
		evx(1, "t1", "send_fired", {"idempotency_token": "tok-7"}),
		evx(2, "t1", "send_fired", {"idempotency_token": "tok-7"}),
	])
	has_finding_for(d, "DUPLICATE_DELIVERY", "t1")
}

test_duplicate_risk_resume_when_repeat_carries_another_token if {
	d := world([done("t1", 0), done("t2", 1)], [
		request(1, "t1", "tok-7"), response(2, "t1", true),
		request(10, "t2", "tok-8"),
	])
	has_finding_for(d, "DUPLICATE_RISK_RESUME", "t2")
}

test_no_duplicate_risk_resume_within_one_crossing_episode if {
	d := world([done("t1", 0)], array.concat(checked_send(1, "t1"), [readback(6, "t1", "confirmed")]))
	no_finding(d, "DUPLICATE_RISK_RESUME")
}

test_no_duplicate_risk_resume_after_prior_not_sent if {
	d := world([done("t1", 0), done("t2", 1)], array.concat(
		[ev(1, "t1", "picker_opened"), ev(2, "t1", "picker_dismissed")],
		checked_send(10, "t2"),
	))
	no_finding(d, "DUPLICATE_RISK_RESUME")
}

test_no_duplicate_risk_resume_in_authorized_scope_after_consumed_original if {
	d := object.union(
		world_scopes([done("t1", 0), live_auth("t2", 1, "auth-1")], [
			{"key": key_a, "scope": "original", "facts": checked_send(1, "t1")},
			{"key": key_a, "scope": "auth-1", "facts": checked_send(10, "t2")},
		]),
		{"authorizations": [auth_record("auth-1")]},
	)
	no_finding(d, "DUPLICATE_RISK_RESUME")
}

# IGNORED_GATE_STOP

test_ignored_gate_stop_when_send_after_stop if {
	d := world([done("t1", 0)], [
		check_allow(1, "t1", "picker"),
		ev(2, "t1", "picker_opened"),
		ev(3, "t1", "picker_accepted"),
		check_stop(4, "t1", "send"),
		ev(5, "t1", "send_fired"),
	])
	has_finding_for(d, "IGNORED_GATE_STOP", "t1")
}

test_ignored_gate_stop_when_picker_accepted_after_picker_stop if {
	d := world([done("t1", 0)], [
		check_stop(1, "t1", "picker"),
		ev(2, "t1", "picker_opened"),
		ev(3, "t1", "picker_accepted"),
	])
	has_finding_for(d, "IGNORED_GATE_STOP", "t1")
}

test_no_ignored_gate_stop_when_later_check_allowed if {
	d := world([done("t1", 0)], [
		check_allow(1, "t1", "picker"),
		ev(2, "t1", "picker_opened"),
		ev(3, "t1", "picker_accepted"),
		check_stop(4, "t1", "send"),
		check_allow(5, "t1", "send"),
		ev(6, "t1", "send_fired"),
	])
	no_finding(d, "IGNORED_GATE_STOP")
}

test_no_ignored_gate_stop_for_another_tasks_stop if {
	d := world([done("t1", 0), done("t2", 1)], array.concat(checked_send(2, "t1"), [check_stop(1, "t2", "send")]))
	no_finding_for(d, "IGNORED_GATE_STOP", "t1")
}

# STALE_GATE_DECISION

test_stale_gate_decision_when_other_task_crossed_between_allow_and_use if {
	d := world([live("t1", 0), live("t2", 1)], [
		check_allow(1, "t1", "send"),
		check_allow(2, "t2", "send"),
		ev(3, "t2", "send_fired"),
		ev(4, "t1", "send_fired"),
	])
	has_finding_for(d, "STALE_GATE_DECISION", "t1")
	no_finding_for(d, "STALE_GATE_DECISION", "t2")
}

test_no_stale_gate_decision_when_other_crossing_came_later if {
	d := world([done("t1", 0), done("t2", 1)], array.concat(checked_send(1, "t1"), checked_send(10, "t2")))
	no_finding(d, "STALE_GATE_DECISION")
}

# UNCHECKED_CROSSING

test_unchecked_crossing_when_picker_accepted_without_picker_check if {
	d := world([done("t1", 0)], [ev(1, "t1", "picker_opened"), ev(2, "t1", "picker_accepted")])
	has_finding_for(d, "UNCHECKED_CROSSING", "t1")
}

test_unchecked_crossing_when_send_fired_without_send_check if {
	d := world([done("t1", 0)], [
		check_allow(1, "t1", "picker"),
		ev(2, "t1", "picker_opened"),
		ev(3, "t1", "picker_accepted"),
		ev(4, "t1", "send_fired"),
	])
	has_finding_for(d, "UNCHECKED_CROSSING", "t1")
}

test_unchecked_crossing_when_request_sent_without_send_check if {
	d := world([done("t1", 0)], [request(1, "t1", "tok-1")])
	has_finding_for(d, "UNCHECKED_CROSSING", "t1")
}

test_unchecked_crossing_when_only_check_said_stop if {
	d := world([done("t1", 0)], [check_stop(1, "t1", "send"), request(2, "t1", "")])
	has_finding_for(d, "UNCHECKED_CROSSING", "t1")
}

test_unchecked_crossing_when_check_was_at_other_checkpoint if {
	d := world([done("t1", 0)], [check_allow(1, "t1", "picker"), ev(2, "t1", "send_fired")])
	has_finding_for(d, "UNCHECKED_CROSSING", "t1")
}

test_unchecked_crossing_when_send_check_was_before_interruption if {
	t1 := interrupt(done("t1", 0), 2)
	d := world([t1], [
		check_allow(1, "t1", "send"),
		in_seg(check_allow(3, "t1", "resume"), 1),
		in_seg(ev(4, "t1", "send_fired"), 1),
	])
	has_finding_for(d, "UNCHECKED_CROSSING", "t1")
}

test_no_unchecked_crossing_when_picker_and_send_each_checked if {
	d := world([done("t1", 0)], checked_send(1, "t1"))
	no_finding(d, "UNCHECKED_CROSSING")
}

# NO_RECHECK_AFTER_INTERRUPTION (a missing resume check)

test_missing_resume_check_when_approach_after_interruption if {
	t1 := interrupt(live("t1", 0), 2)
	d := world([t1], [
		label(1, "t1", "not_sent"),
		in_seg(ev(3, "t1", "picker_opened"), 1),
	])
	has_finding_for(d, "NO_RECHECK_AFTER_INTERRUPTION", "t1")
}

test_missing_resume_check_when_crossing_after_interruption if {
	t1 := interrupt(live("t1", 0), 2)
	d := world([t1], [
		label(1, "t1", "not_sent"),
		in_seg(check_allow(3, "t1", "send"), 1),
		in_seg(ev(4, "t1", "send_fired"), 1),
	])
	has_finding_for(d, "NO_RECHECK_AFTER_INTERRUPTION", "t1")
}

test_missing_resume_check_when_resume_check_only_before_interruption if {
	t1 := interrupt(live("t1", 0), 2)
	d := world([t1], [
		check_allow(1, "t1", "resume"),
		in_seg(ev(3, "t1", "picker_opened"), 1),
	])
	has_finding_for(d, "NO_RECHECK_AFTER_INTERRUPTION", "t1")
}

test_missing_resume_check_when_only_other_checkpoint_checked_after_interruption if {
	# A check at send is not the resume check.
	t1 := interrupt(live("t1", 0), 2)
	d := world([t1], [
		label(1, "t1", "not_sent"),
		in_seg(check_stop(3, "t1", "send"), 1),
		in_seg(ev(4, "t1", "picker_opened"), 1),
	])
	has_finding_for(d, "NO_RECHECK_AFTER_INTERRUPTION", "t1")
}

test_missing_resume_check_when_resumed_task_approaches if {
	t1 := object.union(live("t1", 0), {"superseded_by": "t2"})
	d := world([t1, resumed("t2", 1, "t1")], [
		label(1, "t1", "not_sent"),
		ev(3, "t2", "picker_opened"),
	])
	has_finding_for(d, "NO_RECHECK_AFTER_INTERRUPTION", "t2")
}

test_no_missing_resume_check_when_resume_check_follows_interruption if {
	t1 := interrupt(live("t1", 0), 2)
	d := world([t1], [
		label(1, "t1", "not_sent"),
		in_seg(check_allow(3, "t1", "resume"), 1),
		in_seg(check_allow(4, "t1", "picker"), 1),
		in_seg(ev(5, "t1", "picker_opened"), 1),
	])
	no_finding(d, "NO_RECHECK_AFTER_INTERRUPTION")
}

test_no_missing_resume_check_when_resumed_task_checks_resume_first if {
	t1 := object.union(live("t1", 0), {"superseded_by": "t2"})
	d := world([t1, resumed("t2", 1, "t1")], [
		label(1, "t1", "not_sent"),
		check_allow(3, "t2", "resume"),
		check_allow(4, "t2", "picker"),
		ev(5, "t2", "picker_opened"),
	])
	no_finding(d, "NO_RECHECK_AFTER_INTERRUPTION")
}

test_no_missing_resume_check_for_uninterrupted_root_task if {
	d := world([done("t1", 0)], checked_send(1, "t1"))
	no_finding(d, "NO_RECHECK_AFTER_INTERRUPTION")
}

test_no_missing_resume_check_when_interrupted_task_only_reports if {
	t1 := interrupt(done("t1", 0), 2)
	d := world([t1], [label(1, "t1", "not_sent"), in_seg(label(3, "t1", "not_sent"), 1)])
	no_finding(d, "NO_RECHECK_AFTER_INTERRUPTION")
}

# LABEL_CONTRADICTS_EVIDENCE, both directions

test_label_contradicts_when_not_sent_after_own_crossing if {
	d := world([done("t1", 0)], array.concat(checked_send(1, "t1"), [label(6, "t1", "not_sent")]))
	has_finding_for(d, "LABEL_CONTRADICTS_EVIDENCE", "t1")
}

test_label_contradicts_when_not_sent_after_unresolved_approach if {
	d := world([done("t1", 0)], [
		check_allow(1, "t1", "picker"),
		ev(2, "t1", "picker_opened"),
		label(3, "t1", "not_sent"),
	])
	has_finding_for(d, "LABEL_CONTRADICTS_EVIDENCE", "t1")
}

test_label_contradicts_when_sent_verified_without_confirmation if {
	d := world([done("t1", 0)], array.concat(checked_send(1, "t1"), [
		readback(6, "t1", "unavailable"),
		label(7, "t1", "sent_verified"),
	]))
	has_finding_for(d, "LABEL_CONTRADICTS_EVIDENCE", "t1")
}

test_no_label_contradiction_when_not_sent_after_retreat if {
	d := world([done("t1", 0)], [
		check_allow(1, "t1", "picker"),
		ev(2, "t1", "picker_opened"),
		ev(3, "t1", "picker_dismissed"),
		label(4, "t1", "not_sent"),
	])
	no_finding(d, "LABEL_CONTRADICTS_EVIDENCE")
}

test_no_label_contradiction_when_not_sent_precedes_crossing if {
	d := world([done("t1", 0)], array.concat([label(1, "t1", "not_sent")], checked_send(2, "t1")))
	no_finding(d, "LABEL_CONTRADICTS_EVIDENCE")
}

test_no_label_contradiction_when_sent_verified_after_confirmation if {
	d := world([done("t1", 0)], array.concat(checked_send(1, "t1"), [
		readback(6, "t1", "confirmed"),
		label(7, "t1", "sent_verified"),
	]))
	no_finding(d, "LABEL_CONTRADICTS_EVIDENCE")
}

test_no_label_contradiction_for_not_sent_about_own_empty_evidence if {
	# t2 truthfully says it has not sent; t1's crossing is not t2's evidence
	# (that risk is DUPLICATE_RISK_RESUME / KEY_CONSUMED, not a label issue).
	d := world([done("t1", 0), live("t2", 1)], array.concat(checked_send(1, "t1"), [label(10, "t2", "not_sent")]))
	no_finding_for(d, "LABEL_CONTRADICTS_EVIDENCE", "t2")
}

# UNREADABLE_HISTORY, both causes

test_unreadable_history_when_input_has_unreadable_lines if {
	d := object.union(world([done("t1", 0)], []), {"inputs": [{
		"path": "t1.jsonl",
		"format": "effectlint/v1",
		"events": 3,
		"problems": [{"file": "t1.jsonl", "line": 4, "task": "t1", "message": "invalid JSON"}],
	}]})
	some f in found(d, "UNREADABLE_HISTORY")
	{"file": "t1.jsonl", "line": 4} in f.evidence
}

test_unreadable_history_when_parent_task_has_no_history if {
	t1 := object.union(done("t1", 1), {"relation": "sibling", "parent": "req-7"})
	d := world([ghost_named_at("req-7", 0, [at("t1", 1)]), t1], [])
	some f in found(d, "UNREADABLE_HISTORY")
	f.task == "req-7"
	f.evidence == [at("t1", 1)]
}

test_unreadable_history_when_resumed_task_has_no_history if {
	t2 := object.union(resumed("t2", 1, "t0"), {
		"complete": false,
		"incomplete_because": ["resumes task t0, which has no history"],
	})
	d := world([ghost_named_at("t0", 0, [at("t2", 1)]), t2], [])
	has_finding_for(d, "UNREADABLE_HISTORY", "t0")
}

test_no_unreadable_history_when_inputs_clean_and_references_resolved if {
	t1 := object.union(done("t1", 1), {"relation": "child", "parent": "t0"})
	d := world([done("t0", 0), t1], checked_send(1, "t1"))
	no_finding(d, "UNREADABLE_HISTORY")
}

# UNKEYED_CROSSING

test_unkeyed_crossing_when_crossing_has_no_key if {
	d := object.union(world([unkeyed_task], []), {"unkeyed": [
		unkeyed(check_allow(1, "t5", "send")),
		unkeyed(ev(2, "t5", "send_fired")),
	]})
	has_finding_for(d, "UNKEYED_CROSSING", "t5")
}

test_no_unkeyed_crossing_for_unkeyed_approach_and_label if {
	d := object.union(world([unkeyed_task], []), {"unkeyed": [
		unkeyed(ev(1, "t5", "picker_opened")),
		unkeyed(label(2, "t5", "not_sent")),
	]})
	no_finding(d, "UNKEYED_CROSSING")
}

# UNKNOWN_AUTHORIZATION (finding)

test_unknown_authorization_when_intent_names_missing_record if {
	d := world_scopes([done("t1", 0), live_auth("t2", 1, "auth-9")], [
		{"key": key_a, "scope": "original", "facts": checked_send(1, "t1")},
		{"key": key_a, "scope": "auth-9", "facts": []},
	])
	some f in found(d, "UNKNOWN_AUTHORIZATION")
	f.task == "t2"
	f.key == key_a
}

test_no_unknown_authorization_when_record_exists if {
	d := object.union(
		world_scopes([done("t1", 0), live_auth("t2", 1, "auth-1")], [
			{"key": key_a, "scope": "original", "facts": checked_send(1, "t1")},
			{"key": key_a, "scope": "auth-1", "facts": []},
		]),
		{"authorizations": [auth_record("auth-1")]},
	)
	no_finding(d, "UNKNOWN_AUTHORIZATION")
}

test_unknown_authorization_when_record_is_for_another_key if {
	d := object.union(
		world_scopes([done("t1", 0), live_auth("t2", 1, "auth-1")], [
			{"key": key_a, "scope": "original", "facts": checked_send(1, "t1")},
			{"key": key_a, "scope": "auth-1", "facts": []},
		]),
		{"authorizations": [object.union(auth_record("auth-1"), {"key": key_b})]},
	)
	has_finding_for(d, "UNKNOWN_AUTHORIZATION", "t2")
}

# AMBIGUOUS_DESTINATION

test_ambiguous_destination_when_title_names_two_identities if {
	d := object.union(world([done("t1", 0)], []), {"titles": {"#reports": [
		{"identity": "dest=slack/C024BE91L", "at": at("t1", 2)},
		{"identity": "dest=slack/C0OTHER99", "at": at("t2", 2)},
	]}})
	has_finding(d, "AMBIGUOUS_DESTINATION")
}

test_no_ambiguous_destination_when_title_names_one_identity if {
	d := world([done("t1", 0), done("t2", 1)], [])
	no_finding(d, "AMBIGUOUS_DESTINATION")
}

# WEAK_DESTINATION_IDENTITY

test_weak_destination_identity_when_key_built_from_title_alone if {
	weak := object.union(intent_of("t1", key_a, "original"), {
		"destination": {"provider": "", "id": "", "title": "#reports"},
		"weak_destination": true,
	})
	d := world([object.union(done("t1", 0), {"intents": [weak]})], [])
	has_finding_for(d, "WEAK_DESTINATION_IDENTITY", "t1")
}

test_no_weak_destination_identity_for_provider_identity if {
	d := world([done("t1", 0)], checked_send(1, "t1"))
	no_finding(d, "WEAK_DESTINATION_IDENTITY")
}

# AUTHORIZED_REDELIVERY (finding)

test_authorized_redelivery_when_authorization_recorded if {
	d := object.union(
		world_scopes([done("t1", 0), live_auth("t2", 1, "auth-1")], [
			{"key": key_a, "scope": "original", "facts": array.concat(checked_send(1, "t1"), [readback(6, "t1", "confirmed")])},
			{"key": key_a, "scope": "auth-1", "facts": []},
		]),
		{"authorizations": [auth_record("auth-1")]},
	)
	some f in found(d, "AUTHORIZED_REDELIVERY")
	f.key == key_a
	f.scope == "auth-1"
}

test_no_authorized_redelivery_without_authorization if {
	d := world([done("t1", 0)], checked_send(1, "t1"))
	no_finding(d, "AUTHORIZED_REDELIVERY")
}

# ---------------------------------------------------------------------------
# SPEC §5: the gate

# Stop reasons, in the spec's order.

test_gate_stops_unknown_task_without_intent if {
	d := world([live("t1", 0)], [])
	query := object.union(ask("t9", "resume"), {
		"task_known": false,
		"key": "",
		"key_error": "the task declares no intent and none was given",
		"scope": "",
		"scope_id": "",
	})
	stopped_by(d, query, "UNKNOWN_TASK")
}

test_gate_stops_no_key_when_content_path_unreadable if {
	d := world([live("t1", 0)], [])
	query := object.union(ask("t1", "send"), {
		"key": "",
		"key_error": "content path: open report.pdf: no such file or directory",
		"scope": "",
		"scope_id": "",
	})
	stopped_by(d, query, "NO_KEY")
}

test_gate_stops_no_key_for_new_task_whose_given_intent_has_no_key if {
	d := world([live("t1", 0)], [])
	query := object.union(ask_new("t9", "resume"), {
		"key": "",
		"key_error": "no content: give --file F or --sha256 H",
		"scope": "",
		"scope_id": "",
	})
	stopped_by(d, query, "NO_KEY")
	not_stopped_by(d, query, "UNKNOWN_TASK")
}

test_gate_stops_history_unreadable_for_incomplete_task_of_same_key if {
	d := world([live("t1", 0), incomplete(done("t2", 1))], [])
	stopped_by(d, ask("t1", "picker"), "HISTORY_UNREADABLE")
	at("t2", 99) in stop_evidence(d, ask("t1", "picker"), "HISTORY_UNREADABLE")
}

test_gate_stops_history_unreadable_for_own_incomplete_history if {
	d := world([incomplete(live("t1", 0))], [])
	stopped_by(d, ask("t1", "resume"), "HISTORY_UNREADABLE")
}

test_gate_stops_history_unreadable_for_incomplete_task_with_unknown_key if {
	t3 := object.union(incomplete(done("t3", 1)), {"intents": [], "keys": [], "key_unknown": true})
	d := world([live("t1", 0), t3], [])
	stopped_by(d, ask("t1", "picker"), "HISTORY_UNREADABLE")
}

test_gate_stops_history_unreadable_for_incomplete_task_with_no_known_key if {
	# t3's lines are unreadable, including the one that would name its
	# intent: its key is unknown, so it may be relevant. Fail closed.
	t3 := object.union(incomplete(done("t3", 1)), {"intents": [], "keys": []})
	d := world([live("t1", 0), t3], [])
	stopped_by(d, ask("t1", "picker"), "HISTORY_UNREADABLE")
}

test_gate_stops_history_unreadable_for_referenced_task_without_history if {
	t1 := object.union(live("t1", 1), {"relation": "sibling", "parent": "req-7"})
	d := world([ghost("req-7", 0), t1], [])
	stopped_by(d, ask("t1", "resume"), "HISTORY_UNREADABLE")
}

test_gate_history_unreadable_for_referenced_task_points_at_reference if {
	# A task with no history has no lines of its own; the reason should
	# point where it is referenced (as UNREADABLE_HISTORY does), not at
	# nothing.
	t1 := object.union(live("t1", 1), {"relation": "sibling", "parent": "req-7"})
	d := world([ghost_named_at("req-7", 0, [at("t1", 1)]), t1], [])
	at("t1", 1) in stop_evidence(d, ask("t1", "resume"), "HISTORY_UNREADABLE")
}

test_gate_stops_history_unreadable_for_unattributed_problem if {
	d := object.union(world([live("t1", 0)], []), {"unattributed_problems": [{"file": "cut.jsonl.gz", "line": 0}]})
	stopped_by(d, ask("t1", "resume"), "HISTORY_UNREADABLE")
	{"file": "cut.jsonl.gz", "line": 0} in stop_evidence(d, ask("t1", "resume"), "HISTORY_UNREADABLE")
}

test_gate_stops_unknown_authorization_without_record if {
	d := world_scopes([done("t1", 0), live_auth("t2", 1, "auth-9")], [
		{"key": key_a, "scope": "original", "facts": checked_send(1, "t1")},
		{"key": key_a, "scope": "auth-9", "facts": []},
	])
	stopped_by(d, ask_auth("t2", "resume", "auth-9"), "UNKNOWN_AUTHORIZATION")
}

test_gate_stops_unknown_authorization_when_record_is_for_another_key if {
	d := object.union(
		world_scopes([done("t1", 0), live_auth("t2", 1, "auth-1")], [
			{"key": key_a, "scope": "original", "facts": checked_send(1, "t1")},
			{"key": key_a, "scope": "auth-1", "facts": []},
		]),
		{"authorizations": [object.union(auth_record("auth-1"), {"key": key_b})]},
	)
	stopped_by(d, ask_auth("t2", "resume", "auth-1"), "UNKNOWN_AUTHORIZATION")
}

# KEY_CONSUMED for each consuming state and for another task's unresolved
# approach.

test_gate_key_consumed_when_other_task_confirmed if {
	d := world([done("t1", 0), live("t2", 1)], array.concat(checked_send(1, "t1"), [readback(6, "t1", "confirmed")]))
	stopped_by(d, ask("t2", "resume"), "KEY_CONSUMED")
	at("t1", 6) in stop_evidence(d, ask("t2", "resume"), "KEY_CONSUMED")
	g := gate_for(d, ask("t2", "resume"))
	g.state == "sent_verified"
}

test_gate_key_consumed_when_other_task_crossed_in_ended_segment if {
	# The incident of SPEC §1, asked before t2 resumes.
	d := world([done("t1", 0), live("t2", 1)], array.concat(checked_send(1, "t1"), [
		ev(6, "t1", "ui_changed"),
		readback(7, "t1", "unavailable"),
		label(8, "t1", "send_status_unknown"),
	]))
	stopped_by(d, ask("t2", "resume"), "KEY_CONSUMED")
	g := gate_for(d, ask("t2", "resume"))
	g.state == "send_status_unknown"
}

test_gate_key_consumed_when_other_task_left_approach_before_ending if {
	d := world([done("t1", 0), live("t2", 1)], [check_allow(1, "t1", "send")])
	stopped_by(d, ask("t2", "send"), "KEY_CONSUMED")
}

test_gate_key_consumed_when_other_task_label_claims_sent if {
	d := world([done("t1", 0), live("t2", 1)], [label(1, "t1", "send_status_unknown")])
	stopped_by(d, ask("t2", "picker"), "KEY_CONSUMED")
}

test_gate_key_consumed_when_other_task_in_flight if {
	# t2 started first and is the executor, but t1 is crossing right now.
	d := world([live("t2", 0), live("t1", 1)], [
		check_allow(1, "t1", "picker"),
		ev(2, "t1", "picker_opened"),
		ev(3, "t1", "picker_accepted"),
	])
	stopped_by(d, ask("t2", "picker"), "KEY_CONSUMED")
}

test_gate_key_consumed_when_other_task_holds_unresolved_approach if {
	d := world([live("t1", 0), live("t2", 1)], [check_allow(1, "t2", "picker"), ev(2, "t2", "picker_opened")])
	stopped_by(d, ask("t1", "picker"), "KEY_CONSUMED")
	at("t2", 2) in stop_evidence(d, ask("t1", "picker"), "KEY_CONSUMED")
}

test_gate_key_consumed_for_new_task_with_given_intent if {
	d := world([done("t1", 0)], checked_send(1, "t1"))
	stopped_by(d, ask_new("t9", "resume"), "KEY_CONSUMED")
}

test_gate_stops_resumed_task_whose_predecessor_left_approach if {
	# t1 opened the picker and vanished; t2 resumes it. The send control may
	# have fired: stop (as KEY_CONSUMED or ALREADY_CROSSED).
	t1 := object.union(live("t1", 0), {"superseded_by": "t2"})
	d := world([t1, resumed("t2", 1, "t1")], [check_allow(1, "t1", "picker"), ev(2, "t1", "picker_opened")])
	g := gate_for(d, ask("t2", "resume"))
	g.decision == "stop"
	count({"KEY_CONSUMED", "ALREADY_CROSSED"} & reason_rules(g)) > 0
}

test_gate_authorized_scope_consumed_by_its_own_delivery if {
	d := object.union(
		world_scopes([done("t1", 0), done_auth("t2", 1, "auth-1"), live_auth("t3", 2, "auth-1")], [
			{"key": key_a, "scope": "original", "facts": checked_send(1, "t1")},
			{"key": key_a, "scope": "auth-1", "facts": array.concat(checked_send(10, "t2"), [readback(15, "t2", "confirmed")])},
		]),
		{"authorizations": [auth_record("auth-1")]},
	)
	stopped_by(d, ask_auth("t3", "resume", "auth-1"), "KEY_CONSUMED")
}

# ALREADY_CROSSED

test_gate_already_crossed_when_own_send_before_interruption if {
	t1 := interrupt(live("t1", 0), 6)
	d := world([t1], checked_send(1, "t1"))
	stopped_by(d, ask("t1", "resume"), "ALREADY_CROSSED")
	at("t1", 5) in stop_evidence(d, ask("t1", "resume"), "ALREADY_CROSSED")
}

test_gate_already_crossed_when_own_picker_accepted_before_interruption if {
	t1 := interrupt(live("t1", 0), 4)
	d := world([t1], [
		check_allow(1, "t1", "picker"),
		ev(2, "t1", "picker_opened"),
		ev(3, "t1", "picker_accepted"),
		in_seg(check_allow(5, "t1", "resume"), 1),
	])
	stopped_by(d, ask("t1", "send"), "ALREADY_CROSSED")
}

test_gate_already_crossed_when_send_fired_and_asking_send_again if {
	d := world([live("t1", 0)], array.concat(checked_send(1, "t1"), [ev(6, "t1", "ui_changed")]))
	stopped_by(d, ask("t1", "send"), "ALREADY_CROSSED")
}

test_gate_already_crossed_when_request_sent_and_asking_send_again if {
	d := world([live("t1", 0)], [check_allow(1, "t1", "send"), request(2, "t1", "tok-1"), ev(3, "t1", "timeout")])
	stopped_by(d, ask("t1", "send"), "ALREADY_CROSSED")
}

test_gate_own_picker_accepted_in_same_segment_does_not_stop_own_send_check if {
	d := world([live("t1", 0)], [
		check_allow(1, "t1", "picker"),
		ev(2, "t1", "picker_opened"),
		ev(3, "t1", "picker_accepted"),
	])
	g := gate_for(d, ask("t1", "send"))
	g.decision == "allow"
	not "ALREADY_CROSSED" in reason_rules(g)
}

test_gate_own_held_approach_does_not_stop_own_checks if {
	# KEY_CONSUMED is about another task's approach; t1's own open picker is
	# what its send check is for.
	d := world([live("t1", 0)], [check_allow(1, "t1", "picker"), ev(2, "t1", "picker_opened")])
	gp := gate_for(d, ask("t1", "picker"))
	gp.decision == "allow"
	gs := gate_for(d, ask("t1", "send"))
	gs.decision == "allow"
}

# NOT_ELECTED

test_gate_not_elected_when_earlier_running_task_matches if {
	d := world([live("t1", 0), live("t2", 1)], [check_allow(1, "t1", "resume"), check_allow(2, "t2", "resume")])
	stopped_by(d, ask("t2", "picker"), "NOT_ELECTED")
	at("t1", 1) in stop_evidence(d, ask("t2", "picker"), "NOT_ELECTED")
	g := gate_for(d, ask("t2", "picker"))
	g.executor == "t1"
}

test_gate_not_elected_for_new_task_while_matching_task_runs if {
	d := world([live("t1", 0)], [check_allow(1, "t1", "resume")])
	stopped_by(d, ask_new("t9", "resume"), "NOT_ELECTED")
	g := gate_for(d, ask_new("t9", "resume"))
	g.executor == "t1"
}

test_gate_ended_task_is_not_eligible_executor if {
	d := world([done("t1", 0), live("t2", 1)], [ev(1, "t1", "picker_opened"), ev(2, "t1", "picker_dismissed")])
	not_stopped_by(d, ask("t2", "picker"), "NOT_ELECTED")
	g := gate_for(d, ask("t2", "picker"))
	g.executor == "t2"
}

test_gate_superseded_task_is_not_eligible_executor if {
	# t1 started first but t3 resumes it; of the running tasks t2 started
	# before t3, so t2 is the executor.
	t1 := object.union(live("t1", 0), {"superseded_by": "t3"})
	tasks := [t1, live("t2", 1), resumed("t3", 2, "t1")]
	d := world(tasks, [label(1, "t1", "not_sent"), check_allow(5, "t3", "resume")])
	allowed_as(d, ask("t2", "picker"), "ELECTED_EXECUTOR")
	g := gate_for(d, ask("t2", "picker"))
	g.executor == "t2"
	stopped_by(d, ask("t3", "picker"), "NOT_ELECTED")
}

# Allow reasons: exactly one.

test_gate_allows_no_matching_history_for_unused_key if {
	d := world([done("t1", 0)], checked_send(1, "t1"))
	query := object.union(ask_new("t9", "resume"), {"key": key_b, "scope_id": scope_id(key_b, "original"), "destination": {"provider": "slack", "id": "C0OTHER99"}})
	allowed_as(d, query, "NO_MATCHING_HISTORY")
}

test_gate_allows_prior_not_sent_after_clean_ended_task if {
	d := world([done("t1", 0), live("t2", 1)], [
		check_allow(1, "t1", "picker"),
		ev(2, "t1", "picker_opened"),
		ev(3, "t1", "picker_dismissed"),
		label(4, "t1", "not_sent"),
	])
	allowed_as(d, ask("t2", "picker"), "PRIOR_NOT_SENT")
}

test_gate_allows_elected_executor_among_running_tasks if {
	d := world([live("t1", 0), live("t2", 1)], [check_allow(1, "t1", "resume"), check_allow(2, "t2", "resume")])
	allowed_as(d, ask("t1", "picker"), "ELECTED_EXECUTOR")
	g := gate_for(d, ask("t1", "picker"))
	g.executor == "t1"
}

test_gate_allows_authorized_redelivery_despite_consumed_original if {
	d := object.union(
		world_scopes([done("t1", 0), live_auth("t2", 1, "auth-1")], [
			{"key": key_a, "scope": "original", "facts": array.concat(checked_send(1, "t1"), [readback(6, "t1", "confirmed")])},
			{"key": key_a, "scope": "auth-1", "facts": []},
		]),
		{"authorizations": [auth_record("auth-1")]},
	)
	allowed_as(d, ask_auth("t2", "picker", "auth-1"), "AUTHORIZED_REDELIVERY")

	# The original scope stays consumed for an original-scope intent.
	stopped_by(d, ask_new("t9", "picker"), "KEY_CONSUMED")
}

# Order of reasons.

# The stop reasons of SPEC §5 by rank; UNKNOWN_TASK and NO_KEY share one.
spec_gate_rank := {
	"UNKNOWN_TASK": 0,
	"NO_KEY": 0,
	"HISTORY_UNREADABLE": 1,
	"UNKNOWN_AUTHORIZATION": 2,
	"KEY_CONSUMED": 3,
	"ALREADY_CROSSED": 4,
	"NOT_ELECTED": 5,
}

test_gate_reasons_carry_spec_order if {
	# t2 crossed before its interruption, t1 (earlier) is crossing now, and
	# part of an input is unreadable.
	t2 := interrupt(live("t2", 1), 6)
	d := object.union(
		world([live("t1", 0), t2], [
			check_allow(1, "t1", "picker"),
			ev(2, "t1", "picker_opened"),
			ev(3, "t1", "picker_accepted"),
			check_allow(4, "t2", "send"),
			ev(5, "t2", "send_fired"),
		]),
		{"unattributed_problems": [{"file": "cut.jsonl", "line": 3}]},
	)
	g := gate_for(d, ask("t2", "send"))
	g.decision == "stop"
	reason_rules(g) == {"HISTORY_UNREADABLE", "KEY_CONSUMED", "ALREADY_CROSSED", "NOT_ELECTED"}
	every ra in g.reasons {
		every rb in g.reasons {
			ordered_as_spec(ra, rb)
		}
	}
}

# ordered_as_spec: a reason listed earlier in SPEC §5 sorts first.
ordered_as_spec(ra, rb) if not spec_gate_rank[ra.rule] < spec_gate_rank[rb.rule]

ordered_as_spec(ra, rb) if {
	spec_gate_rank[ra.rule] < spec_gate_rank[rb.rule]
	ra.order < rb.order
}

# ---------------------------------------------------------------------------
# Process rules judge native tasks and foreign tasks that gate themselves
# (or every task with require_checks).

foreign(t) := object.union(t, {"source": "claude-code"})

test_process_rules_skip_foreign_task_that_never_gates if {
	t1 := interrupt(foreign(live("t1", 0)), 2)
	d := world([t1], [in_seg(ev(3, "t1", "request_sent"), 1)])
	no_finding(d, "UNCHECKED_CROSSING")
	no_finding(d, "NO_RECHECK_AFTER_INTERRUPTION")
}

test_process_rules_judge_foreign_task_that_gates if {
	t1 := object.union(interrupt(foreign(live("t1", 0)), 2), {"gated": true})
	d := world([t1], [check_allow(1, "t1", "picker"), in_seg(ev(3, "t1", "request_sent"), 1)])
	has_finding_for(d, "UNCHECKED_CROSSING", "t1")
	has_finding_for(d, "NO_RECHECK_AFTER_INTERRUPTION", "t1")
}

test_process_rules_judge_every_task_with_require_checks if {
	t1 := foreign(live("t1", 0))
	d := object.union(world([t1], [ev(3, "t1", "request_sent")]), {"options": {"require_checks": true}})
	has_finding_for(d, "UNCHECKED_CROSSING", "t1")
}

test_state_rules_apply_to_foreign_tasks if {
	d := world([foreign(done("t1", 0)), foreign(done("t2", 1))], [ev(1, "t1", "request_sent"), ev(5, "t2", "request_sent")])
	has_finding_for(d, "DUPLICATE_DELIVERY", "t2")
}

# ---------------------------------------------------------------------------
# LABEL_CONTRADICTS_EVIDENCE judges a label against the task's own evidence
# and that of the tasks it resumes (SPEC §6: "its evidence").

test_label_contradicts_when_resumed_task_says_not_sent_after_predecessor_crossed if {
	t1 := object.union(done("t1", 0), {"superseded_by": "t2"})
	d := world([t1, resumed("t2", 1, "t1")], [ev(1, "t1", "send_fired"), label(5, "t2", "not_sent")])
	has_finding_for(d, "LABEL_CONTRADICTS_EVIDENCE", "t2")
}

test_label_contradicts_when_sibling_claims_sent_verified_on_anothers_confirmation if {
	d := world([done("t1", 0), done("t2", 1)], array.concat(
		array.concat(checked_send(1, "t1"), [readback(6, "t1", "confirmed")]),
		[label(9, "t2", "sent_verified")],
	))
	has_finding_for(d, "LABEL_CONTRADICTS_EVIDENCE", "t2")
}

test_no_label_contradiction_when_resumed_task_claims_predecessors_confirmation if {
	t1 := object.union(done("t1", 0), {"superseded_by": "t2"})
	d := world([t1, resumed("t2", 1, "t1")], array.concat(
		array.concat(checked_send(1, "t1"), [readback(6, "t1", "confirmed")]),
		[label(9, "t2", "sent_verified")],
	))
	no_finding(d, "LABEL_CONTRADICTS_EVIDENCE")
}

# ---------------------------------------------------------------------------
# Fail closed on what the gate cannot key or tell apart (SPEC §2, §4, §5)

# A world with t5's unkeyed facts and t2 running on key_a.
unkeyed_world(facts) := object.union(world([unkeyed_task, live("t2", 1)], []), {"unkeyed": facts})

test_gate_stops_on_unkeyed_crossing_of_a_task_with_no_intent if {
	# A delegated worker that declared nothing fired send: it may have
	# delivered this very file.
	d := unkeyed_world([unkeyed(ev(2, "t5", "send_fired"))])
	stopped_by(d, ask("t2", "send"), "UNKEYED_CROSSING")
	stop_evidence(d, ask("t2", "send"), "UNKEYED_CROSSING") == {at("t5", 2)}
}

test_gate_stops_on_unkeyed_crossing_for_a_new_task_too if {
	d := unkeyed_world([unkeyed(ev(2, "t5", "picker_accepted"))])
	stopped_by(d, ask_new("t9", "picker"), "UNKEYED_CROSSING")
}

test_gate_ignores_resolved_unkeyed_approach_and_label if {
	d := unkeyed_world([
		unkeyed(ev(1, "t5", "picker_opened")), unkeyed(ev(2, "t5", "picker_dismissed")),
		unkeyed(label(3, "t5", "not_sent")),
	])
	not_stopped_by(d, ask("t2", "send"), "UNKEYED_CROSSING")
}

test_gate_stops_on_unresolved_unkeyed_approach if {
	# A worker with no intent opened the picker, or was allowed to send,
	# and nothing says what came of it: the send control may have fired.
	some approach in [ev(1, "t5", "picker_opened"), check_allow(1, "t5", "send")]
	d := unkeyed_world([unkeyed(approach)])
	stopped_by(d, ask("t2", "send"), "UNKEYED_CROSSING")
}

# An unkeyed approach is resolved only by evidence of its own reading: the
# intent the analyzer gives it and that intent's destination. Stop 25's CI
# (a random history): a gate check at the instant of a task's first intent
# has a reading with no intent in force; the task's intent had no key and
# named another channel, and its crossing resolved that reading, so a new
# task's check of this channel allowed. And a picker opened for one keyless
# intent, then dismissed for another of the same channel.
test_gate_an_unkeyed_approach_is_resolved_only_by_its_own_reading if {
	elsewhere := {"provider": "slack", "id": "C0OTHER99"}
	here := {"provider": "slack", "id": "C024BE91L"}
	no_intent := unkeyed(check_allow(1, "t5", "send"))
	crossed := object.union(unkeyed(ev(2, "t5", "picker_accepted")), {"intent": "#1", "intent_task": "t5", "unkeyed_destination": elsewhere})
	stopped_by(unkeyed_world([no_intent, crossed]), ask("t2", "send"), "UNKEYED_CROSSING")
	opened := object.union(unkeyed(ev(1, "t5", "picker_opened")), {"intent": "#1", "intent_task": "t5", "unkeyed_destination": here})
	dismissed := object.union(unkeyed(ev(2, "t5", "picker_dismissed")), {"intent": "#2", "intent_task": "t5", "unkeyed_destination": here})
	stopped_by(unkeyed_world([opened, dismissed]), ask("t2", "send"), "UNKEYED_CROSSING")
	# One id, two intents of one channel: a reading of the predecessor
	# t4's #1, and t5's own keyless #1 (a seventeenth review).
	inherited := object.union(opened, {"intent_task": "t4"})
	stopped_by(unkeyed_world([inherited, object.union(dismissed, {"intent": "#1"})]), ask("t2", "send"), "UNKEYED_CROSSING")
	# An approach copied once for many readings (ambiguous) names no
	# intent, yet no retreat of no intent resolves it (a 23rd review).
	many := object.union(no_intent, {"ambiguous": true})
	unnamed_retreat := unkeyed(ev(2, "t5", "picker_dismissed"))
	stopped_by(unkeyed_world([many, unnamed_retreat]), ask("t2", "send"), "UNKEYED_CROSSING")
	not_stopped_by(unkeyed_world([no_intent, unnamed_retreat]), ask("t2", "send"), "UNKEYED_CROSSING")
	# Controls: the reading's own crossing or retreat resolves it.
	own_crossing := object.union(unkeyed(ev(2, "t5", "picker_accepted")), {"unkeyed_destination": elsewhere})
	not_stopped_by(unkeyed_world([object.union(no_intent, {"unkeyed_destination": elsewhere}), own_crossing]), ask("t2", "send"), "UNKEYED_CROSSING")
	own_retreat := object.union(dismissed, {"intent": "#1"})
	not_stopped_by(unkeyed_world([opened, own_retreat]), ask("t2", "send"), "UNKEYED_CROSSING")
}

test_gate_weighs_a_title_the_history_gives_the_asked_identity if {
	# The asker names slack/C024BE91L without a title; t1's intent for it
	# says "#reports"; a crossing known only by that title may be the same.
	d := related_world({"title": "#Reports"})
	untitled := object.union(object.remove(ask("t2", "send"), ["destination"]), {"destination": {"provider": "slack", "id": "C024BE91L"}})
	stopped_by(d, object.union(untitled, {"titles": ["#reports"]}), "KEY_CONSUMED")
	not_stopped_by(d, object.union(untitled, {"titles": []}), "KEY_CONSUMED")
}

test_gate_stops_on_unkeyed_crossing_whose_destination_may_be_the_same if {
	# The content could not be hashed, but the destination is this one's
	# in other letter case, or its title alone.
	some dest in [
		{"provider": "Slack", "id": "c024be91l"},
		{"title": "#Reports"},
		{"provider": "slack", "id": "C024BE91L", "title": "#other"},
	]
	f := object.union(unkeyed(ev(2, "t5", "send_fired")), {"unkeyed_destination": dest})
	stopped_by(unkeyed_world([f]), ask("t2", "send"), "UNKEYED_CROSSING")
}

test_gate_ignores_unkeyed_crossing_to_another_destination if {
	f := object.union(unkeyed(ev(2, "t5", "send_fired")), {"unkeyed_destination": {"provider": "slack", "id": "C0OTHER99", "title": "#elsewhere"}})
	d := unkeyed_world([f])
	not_stopped_by(d, ask("t2", "send"), "UNKEYED_CROSSING")
	allowed_as(d, ask("t2", "send"), "NO_MATCHING_HISTORY")
}

test_gate_unkeyed_crossing_stops_after_history_unreadable_and_before_key_consumed if {
	d := object.union(world([unkeyed_task, done("t1", 1), live("t2", 2)], checked_send(3, "t1")), {"unkeyed": [unkeyed(ev(2, "t5", "send_fired"))]})
	g := gate_for(d, ask("t2", "send"))
	orders := {r.rule: r.order | some r in g.reasons}
	count(orders) == 2
	orders.UNKEYED_CROSSING < orders.KEY_CONSUMED
	orders.UNKEYED_CROSSING > 3 # HISTORY_UNREADABLE's
}

# Two scopes of one content whose destinations may be the same: t1
# crossed in the second; t2 asks about the first.
related_world(dest_other) := d if {
	key_o := concat("", ["v1|", dest_part(dest_other), "|sha256=", sha_a])
	t1 := object.union(done("t1", 0), {"intents": [object.union(object.remove(intent_of("t1", key_o, "original"), ["destination"]), {"destination": dest_other})], "keys": [key_o]})
	base := world_scopes([t1, live("t2", 1)], [
		{"key": key_a, "scope": "original", "facts": []},
		{"key": key_o, "scope": "original", "facts": checked_send(1, "t1")},
	])
	other := object.union(object.remove(base.scopes[1], ["destination"]), {"destination": dest_other})
	d := object.union(base, {"scopes": [base.scopes[0], other]})
}

dest_part(d) := concat("", ["title=", lower(d.title)]) if not d.provider

else := concat("", ["dest=", lower(d.provider), "/", d.id])

test_gate_weighs_a_title_only_crossing_of_the_same_title if {
	d := related_world({"title": "#Reports"})
	stopped_by(d, ask("t2", "send"), "KEY_CONSUMED")
}

test_gate_weighs_a_destination_that_differs_only_in_letter_case if {
	d := related_world({"provider": "mail", "id": "c024be91l"})
	not stopped_by(d, ask("t2", "send"), "KEY_CONSUMED") # another provider
	d2 := related_world({"provider": "slack", "id": "c024be91l"})
	stopped_by(d2, ask("t2", "send"), "KEY_CONSUMED")
}

test_gate_does_not_weigh_another_destination if {
	d := related_world({"provider": "slack", "id": "C0OTHER99", "title": "#elsewhere"})
	allowed_as(d, ask("t2", "send"), "NO_MATCHING_HISTORY")
}

test_gate_does_not_weigh_another_content if {
	d0 := related_world({"title": "#Reports"})
	other := object.union(d0.scopes[1], {"content_sha256": "2222222222222222222222222222222222222222222222222222222222222222"})
	d := object.union(d0, {"scopes": [d0.scopes[0], other]})
	allowed_as(d, ask("t2", "send"), "NO_MATCHING_HISTORY")
}

test_gate_elects_across_scopes_that_may_be_the_same if {
	# t1 runs in the title-only scope and started first: t2 is not the
	# executor of what may be one destination.
	d0 := related_world({"title": "#Reports"})
	t1 := object.union(d0.tasks.t1, {"ended": false, "status": ""})
	d := object.union(d0, {
		"tasks": {"t1": t1, "t2": d0.tasks.t2},
		"scopes": [d0.scopes[0], object.union(d0.scopes[1], {"facts": []})],
	})
	stopped_by(d, ask("t2", "send"), "NOT_ELECTED")
}

test_gate_superseded_asker_is_not_eligible if {
	# t1 was resumed by t2, which runs; t1 asking again must not make a
	# second executor.
	t1 := object.union(live("t1", 0), {"superseded_by": "t2"})
	d := world([t1, resumed("t2", 1, "t1")], [])
	stopped_by(d, ask("t1", "send"), "NOT_ELECTED")
	allowed_as(d, ask("t2", "send"), "PRIOR_NOT_SENT")
}

test_gate_ended_asker_is_not_eligible if {
	d := world([done("t1", 0)], [])
	stopped_by(d, ask("t1", "send"), "NOT_ELECTED")
	g := gate_for(d, ask("t1", "send"))
	g.executor == null
}

test_gate_an_earlier_task_naming_the_key_on_the_command_line_starts_now if {
	# t0 started first, but its history holds another key; it asks about
	# key_a with --destination/--sha256. t1 runs in key_a's scope and
	# cannot see t0: t0 must defer to t1, so only one is elected.
	t0 := object.union(live("t0", 0), {"intents": [intent_of("t0", key_b, "original")], "keys": [key_b]})
	d := world([t0, live("t1", 1)], [])
	stopped_by(d, object.union(ask("t0", "send"), {"intent_given": true}), "NOT_ELECTED")
	allowed_as(d, ask("t1", "send"), "NO_MATCHING_HISTORY")
}

# ---------------------------------------------------------------------------
# Helpers for speed hold to the plain rules they stand for (rules.rego's
# last section): the steps toward replacing the whole reference copy of
# the rules (policy/testdata) by these equivalences.

every_type := {
	"picker_opened", "picker_dismissed", "picker_accepted", "send_fired", "request_sent",
	"outgoing_item_seen", "readback", "response", "ui_changed", "timeout", "response_lost",
	"failure_shown", "interrupted", "status", "gate_check", "tool_output", "task_started", "",
}

# One fact of every type, with the fields that change a class.
all_kinds := [f |
	some typ in every_type
	some extra in [{}, {"result": "confirmed"}, {"result": "unavailable"}, {"ok": true}, {"ok": false}, {"decision": "allow", "checkpoint": "send"}]
	f := evx(1, "t1", typ, extra)
]

test_crossings_of_is_the_crossings if {
	crossings_of(all_kinds) == [f | some f in all_kinds; crossing(f)]
}

test_gate_checks_of_is_the_gate_checks if {
	gate_checks_of(all_kinds) == [f | some f in all_kinds; f.type == "gate_check"]
}

test_fact_class_is_class if {
	every f in all_kinds {
		fact_class(f) == class(f)
	}
}

test_scans_by_type_match_the_predicates if {
	# The type sets the rules test inline before calling a predicate.
	every f in all_kinds {
		inline := f.type in {"picker_accepted", "send_fired", "request_sent", "outgoing_item_seen", "readback", "response"}
		inline == is_crossing(f)
	}
	every f in all_kinds {
		inline := f.type in {"send_fired", "request_sent"}
		inline == is_submission(f)
	}
	every f in all_kinds {
		inline := f.type in {"picker_accepted", "send_fired", "request_sent"}
		inline == is_checked_crossing(f)
	}
}

# A guard before a predicate may drop only facts the predicate refuses:
# has_token holds only for requests (the guard in provider_deduplicated),
# confirmation only for readbacks and responses (confirmed_before).
test_has_token_only_on_requests if {
	count([f | some f in token_kinds; has_token(f); f.type != "request_sent"]) == 0
	count([f | some f in token_kinds; has_token(f)]) > 0
}

test_confirmation_only_on_readbacks_and_responses if {
	count([f | some f in all_kinds; confirmation(f); not f.type in {"readback", "response"}]) == 0
	count([f | some f in all_kinds; confirmation(f)]) > 0
}

token_kinds := [object.union(f, {"idempotency_token": "tok-1"}) | some f in all_kinds]

is_checked_crossing(f) if checkpoint_of(f)

else := false

is_crossing(f) if crossing(f)

else := false

is_submission(f) if submission(f)

else := false

test_gate_a_task_holding_only_a_may_be_same_scope_starts_now if {
	# t0 started first and holds the title-only scope; asking about
	# key_a (whose destination carries that title) it must defer to t1,
	# which holds key_a itself and cannot weigh t0's title-only scope.
	d0 := related_world({"title": "#Reports"})
	t0 := object.union(d0.tasks.t1, {"id": "t0", "ended": false, "status": ""})
	scopes := [d0.scopes[0], object.union(d0.scopes[1], {"tasks": ["t0"], "facts": []})]
	d := object.union(d0, {"tasks": {"t0": t0, "t2": d0.tasks.t2}, "scopes": scopes})
	stopped_by(d, object.union(ask("t0", "send"), {"intent_given": true}), "NOT_ELECTED")
}

# The indexes that replace scans (quadratic: an eighth and a ninth review)
# stand for the scans: q_resolved with unresolved_weighed (the facts a check
# weighs), resolution_after with unresolved_in_scope (a key scope's facts),
# the labels' own_contradicting and lineage_contradicting (what contradicts
# a not_sent label), and unkeyed_last_resolution with unkeyed_resolved.
# Worlds: two tasks (t2 resumes t1), two segments, two intents, each kind of
# fact, in eight orders, whole and with parts left out.
resolution_base := [{"task": t, "segment": g, "intent": i, "type": ty, "decision": "allow", "checkpoint": "send", "label": "not_sent"} |
	some t in ["t1", "t2"]
	some g in [0, 1]
	some i in ["i1", "i2"]
	some ty in ["picker_opened", "picker_dismissed", "send_fired", "gate_check", "ui_changed", "status"]
]

resolution_worlds := [w |
	n := count(resolution_base)
	some k in [1, 5, 7, 11, 13, 17, 19, 23]
	some p in [[1, 1], [2, 0], [2, 1], [3, 0], [3, 1], [3, 2], [5, 0], [5, 4]]
	w := [object.union(f, {"seq": (i * k) % n}) | some i, f in resolution_base; i % p[0] != p[1]]
]

# A world as the analyzer writes a scope: in the order of seq, and each
# task's segments one after another (a task's facts keep the seqs they
# had, given out again in the order of their segments).
as_a_scope(w) := [by_seq[q] | some q in sort(object.keys(by_seq))] if {
	by_seq := {f.seq: f | some f in in_segment_order(w)}
}

in_segment_order(w) := [object.union(by_order[o], {"seq": seqs[i]}) |
	some t in {g.task | some g in w}
	seqs := sort([g.seq | some g in w; g.task == t])
	by_order := {[g.segment, g.seq]: g | some g in w; g.task == t}
	some i, o in sort(object.keys(by_order))
]

resolution_tasks := {"t1": {"id": "t1", "lineage": []}, "t2": {"id": "t2", "lineage": ["t1"]}}

scanned_unresolved(a, facts) if {
	approach(a)
	not scanned_resolved(a, facts)
}

scanned_resolved(a, facts) if {
	some f in facts
	f.task == a.task
	f.segment == a.segment
	f.seq > a.seq
	crossing_or_retreat(f)
}

scanned_resolved_before(a, facts, seq) if {
	some f in facts
	f.task == a.task
	f.segment == a.segment
	f.seq > a.seq
	f.seq < seq
	crossing_or_retreat(f)
}

scanned_unkeyed_resolved(a, facts) if {
	some f in facts
	f.task == a.task
	f.segment == a.segment
	f.seq > a.seq
	crossing_or_retreat(f)
	fact_intent(f) == fact_intent(a)
	fact_intent_task(f) == fact_intent_task(a)
}

# What contradicts a not_sent label, as the label rule read it before: the
# first crossing, or approach that nothing resolved before the label, of
# the task's evidence and its lineage's.
scanned_contradicting(l, facts) := [g |
	some g in facts
	g.task in ({l.task} | {t | some t in resolution_tasks[l.task].lineage})
	g.seq < l.seq
	scanned_contradicts(g, facts, l.seq)
]

scanned_contradicts(g, _, _) if crossing(g)

scanned_contradicts(g, facts, seq) if {
	approach(g)
	not scanned_resolved_before(g, facts, seq)
}

first_of(facts) := [f | some f in facts; f.seq == min([g.seq | some g in facts])][0] if count(facts) > 0

else := "none"

is_unresolved_weighed(a) if unresolved_weighed(a)

else := false

is_unresolved_in_scope(sid, a) if unresolved_in_scope(sid, a)

else := false

is_scanned_unresolved(a, facts) if scanned_unresolved(a, facts)

else := false

is_unkeyed_resolved(a) if unkeyed_resolved(a)

else := false

is_scanned_unkeyed_resolved(a, facts) if scanned_unkeyed_resolved(a, facts)

else := false

test_q_resolved_is_the_scan if {
	count(resolution_worlds) == 64
	every w in resolution_worlds {
		q_resolved_agrees with input as {"query": {"scope_id": "s"}, "scopes": [{"id": "s", "facts": as_a_scope(w)}]}
	}
}

# One `with` per world: under a `with` per fact the index was built again
# for every fact, and the test ran past verify's time limit on a busy
# machine.
q_resolved_agrees if {
	every a in q_facts {
		is_unresolved_weighed(a) == is_scanned_unresolved(a, q_facts)
	}
}

# A check weighs two scopes whose destinations may be the same; a task
# opened the picker under one intent, declared another and dismissed it
# there. The retreat resolves nothing in the first scope, for the check as
# for analyze (a twelfth review: the check allowed a scope analyze called
# send_status_unknown).
test_a_retreat_in_another_weighed_scope_resolves_nothing if {
	a := {"seq": 1, "task": "t2", "segment": 0, "type": "picker_opened", "segment_ended": true}
	r := {"seq": 3, "task": "t2", "segment": 0, "type": "picker_dismissed", "segment_ended": true}
	q := {"scope_id": "A", "key": "k", "scope": "original", "content_sha256": "c", "destination": {"provider": "slack", "id": "C1"}, "titles": [], "identities": []}
	scope_a := {"id": "A", "scope": "original", "content_sha256": "c", "destination": {"provider": "slack", "id": "C1"}}
	scope_b := {"id": "B", "scope": "original", "content_sha256": "c", "destination": {"provider": "Slack", "id": "c1"}}
	two := {"query": q, "scopes": [object.union(scope_a, {"facts": [a]}), object.union(scope_b, {"facts": [r]})]}
	count(q_scope) == 2 with input as two
	unresolved_weighed(a) with input as two
	not unresolved_weighed(a) with input as {"query": q, "scopes": [object.union(scope_a, {"facts": [a, r]})]}
}

# Two tests, each under verify's time limit on a busy machine.
test_resolution_after_is_the_scan if {
	every w in resolution_worlds {
		resolution_after_agrees with input as {"scopes": [{"id": "s", "facts": as_a_scope(w)}], "tasks": resolution_tasks}
	}
}

resolution_after_agrees if {
	facts := input.scopes[0].facts
	every a in facts {
		is_unresolved_in_scope("s", a) == is_scanned_unresolved(a, facts)
	}
}

test_labels_are_the_scan if {
	every w in resolution_worlds {
		labels_agree with input as {"scopes": [{"id": "s", "facts": as_a_scope(w)}], "tasks": resolution_tasks}
	}
}

labels_agree if {
	facts := input.scopes[0].facts
	every l in [l | some l in facts; l.type == "status"] {
		first_of(array.concat(own_contradicting("s", l), lineage_contradicting("s", l))) == first_of(scanned_contradicting(l, facts))
	}
}

# Controls: each kind of answer occurs in the worlds.
test_resolution_worlds_hold_each_answer if {
	some w in resolution_worlds
	world_holds_each_answer with input as {"query": {"scope_id": "s"}, "scopes": [{"id": "s", "facts": as_a_scope(w)}], "tasks": resolution_tasks}
}

world_holds_each_answer if {
	facts := input.scopes[0].facts
	some a in facts
	unresolved_in_scope("s", a)
	unresolved_weighed(a)
	some b in facts
	approach(b)
	not unresolved_in_scope("s", b)
	not unresolved_weighed(b)
	some l in facts
	l.type == "status"
	l.task == "t2"
	first_of(scanned_contradicting(l, facts)).task == "t1"
	some m in facts
	m.type == "status"
	some g in scanned_contradicting(m, facts)
	approach(g)
	g.task == m.task
	label_group_approach[["s", m.seq]]
	some n in facts
	n.type == "status"
	first_of(scanned_contradicting(n, facts)) == "none"
}

test_unkeyed_resolved_is_the_scan if {
	every w in resolution_worlds {
		unkeyed_resolved_agrees with input as {"unkeyed": with_intent_tasks(w)}
	}
}

# Unkeyed facts of one intent id declared by two tasks: a resumed task may
# declare an id its predecessor did.
with_intent_tasks(w) := array.concat(
	[object.union(f, {"intent_task": "t0"}) | some f in w; f.seq % 3 == 0],
	[f | some f in w; f.seq % 3 != 0],
)

# Controls: a reading's own retreat resolves its approach, and one of the
# same intent id declared by another task does not.
test_unkeyed_worlds_resolve_by_reading if {
	a := {"seq": 1, "task": "t1", "segment": 0, "intent": "i1", "type": "picker_opened"}
	r := {"seq": 2, "task": "t1", "segment": 0, "intent": "i1", "type": "picker_dismissed"}
	d := {"intent_task": "t0"}
	is_unkeyed_resolved(a) with input as {"unkeyed": [a, r]}
	not is_unkeyed_resolved(a) with input as {"unkeyed": [a, object.union(r, d)]}
	not is_scanned_unkeyed_resolved(a, [a, object.union(r, d)])
	some w in resolution_worlds
	some x in with_intent_tasks(w)
	x.intent_task
}

unkeyed_resolved_agrees if {
	every a in input.unkeyed {
		is_unkeyed_resolved(a) == is_scanned_unkeyed_resolved(a, input.unkeyed)
	}
}

# state_of's within: an approach in an ended segment counts as open unless
# a later fact of the scope named resolves it. A value that names no scope
# finds no resolution, so the approach counts (it fails closed), as it does
# for a check (null) that weighs no scope.
test_state_of_counts_an_approach_open_unless_its_named_scope_resolves_it if {
	a := {"seq": 1, "task": "t1", "segment": 0, "type": "picker_opened", "segment_ended": true}
	r := {"seq": 2, "task": "t1", "segment": 0, "type": "picker_dismissed", "segment_ended": true}
	t := {"id": "t1", "complete": true, "ended": true}
	open := {"scopes": [{"id": "s", "facts": [a]}], "tasks": {"t1": t}}
	resolved := {"scopes": [{"id": "s", "facts": [a, r]}], "tasks": {"t1": t}}
	state_of([a], [t], "s") == "send_status_unknown" with input as open
	state_of([a, r], [t], "s") == "not_sent" with input as resolved
	state_of([a, r], [t], 7) == "send_status_unknown" with input as resolved
	state_of([a, r], [t], "other") == "send_status_unknown" with input as resolved
	state_of([a, r], [t], null) == "send_status_unknown" with input as resolved
}

# q_resolved and unresolved_within narrow to the approach types by a
# literal before asking approach(a): a type approach(f) came to accept
# without the literal knowing it would leave that approach never open.
test_the_approach_literal_lists_every_type_approach_accepts if {
	every t in scope_fact_types | {"intent", "task_started", "task_ended", "authorization"} {
		every cp in {"resume", "picker", "send"} {
			every d in {"allow", "stop"} {
				literal_covers({"type": t, "checkpoint": cp, "decision": d})
			}
		}
	}
}

literal_covers(f) if not approach(f)

literal_covers(f) if f.type in {"picker_opened", "gate_check"}

# The values every question of a check shares (policy/shared.go) are what
# the rules that use them read before: the tasks that are not complete, and
# the unkeyed crossings and the approaches nothing resolved, in their order.
test_incomplete_tasks_are_the_tasks_not_complete if {
	tasks := {"a": {"id": "a", "complete": true}, "b": {"id": "b", "complete": false}, "c": {"id": "c", "complete": false}}
	incomplete_tasks == [tasks.b, tasks.c] with input as {"tasks": tasks}
}

test_unkeyed_candidates_are_crossings_and_unresolved_approaches if {
	sent := {"type": "send_fired", "task": "a", "segment": 0, "seq": 1}
	open := {"type": "picker_opened", "task": "a", "segment": 1, "seq": 2}
	closed := {"type": "picker_opened", "task": "a", "segment": 0, "seq": 3}
	dismissed := {"type": "picker_dismissed", "task": "a", "segment": 0, "seq": 4}
	shown := {"type": "ui_changed", "task": "a", "segment": 0, "seq": 5}
	unkeyed_candidates == [sent, open] with input as {"unkeyed": [sent, open, closed, dismissed, shown]}
}
