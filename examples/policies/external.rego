# External mail: an example of a rule across key scopes.
package effectlint.custom.external

# METADATA
# title: External domain got two deliveries in a day
# description: >-
#   Two submissions of different content to mail addresses of one external
#   domain (a domain not in data.company.domains) less than 24 hours apart.
# custom:
#   rule: EXTERNAL_TWICE_A_DAY
#   severity: medium
finding contains f if {
	some a in submissions
	some b in submissions
	a.domain == b.domain
	a.key != b.key
	a.ns < b.ns
	b.ns - a.ns < day_ns
	f := {
		"rule": "EXTERNAL_TWICE_A_DAY",
		"message": sprintf("%s got a second delivery %s after the first (task %s, then task %s)", [a.domain, duration(b.ns - a.ns), a.fact.task, b.fact.task]),
		"key": b.key,
		"scope": b.scope,
		"task": b.fact.task,
		"evidence": [a.fact.at, b.fact.at],
	}
}

day_ns := ((24 * 60) * 60) * 1000000000

# Every submission to an external mail domain, with its time in ns.
# time.parse_rfc3339_ns is deterministic and allowed; time.now_ns is not.
submissions := [s |
	some sc in input.scopes
	sc.destination.provider == "mail"
	domain := lower(split(sc.destination.id, "@")[1])
	not domain in data.company.domains
	some x in sc.facts
	x.type in {"send_fired", "request_sent"}
	s := {"domain": domain, "key": sc.key, "scope": sc.scope, "ns": time.parse_rfc3339_ns(x.ts), "fact": x}
]

duration(ns) := sprintf("%dh%02dm", [h, m]) if {
	minutes := floor(ns / 60000000000)
	h := floor(minutes / 60)
	m := minutes % 60
}
