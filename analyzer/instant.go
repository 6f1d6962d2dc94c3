package analyzer

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Instant is when a fact happened, as its history wrote it: the instant
// and the offset from UTC it was written with. It prints (String, JSON)
// exactly as time.Time.Format(time.RFC3339Nano) prints the time it was
// made from. It takes 16 bytes; the string it replaced took 16 and its
// 20–35 bytes of text apart, for each of a history's millions of facts
// (issue 15: facts are most of analyze's live heap).
//
// The zero Instant is the zero time.Time (January 1 of year 1, UTC).
type Instant struct {
	sec  int64 // seconds since the zero time
	nsec int32
	off  int32 // seconds east of UTC
}

// zeroUnix is the zero time's Unix seconds.
const zeroUnix = -62135596800

// InstantOf returns t's instant and offset.
func InstantOf(t time.Time) Instant {
	_, off := t.Zone()
	return Instant{sec: t.Unix() - zeroUnix, nsec: int32(t.Nanosecond()), off: int32(off)}
}

// Time returns the instant in a fixed zone of its offset.
func (i Instant) Time() time.Time {
	return time.Unix(i.sec+zeroUnix, int64(i.nsec)).In(zoneAt(i.off))
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
	t, err := parseRFC3339(s)
	if err != nil {
		return err
	}
	*i = InstantOf(t)
	return nil
}

// parseRFC3339 reads what time.Format(time.RFC3339Nano) writes, years
// outside 0000–9999 included: Format writes them with a sign or more
// digits (a reader that adds a millisecond to each item of a document
// dated 9999-12-31T23:59:59.9995Z makes year 10000), and time.Parse
// refuses them. Such a year is read as the year of the same place in the
// Gregorian calendar's 400-year cycle, then moved by whole cycles: the
// calendar repeats exactly, February 29 included.
func parseRFC3339(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err == nil {
		return t, nil
	}
	digits, neg := strings.CutPrefix(s, "-")
	end := strings.IndexByte(digits, '-')
	if end < 4 {
		return t, err
	}
	y, aerr := strconv.Atoi(digits[:end])
	if aerr != nil || y < 0 {
		return t, err
	}
	if neg {
		y = -y
	}
	inCycle := 2000 + (y%400+400)%400
	t, perr := time.Parse(time.RFC3339Nano, strconv.Itoa(inCycle)+digits[end:])
	if perr != nil {
		return t, err
	}
	return t.AddDate(y-inCycle, 0, 0), nil
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
