package cache

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

func TestStore_GetGivesBackWhatPutStored(t *testing.T) {
	s := Open(t.TempDir())
	if _, ok := s.Get("k"); ok {
		t.Fatal("an empty store has an entry")
	}
	for _, p := range [][]byte{{}, []byte("one"), bytes.Repeat([]byte{7}, 1<<20)} {
		if !s.Put("k", p) {
			t.Fatal("Put failed")
		}
		got, ok := s.Get("k")
		if !ok || !bytes.Equal(got, p) {
			t.Fatalf("Get = %d bytes, %t; want %d bytes", len(got), ok, len(p))
		}
	}
}

// Every damaged entry is a miss: a flipped bit anywhere, a cut, bytes
// added, another layout.
func TestStore_DamagedEntriesAreMisses(t *testing.T) {
	s := Open(t.TempDir())
	s.Put("k", []byte("the payload"))
	good, _ := os.ReadFile(s.path("k"))
	damage := map[string][]byte{"cut": good[:len(good)-1], "longer": append(append([]byte{}, good...), 0), "empty": {}, "header only": good[:headerLen]}
	for i := range good {
		b := append([]byte{}, good...)
		b[i] ^= 1
		damage["bit "+string(rune('a'+i%26))+string(rune('0'+i/26))] = b
	}
	for name, b := range damage {
		os.WriteFile(s.path("k"), b, 0o600)
		if got, ok := s.Get("k"); ok {
			t.Errorf("%s: Get = %q, want a miss", name, got)
		}
	}
}

// An entry another user could have written is never read.
func TestStore_EntriesOthersCanWriteAreMisses(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions")
	}
	s := Open(t.TempDir())
	s.Put("k", []byte("x"))
	p := s.path("k")
	for _, c := range []struct {
		path string
		mode os.FileMode
	}{{p, 0o622}, {filepath.Dir(p), 0o777}, {s.dir, 0o770}, {filepath.Dir(s.dir), 0o777}} {
		orig, _ := os.Stat(c.path)
		os.Chmod(c.path, c.mode)
		if _, ok := s.Get("k"); ok {
			t.Errorf("%s with mode %v: the entry was read", c.path, c.mode)
		}
		os.Chmod(c.path, orig.Mode().Perm())
	}
	if _, ok := s.Get("k"); !ok {
		t.Fatal("the entry is not read back once private again")
	}
}

// Concurrent writers of one key leave one whole entry, never a mix.
func TestStore_ConcurrentPutsLeaveOneWholeEntry(t *testing.T) {
	s := Open(t.TempDir())
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			p := bytes.Repeat([]byte{byte(g)}, 256<<10)
			for i := 0; i < 20; i++ {
				s.Put("k", p)
				if got, ok := s.Get("k"); ok && !bytes.Equal(got, bytes.Repeat(got[:1], len(got))) {
					t.Error("a mixed entry was read")
				}
			}
		}(g)
	}
	wg.Wait()
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(s.path("k")), ".tmp-*"))
	if len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// A folder that cannot be made is no failure, only no entry.
func TestStore_UnwritableFolderStoresNothing(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o600)
	s := Open(filepath.Join(f, "cache"))
	if s.Put("k", []byte("x")) {
		t.Fatal("Put under a file succeeded")
	}
	if _, ok := s.Get("k"); ok {
		t.Fatal("Get found an entry")
	}
}
