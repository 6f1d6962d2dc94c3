package ledger

import "testing"

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://pat:s3cret@db:5432/ledger":                         "postgres://pat:xxxxx@db:5432/ledger",
		"postgresql://pat@db/ledger":                                   "postgresql://pat@db/ledger",
		"postgres://db/ledger?user=pat&password=s3cret&sslmode=verify": "postgres://db/ledger?user=pat&password=xxxxx&sslmode=verify",
		"postgres://pat:a@b@db/ledger?password=c&x=1":                  "postgres://pat:xxxxx@db/ledger?password=xxxxx&x=1",
		"postgres://db/ledger?search_path=a@b":                         "postgres://db/ledger?search_path=a@b",
		"/var/lib/ledger.db":                                           "/var/lib/ledger.db",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
