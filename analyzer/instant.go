package analyzer

import (
	"encoding/json"
	"sync"
	"time"
)

// Instant is when a fact happened, as its history wrote it: the instant
// and the offset from UTC it was written with. It prints (String, JSON)
// exactly as time.Time.Format(time.RFC3339Nano) prints the time it was
// made from. It takes 16 bytes; the string it replaced took 16 and its
// 20–35 bytes of text apart, for each of a history's millions of facts
// (issue 15: facts are most of analyze's live heap).
type Instant struct {
	sec  int64
	nsec int32
	off  int32 // seconds east of UTC
}

// InstantOf returns t's instant and offset.
func InstantOf(t time.Time) Instant {
	_, off := t.Zone()
	return Instant{sec: t.Unix(), nsec: int32(t.Nanosecond()), off: int32(off)}
}

// Time returns the instant in a fixed zone of its offset.
func (i Instant) Time() time.Time {
	return time.Unix(i.sec, int64(i.nsec)).In(zoneAt(i.off))
}

// String is the instant in RFC 3339 with nanoseconds, trailing zeros cut.
func (i Instant) String() string { return i.Time().Format(time.RFC3339Nano) }

// MarshalJSON writes String as a JSON string.
func (i Instant) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 40)
	b = append(b, '"')
	b = i.Time().AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}

// UnmarshalJSON reads an RFC 3339 string, so that the output of
// `effectlint facts` decodes back into Facts.
func (i *Instant) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	*i = InstantOf(t)
	return nil
}

// zones holds a fixed zone for each offset met (a history uses a few).
var zones sync.Map // int32 → *time.Location

func zoneAt(off int32) *time.Location {
	if off == 0 {
		return time.UTC
	}
	if z, ok := zones.Load(off); ok {
		return z.(*time.Location)
	}
	z, _ := zones.LoadOrStore(off, time.FixedZone("", int(off)))
	return z.(*time.Location)
}
