# Finance deliveries: an example of users' rules (README, "Your own rules").
#
# Rules see as `input` exactly what `effectlint facts` prints (plus
# `input.query` for check) and the data given with --data
# (examples/data/finance.yaml).
package effectlint.custom.finance

# METADATA
# title: Finance delivery without readback
# description: >-
#   A task submitted a delivery to a finance channel (data.finance.channels)
#   and did not read it back as confirmed afterwards. Finance channels need
#   readback confirmation.
# custom:
#   rule: FINANCE_UNCONFIRMED
#   severity: high
finding contains f if {
	some s in input.scopes
	s.destination.id in data.finance.channels
	some x in s.facts
	x.type in {"send_fired", "request_sent"}
	not confirmed_later(s.facts, x)
	f := {
		"rule": "FINANCE_UNCONFIRMED",
		# No "severity": it comes from the METADATA above.
		"message": sprintf("task %s submitted to finance channel %s without a confirmed readback", [x.task, s.destination.id]),
		"key": s.key,
		"scope": s.scope,
		"task": x.task,
		"evidence": [x.at],
	}
}

confirmed_later(facts, x) if {
	some y in facts
	y.task == x.task
	y.seq > x.seq
	y.type == "readback"
	y.result == "confirmed"
}

# A channel in data.finance.frozen takes no delivery at all: check stops.
stop contains {
	"rule": "FINANCE_FREEZE",
	"message": sprintf("finance channel %s is frozen: %s", [channel, data.finance.frozen[channel]]),
} if {
	channel := query_channel
	data.finance.frozen[channel]
}

# The channel the check asks about, read from the key:
# v1|dest=<provider>/<id>|sha256=<hex>.
query_channel := id if {
	some part in split(input.query.key, "|")
	startswith(part, "dest=")
	id := split(part, "/")[1]
}
