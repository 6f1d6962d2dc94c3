package transcripts

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// zipOf writes a zip of the given members, each deflated.
func zipOf(t *testing.T, members map[string][]byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := zip.NewWriter(&out)
	for _, name := range sortedKeys(stringKeys(members)) {
		f, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		f.Write(members[name])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func stringKeys(m map[string][]byte) map[string]string {
	s := map[string]string{}
	for k := range m {
		s[k] = ""
	}
	return s
}

// sharedDataZip writes by hand an archive whose directory points k
// entries at one compressed stream (what no writer makes).
func sharedDataZip(body []byte, k int) []byte {
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	fw.Write(body)
	fw.Close()
	data := comp.Bytes()
	crc := crc32.ChecksumIEEE(body)
	var b bytes.Buffer
	put := func(vs ...any) {
		for _, v := range vs {
			binary.Write(&b, binary.LittleEndian, v)
		}
	}
	name := "0-trace.trace"
	put(uint32(0x04034b50), uint16(20), uint16(0), uint16(8), uint16(0), uint16(0), crc, uint32(len(data)), uint32(len(body)), uint16(len(name)), uint16(0))
	b.WriteString(name)
	b.Write(data)
	cdStart := b.Len()
	for i := 0; i < k; i++ {
		n := fmt.Sprintf("%d-trace.trace", i)
		put(uint32(0x02014b50), uint16(20), uint16(20), uint16(0), uint16(8), uint16(0), uint16(0), crc, uint32(len(data)), uint32(len(body)), uint16(len(n)), uint16(0), uint16(0), uint16(0), uint16(0), uint32(0), uint32(0))
		b.WriteString(n)
	}
	cdLen := b.Len() - cdStart
	put(uint32(0x06054b50), uint16(0), uint16(0), uint16(k), uint16(k), uint32(cdLen), uint32(cdStart), uint16(0))
	return b.Bytes()
}

func problemsWith(res Result, s string) int {
	n := 0
	for _, in := range res.Inputs {
		for _, p := range in.Problems {
			if strings.Contains(p.Message, s) {
				n++
			}
		}
	}
	return n
}

// Entries that share compressed data are refused before anything is
// inflated: the archive is a problem (a check on it stops), not k
// readings of one stream.
func TestZip_SharedDataRefused(t *testing.T) {
	trace := pwLines(pwCtx, pwPage, `{"type":"before","callId":"c@2","startTime":1200,"class":"Frame","method":"click","params":{"selector":"internal:role=button[name=\"Send\"i]"}}`)
	res, evs := readPW(t, Options{}, map[string][]byte{"t.zip": sharedDataZip([]byte(trace), 3)}, "t.zip")
	if problemsWith(res, "share compressed data") != 1 {
		t.Fatalf("problems %+v, want the shared data named", res.Inputs[0].Problems)
	}
	if len(evs) != 0 {
		t.Errorf("events %q from an archive refused", pwTypes(evs))
	}
	// The same trace in one honest entry is read.
	res, evs = readPW(t, Options{}, map[string][]byte{"t.zip": sharedDataZip([]byte(trace), 1)}, "t.zip")
	noProblems(t, res)
	if !strings.Contains(pwTypes(evs), "send_fired") {
		t.Errorf("events %q, want the send", pwTypes(evs))
	}
}

// What an input inflates is counted across its members and the archives
// inside it, against one budget proportional to its size.
func TestZip_InflationBudget(t *testing.T) {
	zeros := make([]byte, inflateFloor/2) // deflates to about 1/1000
	// Each member alone is far under the per-member limit; together
	// they pass the input's budget.
	three := zipOf(t, map[string][]byte{"a.zip": zeros, "b.zip": zeros, "c.zip": zeros})
	if budget := inflateFloor + inflateRatio*len(three); budget > 3*len(zeros) {
		t.Fatalf("test archive of %d bytes has a budget of %d: not past it", len(three), budget)
	}
	res, _ := readPW(t, Options{}, map[string][]byte{"t.zip": three}, "t.zip")
	if problemsWith(res, "inflates to more than") != 1 {
		t.Fatalf("problems %+v, want one naming the budget", res.Inputs[0].Problems)
	}
	// Nested: the inner archive's members count against the outer's
	// budget (levels multiply ratios).
	traces := zipOf(t, map[string][]byte{"0-trace.trace": zeros, "1-trace.trace": zeros, "2-trace.trace": zeros})
	nested := zipOf(t, map[string][]byte{"artifact/trace.zip": traces})
	res, _ = readPW(t, Options{}, map[string][]byte{"n.zip": nested}, "n.zip")
	if problemsWith(res, "inflates to more than") != 1 {
		t.Fatalf("problems %+v, want one naming the budget", res.Inputs[0].Problems)
	}
	// Two of them fit: no problem from the budget.
	two := zipOf(t, map[string][]byte{"a.zip": zeros, "b.zip": zeros[:len(zeros)-1]})
	res, _ = readPW(t, Options{}, map[string][]byte{"t.zip": two}, "t.zip")
	if n := problemsWith(res, "inflates to more than"); n != 0 {
		t.Fatalf("an archive within its budget: %d budget problems", n)
	}
}

// The budget's edge: exactly the budget reads; one byte more fails, with
// one problem however many reads fail after it.
func TestZip_InflatingReaderEdge(t *testing.T) {
	for _, tc := range []struct {
		n, budget int
		fail      bool
	}{{10, 10, false}, {11, 10, true}, {0, 0, false}, {1, 0, true}, {100000, 99999, true}, {99999, 99999, false}} {
		in := &Input{}
		b := &inflation{in: in, budget: int64(tc.budget), left: int64(tc.budget)}
		got, err := io.ReadAll(b.reader(bytes.NewReader(make([]byte, tc.n))))
		if fail := errors.Is(err, errInflation); fail != tc.fail || (err != nil && !fail) {
			t.Errorf("%d bytes, budget %d: err %v", tc.n, tc.budget, err)
		}
		if !tc.fail && len(got) != tc.n {
			t.Errorf("%d bytes, budget %d: read %d", tc.n, tc.budget, len(got))
		}
		if want := map[bool]int{true: 1, false: 0}[tc.fail]; len(in.Problems) != want {
			t.Errorf("%d bytes, budget %d: problems %+v", tc.n, tc.budget, in.Problems)
		}
		// Every budget here is spent: more bytes fail, and the problem
		// is not written again.
		io.ReadAll(b.reader(bytes.NewReader(make([]byte, 5))))
		io.ReadAll(b.reader(bytes.NewReader(make([]byte, 5))))
		if len(in.Problems) != 1 {
			t.Errorf("%d bytes, budget %d: after more reads, problems %+v", tc.n, tc.budget, in.Problems)
		}
	}
}

// A resource given to many calls is inflated once: a thousand pickers
// over one 1 MiB resource stay far inside the budget.
func TestZip_ResourceInflatedOnce(t *testing.T) {
	data := bytes.Repeat([]byte("resource bytes "), (1<<20)/15)
	lines := []string{pwCtx, pwPage}
	for i := 0; i < 1000; i++ {
		lines = append(lines, fmt.Sprintf(`{"type":"before","callId":"c@%d","startTime":%d,"class":"ElementHandle","method":"setInputFiles","params":{"payloads":[{"name":"b.txt","sha1":"0123abcd"}]}}`, i+2, 1200+i))
	}
	archive := zipOf(t, map[string][]byte{"trace.trace": []byte(pwLines(lines...)), "resources/0123abcd": data})
	res, evs := readPW(t, Options{}, map[string][]byte{"t.zip": archive}, "t.zip")
	noProblems(t, res)
	if n := strings.Count(pwTypes(evs), "picker_accepted"); n != 1000 {
		t.Fatalf("%d pickers, want 1000", n)
	}
}

// A gzipped archive is held to the budget of its compressed bytes: the
// archive it inflates to is spent first, and one that passes the budget
// while it is gunzipped is refused before it is held whole (the 51st
// review: a 438 KB .zip.gz of a 234 MB archive took 78 s).
func TestZip_GzippedArchiveBudgetedByItsOwnBytes(t *testing.T) {
	gz := func(b []byte) []byte {
		var out bytes.Buffer
		w := gzip.NewWriter(&out)
		w.Write(b)
		w.Close()
		return out.Bytes()
	}
	// An archive of stored (not deflated) zeros: gzip does the inflating.
	var big bytes.Buffer
	w := zip.NewWriter(&big)
	f, _ := w.CreateHeader(&zip.FileHeader{Name: "a.zip", Method: zip.Store})
	f.Write(make([]byte, 3*inflateFloor))
	w.Close()
	res, _ := readPW(t, Options{}, map[string][]byte{"t.zip.gz": gz(big.Bytes())}, "t.zip.gz")
	if problemsWith(res, "gzipped archive inflates to more than") != 1 {
		t.Fatalf("problems %+v, want the gzipped archive refused", res.Inputs[0].Problems)
	}
	// An honest archive gzipped is read as it is ungzipped.
	trace := pwLines(pwCtx, pwPage, `{"type":"before","callId":"c@2","startTime":1200,"class":"Frame","method":"click","params":{"selector":"internal:role=button[name=\"Send\"i]"}}`)
	honest := zipOf(t, map[string][]byte{"trace.trace": []byte(trace)})
	res, evs := readPW(t, Options{}, map[string][]byte{"t.zip.gz": gz(honest)}, "t.zip.gz")
	noProblems(t, res)
	if !strings.Contains(pwTypes(evs), "send_fired") {
		t.Errorf("events %q", pwTypes(evs))
	}
}

// A resource beside an unpacked trace that is no regular file (a FIFO)
// is not opened: opening it blocked the reader for ever.
func TestPlaywright_UnpackedResourceFIFOIsNotOpened(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	trace := pwLines(pwCtx, pwPage,
		`{"type":"before","callId":"c@3","startTime":1300,"class":"ElementHandle","method":"setInputFiles","params":{"payloads":[{"name":"b.txt","sha1":"0123abcd"}]}}`)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "trace.trace"), []byte(trace), 0o644)
	os.Mkdir(filepath.Join(dir, "resources"), 0o755)
	if err := mkfifo(filepath.Join(dir, "resources", "0123abcd")); err != nil {
		t.Skip(err)
	}
	done := make(chan []Event, 1)
	go func() {
		var evs []Event
		Read([]string{filepath.Join(dir, "trace.trace")}, Options{}, func(e Event) { evs = append(evs, e) })
		done <- evs
	}()
	select {
	case evs := <-done:
		if !strings.Contains(pwTypes(evs), "picker_accepted") {
			t.Errorf("events %q", pwTypes(evs))
		}
		for _, e := range evs {
			if c, ok := e.Fields["content"].(map[string]any); ok && c["sha256"] != nil {
				t.Errorf("a FIFO's content hashed: %v", c)
			}
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the reader was still blocked on the FIFO after 20 s")
	}
}
