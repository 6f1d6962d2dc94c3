package analyzer

import (
	"encoding/json"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// An Instant prints, as text and as JSON, what the string it replaced
// held (time.Format RFC 3339 with nanoseconds), and its text decodes back to
// itself: in UTC, at any offset (odd minutes and seconds too), in a
// zone with summer time, before year 1 and after 9999 (which time.Parse
// refuses), and at the zero time, which is the zero Instant.
func TestInstant_PrintsAsTheTimeItWasMadeFrom(t *testing.T) {
	named := []*time.Location{time.UTC, time.Local}
	for _, name := range []string{"America/New_York", "Asia/Kathmandu", "Europe/Dublin", "Australia/Lord_Howe"} {
		if l, err := time.LoadLocation(name); err == nil {
			named = append(named, l)
		}
	}
	check := func(t interface{ Fatalf(string, ...any) }, tm time.Time) {
		want := tm.Format(time.RFC3339Nano)
		i := InstantOf(tm)
		if got := i.String(); got != want {
			t.Fatalf("%v: String %q, want %q", tm, got, want)
		}
		b, err := json.Marshal(struct{ TS Instant }{i})
		if err != nil {
			t.Fatalf("%v", err)
		}
		w, _ := json.Marshal(struct{ TS string }{want})
		if string(b) != string(w) {
			t.Fatalf("%v: JSON %s, want %s", tm, b, w)
		}
		if !i.Time().Equal(tm) {
			t.Fatalf("%v: Time %v is another instant", tm, i.Time())
		}
		if _, off := tm.Zone(); off%60 != 0 {
			// RFC 3339 writes offsets to the minute: one of less than a
			// minute is written +00:00 and read back as Z. No reader
			// makes such times (they come from RFC 3339 text or are UTC).
			return
		}
		var back struct{ TS Instant }
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%v", err)
		}
		if got := back.TS.String(); got != want {
			t.Fatalf("%v: decoded %q, want %q", tm, got, want)
		}
	}
	check(t, time.Time{})
	if got := (Instant{}).String(); got != (time.Time{}).Format(time.RFC3339Nano) {
		t.Errorf("the zero Instant prints %q, not the zero time", got)
	}
	// Years time.Parse refuses, which Format writes: an OpenAI document
	// dated 9999-12-31T23:59:59.9995Z read a millisecond an item (a
	// review), and February 29 beyond them.
	check(t, time.Date(10000, 1, 1, 0, 0, 0, 1_500_000, time.UTC))
	check(t, time.Date(10400, 2, 29, 12, 0, 0, 0, time.FixedZone("", -(3*3600+30*60))))
	check(t, time.Date(-4, 2, 29, 23, 59, 59, 999_999_999, time.FixedZone("", 14*3600)))
	check(t, time.Date(0, 3, 1, 0, 0, 0, 0, time.UTC))
	check(t, time.Date(2026, 11, 30, 12, 45, 3, 0, time.FixedZone("", 5*3600+45*60)))
	check(t, time.Date(2026, 11, 30, 7, 0, 0, 1, time.FixedZone("", -(3*3600+30*60+17))))
	rapid.Check(t, func(r *rapid.T) {
		sec := rapid.Int64Range(-400_000_000_000, 400_000_000_000).Draw(r, "sec")
		nsec := rapid.SampledFrom([]int64{0, 1, 999_999_999, 500_000_000, rapid.Int64Range(0, 999_999_999).Draw(r, "ns")}).Draw(r, "nsec")
		var loc *time.Location
		if rapid.Bool().Draw(r, "fixed") {
			loc = time.FixedZone(rapid.SampledFrom([]string{"", "X", "UTC"}).Draw(r, "name"), rapid.IntRange(-18*3600, 18*3600).Draw(r, "off"))
		} else {
			loc = rapid.SampledFrom(named).Draw(r, "zone")
		}
		check(r, time.Unix(sec, nsec).In(loc))
	})
}
