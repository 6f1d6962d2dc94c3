# Unit tests of finance.rego: `effectlint verify examples/policies`.
package effectlint.custom.finance_test

import data.effectlint.custom.finance

fact(seq, task, type) := {"seq": seq, "task": task, "type": type, "ts": sprintf("2026-11-29T17:00:%02dZ", [seq]), "segment": 0, "at": {"file": "t.jsonl", "line": seq}}

readback(seq, task, result) := object.union(fact(seq, task, "readback"), {"result": result})

world(channel, facts) := {"scopes": [{
	"id": "k#original", "key": "k", "scope": "original",
	"destination": {"provider": "slack", "id": channel, "title": ""},
	"tasks": ["t1"], "facts": facts,
}]}

channels := ["C024BE91L"]

test_send_without_readback_is_a_finding if {
	fs := finance.finding with input as world("C024BE91L", [fact(1, "t1", "send_fired")])
		with data.finance.channels as channels
	count(fs) == 1
	some f in fs
	f.rule == "FINANCE_UNCONFIRMED"
	f.task == "t1"
	f.evidence == [{"file": "t.jsonl", "line": 1}]
}

test_unavailable_readback_is_not_a_confirmation if {
	fs := finance.finding with input as world("C024BE91L", [fact(1, "t1", "send_fired"), readback(2, "t1", "unavailable")])
		with data.finance.channels as channels
	count(fs) == 1
}

test_confirmed_send_is_fine if {
	fs := finance.finding with input as world("C024BE91L", [fact(1, "t1", "send_fired"), readback(2, "t1", "confirmed")])
		with data.finance.channels as channels
	count(fs) == 0
}

test_other_channels_are_not_finance if {
	fs := finance.finding with input as world("C0GENERAL", [fact(1, "t1", "send_fired")])
		with data.finance.channels as channels
	count(fs) == 0
}

test_frozen_channel_stops if {
	rs := finance.stop with input as {"query": {"key": "v1|dest=slack/C0FROZEN1|sha256=00"}}
		with data.finance.frozen as {"C0FROZEN1": "quarter-end close"}
	[r.rule | some r in rs] == ["FINANCE_FREEZE"]
}

test_other_channel_is_not_frozen if {
	rs := finance.stop with input as {"query": {"key": "v1|dest=slack/C024BE91L|sha256=00"}}
		with data.finance.frozen as {"C0FROZEN1": "quarter-end close"}
	count(rs) == 0
}
