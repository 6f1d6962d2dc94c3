# Unit tests of external.rego: `effectlint verify examples/policies`.
package effectlint.custom.external_test

import data.effectlint.custom.external

submission(task, ts, line) := {"seq": line, "task": task, "type": "send_fired", "ts": ts, "segment": 0, "at": {"file": "mail.jsonl", "line": line}}

scope(key, address, facts) := {
	"id": concat("#", [key, "original"]), "key": key, "scope": "original",
	"destination": {"provider": "mail", "id": address, "title": ""},
	"tasks": [], "facts": facts,
}

domains := ["example.com"]

test_two_contents_to_one_external_domain_within_a_day if {
	fs := external.finding with input as {"scopes": [
		scope("k1", "cfo@partner.test", [submission("t1", "2026-11-29T09:00:00Z", 1)]),
		scope("k2", "ops@Partner.test", [submission("t2", "2026-11-29T18:30:00Z", 2)]),
	]}
		with data.company.domains as domains
	[f.task | some f in fs] == ["t2"]
	some f in fs
	f.evidence == [{"file": "mail.jsonl", "line": 1}, {"file": "mail.jsonl", "line": 2}]
	contains(f.message, "9h30m")
}

test_a_day_apart_is_fine if {
	fs := external.finding with input as {"scopes": [
		scope("k1", "cfo@partner.test", [submission("t1", "2026-11-29T09:00:00Z", 1)]),
		scope("k2", "cfo@partner.test", [submission("t2", "2026-11-30T09:00:00Z", 2)]),
	]}
		with data.company.domains as domains
	count(fs) == 0
}

test_own_domain_is_not_external if {
	fs := external.finding with input as {"scopes": [
		scope("k1", "a@example.com", [submission("t1", "2026-11-29T09:00:00Z", 1)]),
		scope("k2", "b@example.com", [submission("t2", "2026-11-29T10:00:00Z", 2)]),
	]}
		with data.company.domains as domains
	count(fs) == 0
}
