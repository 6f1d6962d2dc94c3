# effectlint built-in rules (SPEC §2, §4, §5, §6).
#
# Input: the facts document that `effectlint facts` prints. Go has already
# ordered events (`seq`), cut segments, computed keys and grouped evidence by
# key scope (`input.scopes`); everything decided here is a verdict.
#
# Performance: rules iterate scopes and look at the facts of one scope at a
# time, so evaluation stays linear in the number of scopes (OPA-NOTES: rules
# that emit many keys as `x[k] := v` are quadratic, comprehensions are not).
package effectlint

# ---------------------------------------------------------------------------
# Evidence classes (SPEC §2)

approach(f) if f.type == "picker_opened"

approach(f) if {
	f.type == "gate_check"
	f.decision == "allow"
	f.checkpoint in {"picker", "send"}
}

retreat(f) if f.type == "picker_dismissed"

crossing(f) if f.type in {"picker_accepted", "send_fired", "request_sent", "outgoing_item_seen", "readback", "response"}

confirmation(f) if {
	f.type == "readback"
	f.result == "confirmed"
}

confirmation(f) if {
	f.type == "response"
	f.ok == true
}

uncertainty(f) if f.type in {"ui_changed", "timeout", "response_lost", "failure_shown", "interrupted"}

uncertainty(f) if {
	f.type == "readback"
	f.result in {"mismatch", "unavailable"}
}

# A submission is a press of the send control or a request.
submission(f) if f.type in {"send_fired", "request_sent"}

# Only a request carries a provider idempotency token (SPEC §6): a UI
# click that names one is a click all the same.
has_token(f) if {
	f.type == "request_sent"
	f.idempotency_token != ""
}

label_claims_sent(f) if {
	f.type == "status"
	f.label in {"sent_verified", "send_status_unknown"}
}

# The checkpoint a crossing should have been gated at.
checkpoint_of(f) := "picker" if f.type == "picker_accepted"

checkpoint_of(f) := "send" if submission(f)

allowing_check(f, checkpoint) if {
	f.type == "gate_check"
	f.decision == "allow"
	f.checkpoint == checkpoint
}

# class names one fact for reports; the first that holds wins.
class(f) := "confirmation" if confirmation(f)
else := "crossing" if crossing(f)
else := "uncertainty" if uncertainty(f)
else := "approach" if approach(f)
else := "retreat" if retreat(f)
else := "label" if f.type == "status"
else := "check" if f.type == "gate_check"
else := "other"

# An approach is resolved by a later crossing or retreat of the same task in
# the same segment. An unresolved approach in an ended segment means the send
# control may have fired.
#
# Only later facts of the approach's own key scope count (resolution_after),
# in analyze and in a check alike (q_resolved): a check that resolved an
# approach by the task's retreat in another scope it weighs allowed a scope
# analyze called send_status_unknown (a twelfth review). The index is built
# once per evaluation by comprehensions that OPA indexes (their inner scan
# is grouped once by the outer keys), so the work stays linear. A function
# over a list, which is what it replaced, is not indexed: one task with
# 2,000 approaches and retreats made a check take 17 s (an eighth review),
# and a task interrupted 1,000 times, or 1,000 tasks of one scope, took a
# check 6 s and analyze past its limit (a ninth review, issue 15).

crossing_or_retreat(f) if crossing(f)

crossing_or_retreat(f) if retreat(f)

# unresolved_weighed(a): a is an approach of a scope a check weighs that
# nothing after it in that scope resolved (q_resolved).
unresolved_weighed(a) if {
	approach(a)
	not resolved_weighed(a)
}

# (A named rule, not a negation written inline, which was false when a key
# was missing with OPA 1.22. A fact is in one key scope at most, so its seq
# names it among the scopes a check weighs.)
resolved_weighed(a) if a.seq in q_resolved

# unresolved_in_scope(sid, a): a, a fact of key scope sid, is an approach
# that nothing after it in that scope resolved.
unresolved_in_scope(sid, a) if {
	approach(a)
	not resolved_in_scope(sid, a)
}

resolved_in_scope(sid, a) if resolution_after[[sid, a.seq]]

# Process rules (UNCHECKED_CROSSING, NO_RECHECK_AFTER_INTERRUPTION,
# STALE_GATE_DECISION) judge native tasks and foreign tasks that gate
# themselves at least once, or every task with --require-checks: a foreign
# agent that never heard of gates would otherwise drown in them.
process_judged(id) if input.tasks[id].source == "effectlint/v1"

process_judged(id) if input.tasks[id].gated

process_judged(_) if input.options.require_checks

finished(t) if t.ended

finished(t) if t.superseded_by != ""

running(t) if not finished(t)

# ---------------------------------------------------------------------------
# Interpretation of a key scope (SPEC §4): the first rule that holds wins.

state_of(facts, tasks, within) := "sent_verified" if {
	some f in facts
	confirmation(f)
} else := "send_status_unknown" if {
	status_unknown(facts, tasks, within)
} else := "in_flight" if {
	some f in facts
	crossing(f)
	not f.segment_ended
} else := "not_sent" if {
	every t in tasks {
		t.complete
		finished(t)
	}
} else := "open"

status_unknown(facts, _, _) if {
	some f in facts
	crossing(f)
	f.segment_ended
}

# An approach in an ended segment that nothing resolved: within the key
# scope `within`, or, when it is null, within the scopes a check weighs.
status_unknown(facts, _, within) if {
	some f in facts; f.segment_ended; unresolved_within(within, f)
}

status_unknown(facts, _, _) if {
	some f in facts
	label_claims_sent(f)
}

status_unknown(_, tasks, _) if {
	some t in tasks
	not t.complete
}

consumed_states := {"sent_verified", "send_status_unknown", "in_flight"}

scope_tasks(s) := [input.tasks[id] | some id in s.tasks]

# (A scope's approaches are resolved by its own later facts: state_of's within.)

# Per key scope: its state and the class of each fact, for the reports.
scopes := [{
	"id": s.id,
	"state": state_of(s.facts, scope_tasks(s), s.id),
	"classes": [fact_class(f) | some f in s.facts],
} |
	some s in input.scopes
]

# ---------------------------------------------------------------------------
# Findings (SPEC §6). One rule per finding id; severity lives in METADATA.

# finding builds one finding of a scope. chain is the calling rule's
# rego.metadata.chain(): the severity comes from the rule's METADATA
# (scope: document, so one block covers every definition of the rule).
finding(rule, chain, s, task, message, facts) := {
	"rule": rule,
	"severity": severity_of(chain),
	"key": s.key,
	"scope": s.scope,
	"task": task,
	"message": message,
	"evidence": [f.at | some f in facts],
}

pointers(facts) := [f.at | some f in facts]

# A rule without custom.severity yields "unspecified", which the engine
# rejects: a finding must never vanish because its metadata is missing.
severity_of(chain) := sev if {
	sev := [s | some entry in chain; s := entry.annotations.custom.severity][0]
} else := "unspecified"

# Crossing units: each untokened submission is one unit; all submissions
# with one provider token are one unit (the provider deduplicates them); a
# crossing episode (task, segment) without a submission is one unit.
unit_pairs(facts) := [[u, f] |
	sub_episodes := {[g.task, g.segment] | some g in facts; g.type in {"send_fired", "request_sent"}}
	some f in facts
	f.type in {"picker_accepted", "send_fired", "request_sent", "outgoing_item_seen", "readback", "response"}
	u := unit_of(f, sub_episodes)
]

unit_of(f, sub_episodes) := ["token", f.idempotency_token] if {
	submission(f)
	has_token(f)
} else := ["submission", f.seq] if {
	submission(f)
} else := ["episode", f.task, f.segment] if {
	not [f.task, f.segment] in sub_episodes
}

# METADATA
# scope: document
# title: Duplicate delivery
# description: >-
#   Two or more crossing episodes in one key scope: by different tasks, by one
#   task in two segments, or two submissions in one segment. Retries that carry
#   the same provider idempotency token count once.
# custom:
#   severity: critical
duplicate_delivery contains f if {
	some s in input.scopes
	pairs := unit_pairs(s.facts)
	units := {p[0] | some p in pairs}
	count(units) >= 2
	firsts := [first |
		some u in units
		first := [p[1] | some p in pairs; p[0] == u][0]
	]
	ordered := sort([g.seq | some g in firsts])
	second := [g | some g in firsts; g.seq == ordered[1]][0]
	evidence := [g | some seq in ordered; some g in firsts; g.seq == seq]
	f := finding("DUPLICATE_DELIVERY", rego.metadata.chain(), s, second.task,
		sprintf("%d crossing episodes in one key scope: the effect may have happened %d times", [count(units), count(units)]),
		evidence)
}

# METADATA
# scope: document
# title: Provider deduplicated
# description: A repeated submission carried the same provider idempotency token.
# custom:
#   severity: info
provider_deduplicated contains f if {
	some s in input.scopes
	tokens := {g.idempotency_token | some g in s.facts; g.type == "request_sent"; has_token(g)}
	some token in tokens
	subs := [g | some g in s.facts; g.idempotency_token == token; has_token(g)]
	count(subs) >= 2
	f := finding("PROVIDER_DEDUPLICATED", rego.metadata.chain(), s, subs[1].task,
		sprintf("%d submissions carried the provider idempotency token %q", [count(subs), token]),
		subs)
}

# Crossing episodes of a scope with the first crossing of each.
episode_firsts(facts) := [first |
	crossings := crossings_of(facts); episodes := {[g.task, g.segment] | some g in crossings}
	some e in episodes
	first := [g | some g in crossings; g.task == e[0]; g.segment == e[1]][0]
]

# METADATA
# scope: document
# title: Duplicate-risk resume
# description: >-
#   A task crossed after the scope had been consumed by an earlier crossing
#   (another task's, or its own before an interruption). A provider token
#   does not excuse it: the resume took the risk whatever the provider did.
# custom:
#   severity: critical
duplicate_risk_resume contains f if {
	some s in input.scopes
	firsts := episode_firsts(s.facts)
	some c in firsts
	earlier := [g | some g in firsts; g.seq < c.seq]
	count(earlier) > 0
	prior := earlier[0]
	whose := prior_owner(prior, c)
	f := finding("DUPLICATE_RISK_RESUME", rego.metadata.chain(), s, c.task,
		sprintf("task %s crossed at %s after the scope was consumed by %s crossing at %s", [c.task, c.ts, whose, prior.ts]),
		[prior, c])
}

prior_owner(prior, c) := "its own" if prior.task == c.task
else := sprintf("task %s's", [prior.task])

# METADATA
# scope: document
# title: Ignored gate stop
# description: A task crossed after its own gate_check said stop, with no later allow.
# custom:
#   severity: critical
ignored_gate_stop contains f if {
	some s in input.scopes
	crossings := crossings_of(s.facts); gate_checks := gate_checks_of(s.facts)
	some c in crossings
	checks := [g | some g in gate_checks; g.task == c.task; g.seq < c.seq]
	count(checks) > 0
	last := checks[count(checks) - 1]
	last.decision != "allow"
	# Report each ignored stop once, at the first crossing after it.
	not crossed_between(crossings, c.task, last.seq, c.seq)
	f := finding("IGNORED_GATE_STOP", rego.metadata.chain(), s, c.task,
		sprintf("task %s crossed (%s) after its %s check said stop", [c.task, c.type, last.checkpoint]),
		[last, c])
}

crossed_between(facts, task, from, to) if {
	some g in facts
	g.task == task
	g.seq > from
	g.seq < to
	crossing(g)
}

# METADATA
# scope: document
# title: Stale gate decision
# description: >-
#   The allowing check that preceded a crossing was older than another task's
#   crossing of the same scope: the decision was invalidated before it was used.
# custom:
#   severity: high
stale_gate_decision contains f if {
	some s in input.scopes
	crossings := crossings_of(s.facts); some c in crossings
	c.type in {"picker_accepted", "send_fired", "request_sent"}; cp := checkpoint_of(c)
	process_judged(c.task)
	allows := [g | some g in gate_checks_of(s.facts); g.task == c.task; g.segment == c.segment; g.seq < c.seq; allowing_check(g, cp)]
	count(allows) > 0
	allow := allows[count(allows) - 1]
	races := [x | some x in crossings; x.task != c.task; x.seq > allow.seq; x.seq < c.seq]
	count(races) > 0
	f := finding("STALE_GATE_DECISION", rego.metadata.chain(), s, c.task,
		sprintf("task %s used a %s allow from %s after task %s crossed at %s", [c.task, cp, allow.ts, races[0].task, races[0].ts]),
		[allow, races[0], c])
}

# METADATA
# scope: document
# title: Unchecked crossing
# description: >-
#   A crossing with no allowing check at its checkpoint earlier in the same
#   segment (picker before picker_accepted, send before send_fired/request_sent).
# custom:
#   severity: high
unchecked_crossing contains f if {
	some s in input.scopes
	some c in s.facts; c.type in {"picker_accepted", "send_fired", "request_sent"}
	cp := checkpoint_of(c)
	process_judged(c.task)
	not checked_before(gate_checks_of(s.facts), c, cp)
	f := finding("UNCHECKED_CROSSING", rego.metadata.chain(), s, c.task,
		sprintf("task %s: %s with no allowing %s check earlier in the segment", [c.task, c.type, cp]),
		[c])
}

checked_before(facts, c, cp) if {
	some g in facts
	g.task == c.task
	g.segment == c.segment
	g.seq < c.seq
	allowing_check(g, cp)
}

# METADATA
# scope: document
# title: No re-check after interruption
# description: >-
#   After an interruption, or in a resumed task, the task approached or crossed
#   without a resume check first.
# custom:
#   severity: high
no_recheck_after_interruption contains f if {
	some s in input.scopes
	some id in s.tasks
	process_judged(id)
	t := input.tasks[id]
	some seg in numbers.range(0, t.segment)
	needs_resume_check(t, seg)
	acts := [g | some g in scope_runs[[s.id, id, seg]]; approach_or_crossing(g)]
	count(acts) > 0
	first := acts[0]
	not resume_checked_before(s.id, first)
	why := resume_cause(t, seg)
	f := finding("NO_RECHECK_AFTER_INTERRUPTION", rego.metadata.chain(), s, id,
		sprintf("task %s %s, then %s without a resume check", [id, why, first.type]),
		array.concat(interruption_facts(t, seg), [first]))
}

needs_resume_check(t, seg) if seg > 0

needs_resume_check(t, 0) if t.relation == "resumed"

resume_cause(t, seg) := sprintf("was interrupted (%s)", [i.reason]) if {
	seg > 0
	some i in interruption_facts(t, seg)
} else := sprintf("resumes task %s", [t.resumes])

interruption_facts(t, seg) := is if {
	is := interruptions_by_segment[[t.id, seg]]
} else := []

# Each task's interruptions by the segment they end, built once: a task
# interrupted 1,000 times had its list scanned for each segment.
interruptions_by_segment := {k: is |
	some k in {[id, i.segment] | some id, t in input.tasks; some i in t.interruptions}
	[id, seg] := k
	is := [i | some id2, t in input.tasks; id2 == id; some i in t.interruptions; i.segment == seg]
}

approach_or_crossing(f) if approach(f)

approach_or_crossing(f) if crossing(f)

resume_checked_before(sid, act) if first_resume_check(sid, act.task, act.segment) < act.seq

# The seq of the first resume check of a task segment in a scope, from its
# run, when a rule asks: scanning the scope for each segment was quadratic
# in a task's interruptions (a ninth review, issue 15).
first_resume_check(sid, t, seg) := min(seqs) if {
	run := scope_runs[[sid, t, seg]]
	seqs := [g.seq | some g in run; g.type == "gate_check"; g.checkpoint == "resume"]
	count(seqs) > 0
}

# METADATA
# scope: document
# title: Label contradicts evidence
# description: >-
#   A task's label disagrees with its evidence (its own, and that of the tasks
#   it resumes): not_sent after a crossing or an unresolved approach;
#   sent_verified without a confirmation before it.
# custom:
#   severity: high
label_contradicts_evidence contains f if {
	some s in input.scopes
	some l in s.facts
	l.type == "status"
	l.label == "not_sent"
	bad := array.concat(own_contradicting(s.id, l), lineage_contradicting(s.id, l))
	count(bad) > 0
	first := min([g.seq | some g in bad])
	some g in bad
	g.seq == first
	f := finding("LABEL_CONTRADICTS_EVIDENCE", rego.metadata.chain(), s, l.task,
		sprintf("task %s says not_sent after %s %s", [l.task, whose_evidence(l.task, g), g.type]),
		[g, l])
}

label_contradicts_evidence contains f if {
	some s in input.scopes
	some l in s.facts
	l.type == "status"
	l.label == "sent_verified"
	not confirmed_before(s, l)
	f := finding("LABEL_CONTRADICTS_EVIDENCE", rego.metadata.chain(), s, l.task,
		sprintf("task %s says sent_verified, but none of its evidence confirms a delivery before it", [l.task]),
		[l])
}

# What contradicts a not_sent label l of scope sid among the labelling
# task's own facts: its first crossing and its first approach that nothing
# resolved, when they came before l, and the first approach of l's group
# (an approach before l that a resolution after l resolves: a task's
# segments follow one another, so such an approach is in l's own run).
# Their first is the first of all the task's facts that contradict l: one
# lookup each instead of a scan of the task's evidence per label.
own_contradicting(sid, l) := array.concat(
	[g | g := task_first_crossing(sid, l.task); g.seq < l.seq],
	array.concat(
		[g | g := task_first_open(sid, l.task); g.seq < l.seq],
		[g | g := label_group_approach[[sid, l.seq]]],
	),
)

# What contradicts it among the evidence of the tasks the labelling task
# resumes: the first of their first crossings and first open approaches
# (one lookup: lineage_summary), and the approaches before l that a
# resolution after l resolves, looked for only when a task resumed has
# evidence after l (a task resumed is most often over by then).
lineage_contradicting(sid, l) := array.concat(
	[g |
		g := lineage_summary(sid, l.task).first
		g != null
		g.seq < l.seq
	],
	[g |
		lineage_summary(sid, l.task).last > l.seq
		some t in input.tasks[l.task].lineage
		task_last_seq(sid, t) > l.seq
		some g in scope_task_evidence[[sid, t]]
		g.seq < l.seq
		resolution_after[[sid, g.seq]] > l.seq
	],
)

# Weighing each task resumed for each label, as this did before, was
# lineage × labels: a chain of N resumptions, each task labelling its
# delivery, took analyze 3.4 s at 1,000 deep and was past its limit at
# 4,000 (issue 15). What is left of that work is the scan above, when a
# task resumed goes on after the label.

confirmed_before(s, l) if { c := first_confirmation(s.id, l.task); c != null; c < l.seq }

# What the labels of a task in a scope are weighed against: the evidence of
# the task and of the tasks it resumes (lineage_summary), each task's built
# once per scope by lookups of its runs by segment, not once per label or per
# labelling task. Scanning the scope's facts for each label, then for each
# labelling task, was quadratic: 1,000 labels and 1,000 approaches in one
# scope made analyze run past its 30 s limit (an eighth review), and so
# did 1,000 tasks of one scope with a label each (a ninth review, issue
# 15). scope_task_evidence lists a task's crossings, approaches and
# retreats in a scope, in order; task_first_confirmation is the seq of its
# first confirmation there (a confirmation is a crossing), and
# first_confirmation the first of a labelling task's evidence.
scope_task_evidence := {k: fs |
	some k in {[sid, t] | some [sid, t, _], _ in scope_runs}
	fs := [x | some seg in task_segments(k[1]); some x in scope_runs[[k[0], k[1], seg]]; x.type != "status"; approach_crossing_or_retreat(x)] # in segment order
	count(fs) > 0
}

# Functions, not objects built for every task of every scope: only what a
# label asks is computed, once (OPA keeps a function's answer for its
# arguments, when it has one: hence null for none). Building them all made
# analyze half as slow again as the scans they replaced on histories of
# many small scopes, where each task labels its own delivery (issue 15).
# first_or_null, with the other helpers at the end of this file, gives a
# list's first element, or null for an empty list, as the lookups of a
# not_sent label's evidence do too (task_first_crossing, task_first_open).
task_first_confirmation(sid, t) := first_or_null([x.seq | some x in scope_task_evidence[[sid, t]]; x.type in {"readback", "response"}; confirmation(x)])

first_confirmation(sid, id) := min(seqs) if {
	seqs := [c | some c in [task_first_confirmation(sid, id), lineage_summary(sid, id).conf]; c != null]
	count(seqs) > 0
} else := null

approach_crossing_or_retreat(f) if approach_or_crossing(f)

approach_crossing_or_retreat(f) if retreat(f)

# A task's evidence is its own and that of the tasks it resumes (its
# lineage): lineage_summary, at the end of this file, sums up the latter.

whose_evidence(id, g) := "its own" if g.task == id
else := sprintf("task %s's (which it resumes)", [g.task])

# METADATA
# scope: document
# title: Unreadable history
# description: An input could not be fully read, or a referenced task has no history.
# custom:
#   severity: high
unreadable_history contains f if {
	some inp in input.inputs
	count(inp.problems) > 0
	f := {
		"rule": "UNREADABLE_HISTORY",
		"severity": severity_of(rego.metadata.chain()),
		"key": null, "scope": null, "task": null,
		"message": sprintf("%s: %d part(s) could not be read; first at line %d: %s", [inp.path, count(inp.problems), inp.problems[0].line, inp.problems[0].message]),
		"evidence": [{"file": p.file, "line": p.line} | some p in inp.problems],
	}
}

unreadable_history contains f if {
	some t in input.tasks
	not t.history
	f := {
		"rule": "UNREADABLE_HISTORY",
		"severity": severity_of(rego.metadata.chain()),
		"key": null, "scope": null, "task": t.id,
		"message": sprintf("task %s is referenced but has no history in the inputs", [t.id]),
		"evidence": t.referenced_at,
	}
}

# A task with a history that is incomplete for another reason than its
# unreadable lines (reported above, by input): its history is inconsistent
# (events after its end, a resumes cycle) or continues one we cannot see.
unreadable_history contains f if {
	some t in input.tasks
	t.history
	not t.complete
	count(t.problems) == 0
	f := {
		"rule": "UNREADABLE_HISTORY",
		"severity": severity_of(rego.metadata.chain()),
		"key": null, "scope": null, "task": t.id,
		"message": sprintf("the history of task %s is incomplete: %s", [t.id, concat("; ", t.incomplete_because)]),
		"evidence": [t.start],
	}
}

# METADATA
# scope: document
# title: Unkeyed crossing
# description: Crossing evidence that cannot be tied to a key.
# custom:
#   severity: high
unkeyed_crossing contains f if {
	tasks := {g.task | some g in input.unkeyed; crossing(g)}
	some id in tasks
	cs := [g | some g in input.unkeyed; g.task == id; crossing(g)]
	f := {
		"rule": "UNKEYED_CROSSING",
		"severity": severity_of(rego.metadata.chain()),
		"key": null, "scope": null, "task": id,
		"message": sprintf("task %s: %d crossing event(s) not tied to a key: %s", [id, count(cs), cs[0].unkeyed_because]),
		"evidence": pointers(cs),
	}
}

# METADATA
# scope: document
# title: Unknown authorization
# description: An intent names an authorization with no record for its key.
# custom:
#   severity: high
unknown_authorization contains f if {
	some t in input.tasks
	some i in t.intents
	i.authorization != ""
	i.key != ""
	not authorized(i.authorization, i.key)
	f := {
		"rule": "UNKNOWN_AUTHORIZATION",
		"severity": severity_of(rego.metadata.chain()),
		"key": i.key, "scope": i.scope, "task": t.id,
		"message": sprintf("task %s's intent %s names authorization %q, which has no record for this key", [t.id, i.id, i.authorization]),
		"evidence": [i.at],
	}
}

# One lookup per intent, not a scan of every record: the set is built
# once per evaluation (a history with many redeliveries made the scan
# quadratic, issue 15).
authorized(id, key) if [id, key] in authorization_pairs

authorization_pairs contains [a.id, a.key] if some a in input.authorizations

# METADATA
# scope: document
# title: Ambiguous destination
# description: One display title is used for two different provider identities.
# custom:
#   severity: medium
ambiguous_destination contains f if {
	some title, uses in input.titles
	count(uses) >= 2
	f := {
		"rule": "AMBIGUOUS_DESTINATION",
		"severity": severity_of(rego.metadata.chain()),
		"key": null, "scope": null, "task": null,
		"message": sprintf("title %q names %d destinations: %s", [title, count(uses), concat(", ", [u.identity | some u in uses])]),
		"evidence": [u.at | some u in uses],
	}
}

# METADATA
# scope: document
# title: Weak destination identity
# description: A key built from a display title alone (two channels can share a title).
# custom:
#   severity: low
weak_destination_identity contains f if {
	some t in input.tasks
	some i in t.intents
	i.weak_destination
	f := {
		"rule": "WEAK_DESTINATION_IDENTITY",
		"severity": severity_of(rego.metadata.chain()),
		"key": i.key, "scope": i.scope, "task": t.id,
		"message": sprintf("task %s's intent %s names its destination by title only (%q)", [t.id, i.id, i.destination.title]),
		"evidence": [i.at],
	}
}

# METADATA
# scope: document
# title: Authorized redelivery
# description: A person authorized one more delivery; a new scope was opened.
# custom:
#   severity: info
authorized_redelivery contains f if {
	some a in input.authorizations
	a.key != ""
	f := {
		"rule": "AUTHORIZED_REDELIVERY",
		"severity": severity_of(rego.metadata.chain()),
		"key": a.key, "scope": a.id, "task": null,
		"message": sprintf("authorization %s by %s opened a new scope: %s", [a.id, a.by, a.reason]),
		"evidence": [a.at],
	}
}

findings := ((((((((((((duplicate_delivery | provider_deduplicated) | duplicate_risk_resume) | ignored_gate_stop) | stale_gate_decision) | unchecked_crossing) | no_recheck_after_interruption) | label_contradicts_evidence) | unreadable_history) | unkeyed_crossing) | unknown_authorization) | ambiguous_destination) | weak_destination_identity) | authorized_redelivery

# ---------------------------------------------------------------------------
# The gate (SPEC §5): may input.query.task proceed at input.query.checkpoint?

q := input.query

# The scopes the gate weighs: the one asked about, and every scope of the
# same content and scope name whose destination may be the same (SPEC §2:
# the gate treats "may be the same" as the same; keys stay exact).
q_scope := [s | some s in input.scopes; weighed_scope(s)]

weighed_scope(s) if s.id == q.scope_id

weighed_scope(s) if {
	s.id != q.scope_id
	q.key != ""
	s.content_sha256 == q.content_sha256
	s.scope == q.scope
	may_be_same_as_asked(s.destination)
}

# An authorization scope with no record for its key is weighed with the
# original scope too: its intents name an authorization with no record for
# their key, and their evidence counts in `original` (SPEC §4). The
# analyzer opens no such scope since 7 December (it keeps those intents in
# `original`, analyzer.Facts.Authorized); the rule stays so that the gate
# does not depend on that.
weighed_scope(s) if {
	s.id != q.scope_id
	q.key != ""
	q.scope == "original"
	s.scope != "original"
	s.content_sha256 == q.content_sha256
	not authorized(s.scope, s.key)
	may_be_same_as_asked(s.destination)
}

# The reverse: asked in an authorization's scope, an original scope whose
# tasks named this authorization, for a key its record does not give
# (UNKNOWN_AUTHORIZATION, so the analyzer kept them in `original`), is
# weighed too: if their destination is the record's after all (it may be
# the same), their delivery was the authorization's one more.
weighed_scope(s) if {
	s.id != q.scope_id
	q.key != ""
	q.scope != "original"
	s.scope == "original"
	s.content_sha256 == q.content_sha256
	may_be_same_as_asked(s.destination)
	some id in s.tasks
	some i in input.tasks[id].intents
	i.authorization == q.scope
	i.scope_id == s.id
}

# A destination may be the one asked about: by the rule of SPEC §2, or,
# known by title alone, by a title the history gives the asked identity
# (input.query.titles), though the asker named none.
may_be_same_as_asked(d) if may_be_same(d, q.destination)

may_be_same_as_asked(d) if {
	not strong_destination(d)
	folded_title(d) in {t | some t in q.titles}
}

# Asked by title alone: a provider identity the history gives that title
# (input.query.identities) may be the one asked about.
may_be_same_as_asked(d) if {
	strong_destination(d)
	some x in folded_identities(d)
	x in {i | some i in q.identities}
}

q_facts := [f | some s in q_scope; some f in s.facts]

# The weighed scopes' tasks, each once, in the order the scopes list them:
# a task is taken from the first weighed scope that lists it. (Looking
# back through the scopes before each was quadratic: a check weighing
# 2,000 scopes whose destinations differ only in letter case took 13 s,
# a tenth review, issue 15.)
q_tasks := [input.tasks[id] |
	some i, s in q_scope
	some id in s.tasks
	first_listing[id] == i
]

first_listing := {id: min(is) |
	some id in {id | some s in q_scope; some id in s.tasks}
	is := [i | some i, s in q_scope; some t in s.tasks; t == id]
}

# Destinations as SPEC §2 compares them: two may be the same when their
# identities differ at most in letter case (or, for URLs, in the provider
# http or https and the scheme, and more: folded_identities), or when one is known by
# title alone and the other carries that title.
may_be_same(a, b) if {
	strong_destination(a)
	strong_destination(b)
	some x in folded_identities(a)
	x in folded_identities(b)
}

may_be_same(a, b) if {
	not strong_destination(a)
	folded_title(a) != ""
	folded_title(a) == folded_title(b)
}

may_be_same(a, b) if {
	not strong_destination(b)
	folded_title(b) != ""
	folded_title(a) == folded_title(b)
}

strong_destination(d) if {
	trim_space(d.provider) != ""
	trim_space(d.id) != ""
}

known_destination(d) if strong_destination(d)

known_destination(d) if folded_title(d) != ""

# The identities under which a provider identity may be the same as
# another: it folded to what "may be the same" compares (letter case; for
# a URL, providers http and https being one kind of destination, its
# provider and scheme, either scheme's default port, and each of its
# path's readings: two of a browser's, curl's, a server's). The builtin
# effectlint.folded_identities is effect.Destination.FoldedIdentities
# itself, so the Go index that picks a check's scopes folds as the rules
# do (the rules once said it in Rego: a path's dot segments cost n log n
# there, 4-12 times Go's on a long path).
folded_identities(d) := effectlint.folded_identities(d.provider, d.id)

# Letter case folded as effect.FoldCase folds it: lower(upper(s)) equates
# what Unicode's simple case folding does (the long s and s, the final
# sigma and sigma), which lower alone does not.
fold_case(s) := lower(upper(s))

folded_title(d) := fold_case(concat(" ", [w | some w in regex.split(white_space_runs, trim_space(d.title)); w != ""])) if d.title

else := ""

own_facts := [f | some f in q_facts; f.task == q.task]

others_facts := [f | some f in q_facts; f.task != q.task]

other_tasks := [t | some t in q_tasks; t.id != q.task]

others_state := state_of(others_facts, other_tasks, null)

q_state := state_of(q_facts, q_tasks, null) if q.key != ""

else := null

# The asking task starts now when it has no history, or when its history
# holds no intent of the very scope asked about (it names the key on the
# command line, or holds only a scope that may be the same): its earlier
# start is not a claim on this key, and the tasks of the scope need not
# see it to defer to it (SPEC §5: one executor).
q_rank := input.tasks[q.task].start_rank if {
	q.task_known
	some s in q_scope
	s.id == q.scope_id
	q.task in s.tasks
} else := count(input.tasks)

running_others := [t | some t in other_tasks; running(t)]

earlier_running := [t | some t in running_others; t.start_rank < q_rank]

# A task that ended, or that a resuming task superseded, is not eligible
# (SPEC §5): asking again must not make it a second executor.
asker_finished if {
	q.task_known
	finished(input.tasks[q.task])
}

candidates := running_others if asker_finished

else := earlier_running

executor := null if {
	q.key == ""
} else := q.task if {
	not asker_finished
	count(earlier_running) == 0
} else := [t.id | some t in candidates; t.start_rank == candidates_first_rank][0] if {
	count(candidates) > 0
} else := null

# Each stop reason is one definition of stop with METADATA: its title, the
# contract's sentence, and its place in SPEC §5's order of reasons
# (custom.order), which reports and the check's first reason follow.
reason(meta, rule, message, facts) := {"order": order_of(meta), "rule": rule, "message": message, "evidence": pointers(facts)}

order_of(meta) := meta.custom.order

# METADATA
# title: Unknown task
# description: The asking task has no history and no intent was given; nothing says what it would deliver.
# custom:
#   order: 1
stop contains reason(rego.metadata.rule(), "UNKNOWN_TASK", sprintf("task %s has no history and no intent was given", [q.task]), []) if {
	not q.task_known
	not q.intent_given
}

# METADATA
# title: No key
# description: The asking task's key cannot be computed (its content path is unreadable, its digest or key malformed).
# custom:
#   order: 2
stop contains reason(rego.metadata.rule(), "NO_KEY", sprintf("no key for task %s: %s", [q.task, q.key_error]), []) if {
	q.key == ""
	task_or_intent_known
}

task_or_intent_known if q.task_known

task_or_intent_known if q.intent_given

# Every incomplete history may be relevant: its unreadable lines may hold an
# intent for this very key, and a task with no history may have crossed
# anything. Fail closed.
# METADATA
# title: History unreadable
# description: A history that is or may be relevant is incomplete or unreadable; no crossing can be ruled out. Fail closed.
# custom:
#   order: 3
stop contains r if {
	some t in incomplete_tasks
	not t.complete
	r := {
		"order": order_of(rego.metadata.rule()), "rule": "HISTORY_UNREADABLE",
		"message": sprintf("the history of task %s is incomplete (%s) and may concern this key", [t.id, concat("; ", t.incomplete_because)]),
		"evidence": array.concat(array.concat(t.problems, [t.start | t.history]), t.referenced_at),
	}
}

# METADATA
# title: History unreadable
# description: A history that is or may be relevant is incomplete or unreadable; no crossing can be ruled out. Fail closed.
# custom:
#   order: 3
stop contains r if {
	count(input.unattributed_problems) > 0
	r := {
		"order": order_of(rego.metadata.rule()), "rule": "HISTORY_UNREADABLE",
		"message": sprintf("%d unreadable part(s) of the inputs may belong to any task", [count(input.unattributed_problems)]),
		"evidence": input.unattributed_problems,
	}
}

# Crossings no key could be tied to (SPEC §4, "Unkeyed crossings"): each
# may have delivered this very file, unless its intent names a destination
# that cannot be this one. So may an approach of theirs that nothing
# resolved: the send control may have fired, or may be about to.
relevant_unkeyed := [unkeyed_candidates[i] | some i in sort(relevant_candidates)]

unkeyed_may_have_crossed(f) if crossing(f)

unkeyed_may_have_crossed(f) if {
	approach(f)
	not unkeyed_resolved(f)
}

# An unkeyed approach is resolved only by a later crossing or retreat of the
# same task, segment and reading: the intent the analyzer gives it and the
# task that declared it ("" for none); an ambiguous one (any of many readings)
# by none. Else another reading's retreat would count (stop 25's CI; a 17th
# review: a predecessor's id; a 23rd: a copy of nine readings, no intent).
unkeyed_resolved(a) if { not a.ambiguous; a.seq < unkeyed_last_resolution[[a.task, a.segment, fact_intent(a), fact_intent_task(a)]] }

# The seq of the last crossing or retreat of each task, segment and reading
# among the unkeyed facts, built once per evaluation: an approach before it
# is resolved. The gate first scanned every unkeyed fact for each unkeyed
# approach (3.5 s for a check over 50,000 events with delegated workers,
# issue 15), then the task's own facts for each of its approaches, still
# quadratic in one worker's history (an eighth review: 2,000 approaches and
# retreats of four workers, 1.5 s). Indexed by task and segment. An
# ambiguous retreat (of one of two tied intents) resolves nothing.
unkeyed_last_resolution := {k: max(seqs) |
	some k in {[f.task, f.segment, fact_intent(f), fact_intent_task(f)] | some f in input.unkeyed; crossing_or_retreat(f); not f.ambiguous}
	[t, s, i, d] := k
	seqs := [g.seq | some g in input.unkeyed; g.task == t; g.segment == s; crossing_or_retreat(g); not g.ambiguous; fact_intent(g) == i; fact_intent_task(g) == d]
}

# The destination an unkeyed crossing's intent names ({} when none).
unkeyed_destination(f) := f.unkeyed_destination if f.unkeyed_destination

else := {}

# METADATA
# title: Unkeyed crossing
# description: A crossing that cannot be tied to a key may have delivered this very file.
# custom:
#   order: 4
stop contains reason(rego.metadata.rule(), "UNKEYED_CROSSING", msg, relevant_unkeyed) if {
	count(relevant_unkeyed) > 0
	msg := sprintf("%d crossing(s) or unresolved approach(es) of task(s) %s cannot be tied to a key and may have delivered this one: %s", [count(relevant_unkeyed), concat(", ", tasks_of(relevant_unkeyed)), relevant_unkeyed[0].unkeyed_because])
}

# METADATA
# title: Unknown authorization
# description: The asking task's intent names an authorization with no record.
# custom:
#   order: 5
stop contains reason(rego.metadata.rule(), "UNKNOWN_AUTHORIZATION", sprintf("authorization %q has no record for key %s", [q.authorization, q.key]), []) if {
	q.authorization != ""
	q.key != ""
	not authorized(q.authorization, q.key)
}

# Consumption by evidence only: an incomplete history is HISTORY_UNREADABLE's
# reason, so KEY_CONSUMED always points at the facts that consumed the scope.
consumed_by := [f | some f in others_facts; consuming(f)]

# METADATA
# title: Key consumed
# description: Another task's evidence makes the scope sent_verified, send_status_unknown or in_flight, or another task holds an unresolved approach.
# custom:
#   order: 6
stop contains reason(rego.metadata.rule(), "KEY_CONSUMED", msg, consumed_by) if {
	others_state in consumed_states
	count(consumed_by) > 0
	msg := sprintf("the scope is %s by the evidence of task(s) %s%s", [others_state, concat(", ", tasks_of(consumed_by)), weighed_also])
}

# Names the other scopes the gate weighed, when there are any.
weighed_also := concat("", [weighed_same, weighed_unrecorded])

weighed_same := sprintf(" (with the scopes whose destination may be the same: %s)", [concat(", ", others)]) if {
	others := [s.key | some s in q_scope; s.id != q.scope_id; s.scope == q.scope]
	count(others) > 0
} else := ""

weighed_unrecorded := sprintf(" (with the scopes of intents whose authorization record may or may not be for their key: %s)", [concat(", ", others)]) if {
	others := [sprintf("%s scope %s", [s.key, s.scope]) | some s in q_scope; s.scope != q.scope]
	count(others) > 0
} else := ""

held_approaches := [a | some a in others_facts; not a.segment_ended; unresolved_weighed(a)]

# METADATA
# title: Key consumed
# description: Another task's evidence makes the scope sent_verified, send_status_unknown or in_flight, or another task holds an unresolved approach.
# custom:
#   order: 6
stop contains reason(rego.metadata.rule(), "KEY_CONSUMED", msg, held_approaches) if {
	count(held_approaches) > 0
	msg := sprintf("task(s) %s hold an unresolved approach (%s) and may be about to cross", [concat(", ", tasks_of(held_approaches)), concat(", ", [a.type | some a in held_approaches])])
}

# Facts that can consume a scope, shown as the reason's evidence.
consuming(f) if crossing(f)

consuming(f) if label_claims_sent(f)

consuming(f) if {
	f.segment_ended
	unresolved_weighed(f)
}

tasks_of(facts) := sort({f.task | some f in facts})

# Everything the asking task itself did that crossed, or may have.
own_crossed := [f | some f in own_facts; already_crossed(f)]

# METADATA
# title: Already crossed
# description: The asking task itself crossed before an interruption, or already fired a submission and asks again at send.
# custom:
#   order: 7
stop contains reason(rego.metadata.rule(), "ALREADY_CROSSED", msg, own_crossed) if {
	count(own_crossed) > 0
	msg := sprintf("task %s itself crossed or may have: %s", [q.task, concat(", ", [own_crossing_text(f) | some f in own_crossed])])
}

# A crossing in an ended segment: before an interruption (or the task's end).
already_crossed(f) if {
	crossing(f)
	f.segment_ended
}

already_crossed(f) if {
	crossing(f)
	not f.segment_ended
	not own_picker_before_send(f)
}

already_crossed(f) if label_claims_sent(f)

# An approach left unresolved when its segment ended: the send control may
# have fired.
already_crossed(f) if {
	f.segment_ended
	unresolved_weighed(f)
}

own_crossing_text(f) := sprintf("label %s at %s", [f.label, f.ts]) if f.type == "status"
else := sprintf("%s at %s, before its segment ended", [f.type, f.ts]) if f.segment_ended
else := sprintf("%s at %s", [f.type, f.ts])

# The task's own picker_accepted does not stop its own send check.
own_picker_before_send(f) if {
	f.type == "picker_accepted"
	q.checkpoint == "send"
}

# METADATA
# title: Not elected
# description: Several running tasks match the scope and the asking task is not the executor (the earliest started one), or it has ended or been superseded.
# custom:
#   order: 8
stop contains r if {
	not asker_finished
	executor != null
	executor != q.task
	r := {
		"order": order_of(rego.metadata.rule()), "rule": "NOT_ELECTED",
		"message": sprintf("task %s started earlier and is the elected executor", [executor]),
		"evidence": [input.tasks[executor].start],
	}
}

# METADATA
# title: Not elected
# description: Several running tasks match the scope and the asking task is not the executor (the earliest started one), or it has ended or been superseded.
# custom:
#   order: 8
stop contains r if {
	q.key != ""
	asker_finished
	t := input.tasks[q.task]
	r := {
		"order": order_of(rego.metadata.rule()), "rule": "NOT_ELECTED",
		"message": sprintf("task %s %s: it is not eligible to cross", [q.task, finished_text(t)]),
		"evidence": [t.start],
	}
}

finished_text(t) := sprintf("was superseded by task %s (which resumes it)", [t.superseded_by]) if {
	t.superseded_by != ""
} else := "has ended"

decision := "allow" if count(stop) == 0

else := "stop"

allow_reason := "AUTHORIZED_REDELIVERY" if {
	q.scope != "original"
} else := "ELECTED_EXECUTOR" if {
	count(running_others) > 0
} else := "PRIOR_NOT_SENT" if {
	count(other_tasks) > 0
} else := "NO_MATCHING_HISTORY"

allow_message := sprintf("authorization %s opened this scope and task %s is its executor", [q.scope, q.task]) if {
	allow_reason == "AUTHORIZED_REDELIVERY"
} else := sprintf("task %s is the earliest running task of the scope", [q.task]) if {
	allow_reason == "ELECTED_EXECUTOR"
} else := sprintf("every earlier task of the scope ended without crossing (%s)", [concat(", ", [t.id | some t in other_tasks])]) if {
	allow_reason == "PRIOR_NOT_SENT"
} else := "no other task in the inputs has this key scope"

gate := {
	"decision": decision,
	"state": q_state,
	"executor": executor,
	"reasons": reasons,
}

reasons := [r | some r in stop] if count(stop) > 0

else := [{"order": 0, "rule": allow_reason, "message": allow_message, "evidence": []}]

# ---------------------------------------------------------------------------
# Helpers for speed (appended so that every rule above keeps its line, which
# reports cite). A month of history is millions of facts, most of which no
# rule looks at twice; OPA evaluates a function call for every fact a scan
# meets, which costs several times an inline test. So scans test a fact's
# type first with a set literal (the types the predicate after it can hold
# for), the rules that compare each crossing with the scope's other facts
# list the scope's crossings and gate checks once, and the classes come
# from a table. Tests in policy/ hold each helper to the plain rule it
# stands for (helpers_test.go, crossingtypes_test.go, lineagesummary_test.go).

# The crossings of a list of facts, in order: crossing(f) holds exactly
# for these types.
crossings_of(facts) := [f | some f in facts; f.type in {"picker_accepted", "send_fired", "request_sent", "outgoing_item_seen", "readback", "response"}]

gate_checks_of(facts) := [f | some f in facts; f.type == "gate_check"]

# fact_class(f) == class(f) for every fact: most types decide the class
# alone; the others go through class.
fact_class(f) := c if {
	c := class_of_type[f.type]
} else := class(f) if {
	f.type in {"readback", "response", "gate_check"}
} else := "other"

class_of_type := {
	"picker_accepted": "crossing", "send_fired": "crossing", "request_sent": "crossing",
	"outgoing_item_seen": "crossing", "ui_changed": "uncertainty", "timeout": "uncertainty",
	"response_lost": "uncertainty", "failure_shown": "uncertainty", "interrupted": "uncertainty",
	"picker_opened": "approach", "picker_dismissed": "retreat", "status": "label",
}

# The fact types the rules above read in key scopes. A fact of any other
# type (task_started, intent, task_ended, a tool's output, a type this
# version does not know) has class "other" and decides nothing here, so the
# engine gives these rules only the scope facts of these types
# (policy/evaluate.go): a month of tool output costs reading, not
# evaluation. policy/typefilter_test.go holds this set to the rules (every
# event type named above is in it) and the filtered evaluation to the
# whole. Users' rules always see every fact.
scope_fact_types := {
	"picker_opened", "picker_accepted", "picker_dismissed", "send_fired", "request_sent",
	"outgoing_item_seen", "readback", "response", "ui_changed", "timeout", "response_lost",
	"failure_shown", "interrupted", "status", "gate_check",
}

# The unkeyed facts the rules read: crossings, approaches and retreats.
# relevant_unkeyed, unkeyed_resolved and unkeyed_crossing test no other
# type, so input.unkeyed holds only these (policy/input.go), as a scope
# holds only scope_fact_types: a check over delegated workers' histories
# weighed thousands of tool outputs and screen changes that could not
# change it (issue 15). policy/typefilter_test.go holds the set to
# crossing, approach and retreat.
unkeyed_fact_types := crossing_types | {"picker_opened", "picker_dismissed", "gate_check"}

# The crossing types (SPEC §2: the effect may have happened), defined once.
# The scans above test a fact's type against set literals, which OPA
# evaluates inline; reading this rule where each fact is tested cost 15-25 %
# of the evaluation (issue 12). So the literals that list crossings stay,
# as copies of this set that policy/crossingtypes_test.go holds to it: a
# literal that lists some crossing types must list all of them (with other
# types, for a predicate that holds for more than crossings), or be one of
# the named subsets (submissions, crossings gated at a checkpoint, the
# types that can confirm), and crossing(f), class_of_type and
# scope_fact_types must agree with it. Only unkeyed_fact_types, read once
# when the rules are compiled, evaluates it: no cost.
crossing_types := {"picker_accepted", "send_fired", "request_sent", "outgoing_item_seen", "readback", "response"}

# fact_intent is the intent a fact names, "" when it names none.
fact_intent(f) := i if {
	i := f.intent
} else := ""

# unresolved_within(within, a): a is an approach that nothing after it
# resolved, in key scope `within` (analyze), or, when within is null, in
# the scopes a check weighs. state_of asks it only when no confirmation
# decided the state: a list of a scope's open approaches, given to
# state_of, was built for every scope, and cost analyze about a tenth of
# its evaluation on histories whose deliveries are confirmed (issue 15).
unresolved_within(null, a) if unresolved_weighed(a)

unresolved_within(within, a) if {
	within != null # any other value: no resolution is found, so it counts
	a.type in {"picker_opened", "gate_check"}
	unresolved_in_scope(within, a)
}

# The seqs of the approaches of the scopes a check weighs that a crossing
# or retreat after them in their own scope resolved. others_facts and
# own_facts split q_facts by task, so this one set serves all three lists.
q_resolved := {a.seq | some s in q_scope; some a in s.facts; a.type in {"picker_opened", "gate_check"}; resolution_after[[s.id, a.seq]]}

# A run is a task segment's approaches, crossings, retreats, labels and gate
# checks in a key scope, in order (scope_runs): a test of the type alone, so
# the two scans of every fact that build it call no function. The other
# indexes of a scope's evidence read the runs, not the facts again
# (scope_task_evidence, first_resume_check): five scans made analyze about
# twice as slow as the per-scope scans they replaced, on histories of many
# small key scopes (issue 15). What only some facts need is a function OPA
# computes when asked and keeps (first_resume_check, task_first_open,
# task_first_confirmation, unresolved_within), not an object built for all.
#
# Cut at its crossings and retreats (its resolutions), a run falls into
# groups: the facts after one resolution and
# before the next, which resolves the group's approaches. Each run is read
# once (numbers.range gives the positions between two resolutions), so
# resolution_after and the labels' groups cost what the facts do.
#
# resolved_groups[[sid, r]]: the facts of a group of scope sid, r being the
# seq of the resolution that ends it.
resolved_groups := {[sid, run[p].seq]: group |
	some [sid, _, _], run in scope_runs
	resolutions := [i | some i, x in run; x.type in {"picker_dismissed", "picker_accepted", "send_fired", "request_sent", "outgoing_item_seen", "readback", "response"}]
	some j, p in resolutions
	from := previous_position(resolutions, j) + 1
	from < p
	group := [run[i] | some i in numbers.range(from, p - 1)]
}

previous_position(positions, j) := positions[j - 1] if j > 0

else := -1

scope_runs := {k: run |
	some k in {[s.id, f.task, f.segment] | some s in input.scopes; some f in s.facts; f.type in {"picker_opened", "picker_dismissed", "gate_check", "status", "picker_accepted", "send_fired", "request_sent", "outgoing_item_seen", "readback", "response"}}
	[sid, t, g] := k
	run := [x | some s in input.scopes; s.id == sid; some x in s.facts; x.task == t; x.segment == g; x.type in {"picker_opened", "picker_dismissed", "gate_check", "status", "picker_accepted", "send_fired", "request_sent", "outgoing_item_seen", "readback", "response"}]
}

# resolution_after[[sid, a.seq]]: the seq of the first crossing or retreat
# of a's task and segment after a, an approach of key scope sid, among that
# scope's facts (absent when none came).
resolution_after := {[sid, a.seq]: r |
	some [sid, r], group in resolved_groups
	some a in group
	approach(a)
}

# task_last_seq(sid, t): the seq of task t's last crossing, approach or
# retreat in scope sid. task_first_crossing(sid, t): its first crossing.
# task_first_open(sid, t): its first approach that nothing after it in the
# scope resolved. Functions, not objects: only the tasks a not_sent label
# weighs are read, once each (OPA keeps a function's answer for its
# arguments), where objects were built for every task of every scope.
task_last_seq(sid, t) := fs[count(fs) - 1].seq if fs := scope_task_evidence[[sid, t]]

task_first_crossing(sid, t) := g if {
	g := first_crossing_or_null(sid, t)
	g != null
}

task_first_open(sid, t) := g if {
	g := first_open_or_null(sid, t)
	g != null
}

# Defined for every task, so that OPA keeps the answer for each: an
# undefined answer is computed again at every call, once per label.
first_crossing_or_null(sid, t) := first_or_null([x | some x in scope_task_evidence[[sid, t]]; x.type in {"picker_accepted", "send_fired", "request_sent", "outgoing_item_seen", "readback", "response"}])

first_open_or_null(sid, t) := first_or_null([x | some x in scope_task_evidence[[sid, t]]; x.type in {"picker_opened", "gate_check"}; unresolved_in_scope(sid, x)])

first_or_null(xs) := xs[0] if count(xs) > 0

else := null

# label_group_approach[[sid, l.seq]]: the first approach before the not_sent
# label l in l's group, which a crossing or retreat after l resolves.
label_group_approach := {[sid, l.seq]: approaches[0] |
	some [sid, _], group in resolved_groups
	approaches := [g | some g in group; approach(g)]
	count(approaches) > 0
	some l in group
	l.type == "status"
	l.label == "not_sent"
	approaches[0].seq < l.seq
}

# The white space that parts a title's words in folded_title: Unicode's
# White_Space, as Go's unicode.IsSpace and the analyzer's keys and
# input.query.titles part them. RE2's \s is ASCII only: a title written
# with a no-break space was another title here than in the analyzer, a
# crossing known by it was not weighed, and a check allowed
# (testdata/adversarial/title-nbsp, TestFoldedTitle_IsTheAnalyzers).
white_space_runs := `[\t\n\v\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]+`

# fact_intent_task is the task that declared the intent an unkeyed fact is
# given, "" when none (an intent id is its task's own).
fact_intent_task(f) := t if {
	t := f.intent_task
} else := ""

# lineage_summary(sid, x) sums up what the tasks task x resumes (its
# lineage) hold in scope sid, for the labels of x: first, the first (least
# seq) of their first crossings and first open approaches; last, the seq of
# the last of their evidence (-1 for none); conf, the seq of the first of
# their confirmations (null for none). Only the tasks with facts in the
# scope count. When they are few (most scopes), each is looked for in the
# lineage (a scan OPA makes in Go); otherwise the lineage is summed up in
# blocks (lineage_blocks). Weighing each task of the lineage in turn was
# quadratic along a chain of labels (issue 15); so was summing up blocks
# for each of many scopes of one chain, each with one task or two.
# TestLineageSummary_AsTheScans holds both ways, and the rules that read
# them, to the scans they replace.
lineage_summary(sid, x) := lineage_members(sid, x) if {
	count(scope_fact_tasks(sid)) <= 64
} else := s if {
	s := lineage_blocks(sid, x)
} else := lineage_members(sid, x)

lineage_members(sid, x) := summary_of([task_summary(sid, t) |
	some t in scope_fact_tasks(sid)
	t in input.tasks[x].lineage
])

scope_fact_tasks(sid) := {f.task | some f in scope_by_id[sid].facts}

scope_by_id := {s.id: s | some s in input.scopes}

# lineage_blocks(sid, x) is lineage_summary in a few lookups, not one a task
# resumed: the lineage is cut into blocks of 8^k tasks (the digits of its
# length in base 8, the longest blocks first), and lift(k, sid, w) sums up
# the first 8^k tasks of w's lineage from eight blocks of 8^(k-1), each
# computed once (OPA keeps a function's answer for its arguments). Rego has
# no recursion, hence one function a level. It is exact: the lineage of the
# task at position p - 1 of x's lineage begins with x's lineage from p on
# (the same links, followed from the same task, end no earlier), and every
# block lies within x's lineage. Lineages of 8^7 tasks or more are scanned.
# A block needs the lineage of the task before it: analyze evaluates groups
# of key scopes, whose input lists only their own tasks, so where one is
# missing no block is summed up (undefined), and lineage_summary looks the
# scope's tasks up instead (a review: blocks left out silently lost and
# made label findings).
lineage_blocks(sid, x) := summary_of(blocks) if {
	n := count(input.tasks[x].lineage)
	n < lift_size[7]
	starts := [[k, lineage_start(x, p)] |
		some k in numbers.range(0, 6)
		rest := n % lift_size[k + 1]
		rest >= lift_size[k]
		some j in numbers.range(0, floor(rest / lift_size[k]) - 1)
		p := (n - rest) + j * lift_size[k]
	]
	blocks := [lift(k, sid, w) | some [k, w] in starts]
	count(blocks) == count(starts)
} else := summary_of([task_summary(sid, t) | some t in input.tasks[x].lineage]) if {
	count(input.tasks[x].lineage) >= lift_size[7]
}

lift_size := [1, 8, 64, 512, 4096, 32768, 262144, 2097152]

# The task whose lineage is x's from position p on.
lineage_start(x, 0) := x

lineage_start(x, p) := input.tasks[x].lineage[p - 1] if p > 0

lift(0, sid, w) := lift0(sid, w)

lift(1, sid, w) := lift1(sid, w)

lift(2, sid, w) := lift2(sid, w)

lift(3, sid, w) := lift3(sid, w)

lift(4, sid, w) := lift4(sid, w)

lift(5, sid, w) := lift5(sid, w)

lift(6, sid, w) := lift6(sid, w)

# Each level is undefined where a block of the level below is (a task whose
# lineage the input does not give).
lift0(sid, w) := task_summary(sid, input.tasks[w].lineage[0])

lift1(sid, w) := summary_of(parts) if {
	parts := [lift0(sid, lineage_start(w, j)) | some j in numbers.range(0, 7)]
	count(parts) == 8
}

lift2(sid, w) := summary_of(parts) if {
	parts := [lift1(sid, lineage_start(w, j * 8)) | some j in numbers.range(0, 7)]
	count(parts) == 8
}

lift3(sid, w) := summary_of(parts) if {
	parts := [lift2(sid, lineage_start(w, j * 64)) | some j in numbers.range(0, 7)]
	count(parts) == 8
}

lift4(sid, w) := summary_of(parts) if {
	parts := [lift3(sid, lineage_start(w, j * 512)) | some j in numbers.range(0, 7)]
	count(parts) == 8
}

lift5(sid, w) := summary_of(parts) if {
	parts := [lift4(sid, lineage_start(w, j * 4096)) | some j in numbers.range(0, 7)]
	count(parts) == 8
}

lift6(sid, w) := summary_of(parts) if {
	parts := [lift5(sid, lineage_start(w, j * 32768)) | some j in numbers.range(0, 7)]
	count(parts) == 8
}

# One task's part of a lineage summary.
task_summary(sid, t) := {
	"first": first_by_seq([g | some g in [first_crossing_or_null(sid, t), first_open_or_null(sid, t)]; g != null]),
	"last": task_last_or_none(sid, t),
	"conf": task_first_confirmation(sid, t),
}

task_last_or_none(sid, t) := s if {
	s := task_last_seq(sid, t)
} else := -1

summary_of(parts) := {
	"first": first_by_seq([s.first | some s in parts; s.first != null]),
	"last": max(array.concat([-1], [s.last | some s in parts])),
	"conf": first_or_null(sort([s.conf | some s in parts; s.conf != null])),
}

# first_by_seq: the fact of least seq, null for none.
first_by_seq(fs) := [g | some g in fs; g.seq == min([f.seq | some f in fs])][0] if count(fs) > 0

else := null

# task_segments(t): the segments of task t, in order (scope_task_evidence
# looks its runs up by segment: scanning every run of every scope for each
# task's was quadratic in the tasks of a scope, issue 15).
# A fact's segment is never past its task's last (the analyzer counts them
# as it reads); a task the input does not list has its runs' segments.
task_segments(t) := numbers.range(0, n) if {
	n := input.tasks[t].segment
} else := sort({g | some [_, u, g], _ in scope_runs; u == t})

# The least start rank among the candidates, computed once: the executor's
# comprehension computed it again for each candidate, quadratic in the
# tasks a check weighs (a broom of 2,000 resumers, issue 15).
candidates_first_rank := min([r.start_rank | some r in candidates])

# The tasks whose history is incomplete, and the unkeyed facts that may have
# crossed (a crossing, or an approach nothing resolved): the same for every
# question about one history, so the questions of one check share them
# (policy/shared.go), and each question then looks at these alone, not at
# every task and every unkeyed fact. A task with 800 intents over 50,000
# events of delegated workers ran past the 30 s limit (issue 15).
incomplete_tasks := [t | some t in input.tasks; not t.complete]

unkeyed_candidates := [f | some f in input.unkeyed; unkeyed_may_have_crossed(f)]

# The positions in unkeyed_candidates of those relevant to the question:
# any, when it has no key; those whose intent names no known destination;
# those whose destination may be the same as the one asked
# (may_be_same_as_asked). They are looked up by the question's
# destination in indexes of the candidates' destinations (built once per
# history, like the candidates), instead of testing every candidate for
# every question: 400 intents over 50,000 events of delegated workers took
# 4 s, all of it in that test (issue 15). Each body is one way
# may_be_same_as_asked or may_be_same can hold; TestRelevantCandidates
# holds this to that test of every candidate (unkeyed_relevant, kept in
# policy/relevantcandidates_test.go).
relevant_candidates contains i if {
	q.key == ""
	some i, _ in unkeyed_candidates
}

relevant_candidates contains i if some i in candidates_of_unknown_destination

relevant_candidates contains i if {
	d := q.destination
	strong_destination(d)
	some x in folded_identities(d)
	some i in candidates_by_identity[x]
}

relevant_candidates contains i if {
	t := folded_title(q.destination)
	t != ""
	some i in candidates_by_weak_title[t]
}

relevant_candidates contains i if {
	d := q.destination
	not strong_destination(d)
	t := folded_title(d)
	t != ""
	some i in candidates_by_title[t]
}

relevant_candidates contains i if {
	some t in q.titles
	some i in candidates_by_weak_title[t]
}

relevant_candidates contains i if {
	some x in q.identities
	some i in candidates_by_identity[x]
}

candidates_of_unknown_destination := [i | some i, f in unkeyed_candidates; not known_destination(unkeyed_destination(f))]

# [position, destination] of the candidates whose intent names one.
candidate_destinations := [[i, d] | some i, f in unkeyed_candidates; d := f.unkeyed_destination]

# [position, identity] of the candidates whose intent names a strong
# destination, once per identity it folds to.
identity_candidates := [[i, x] |
	some [i, d] in candidate_destinations
	strong_destination(d)
	some x in folded_identities(d)
]

candidates_by_identity := {x: is |
	some x in {x | some [_, x] in identity_candidates}
	is := [i | some [i, y] in identity_candidates; y == x]
}

candidates_by_weak_title := {t: is |
	some t in {folded_title(d) | some [_, d] in candidate_destinations; not strong_destination(d)}
	is := [i | some [i, d] in candidate_destinations; not strong_destination(d); folded_title(d) == t]
}

candidates_by_title := {t: is |
	some t in {folded_title(d) | some [_, d] in candidate_destinations}
	is := [i | some [i, d] in candidate_destinations; folded_title(d) == t]
}
