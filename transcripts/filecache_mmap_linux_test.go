package transcripts

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/effectlint/effectlint/transcripts/cache"
)

// A write through a shared memory map into a page that is already dirty
// changes the bytes and no metadata at all: the kernel stamps mtime and
// ctime at the page's first write fault, not at later stores (an
// adversarial review: a cached check allowed where a read stopped, for a
// send_fired stored this way over a ui_changed). So metadata never proves
// an entry; the prefix's hash does.
func TestCache_WriteThroughASharedMapIsSeen(t *testing.T) {
	dir := t.TempDir()
	store := cache.Open(t.TempDir())
	a := filepath.Join(dir, "a.jsonl")
	before := `{"ts":"2026-11-30T07:00:03Z","task":"t1","type":"ui_changed"}`
	after := `{"ts":"2026-11-30T07:00:03Z","task":"t1","type":"send_fired"}`
	writeLines(t, a, cacheLines[0], cacheLines[1], before, cacheLines[4])
	f, err := os.OpenFile(a, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Written back first, so the page is clean and write-protected: the
	// next store faults, once.
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	m, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(m)
	storeByte(m, 0, m[0]) // the write fault: the page is dirty, its times stamped now
	metaBefore, _ := os.Stat(a)
	same(t, "cold", []string{a}, store)
	i := bytes.Index(m, []byte(before))
	if i < 0 || len(before) != len(after) {
		t.Fatal("test input")
	}
	copy(m[i:], after) // no fault: the page is still dirty
	metaAfter, _ := os.Stat(a)
	if !metaAfter.ModTime().Equal(metaBefore.ModTime()) {
		t.Logf("this kernel stamped the second store too (mtime %v → %v)", metaBefore.ModTime(), metaAfter.ModTime())
	}
	same(t, "after a store through the map", []string{a}, store)
}

// storeByte stores b at m[i]; not inlined, so the store of a byte's own
// value is not optimized away.
//
//go:noinline
func storeByte(m []byte, i int, b byte) { m[i] = b }
