// Package cache stores entries of bytes under keys in a directory, so
// that a later process finds them: the storage of the reader's cache of
// parsed facts (transcripts.Options.Cache). It knows nothing of what an
// entry means; it guarantees only that an entry read back is, byte for
// byte, one that some process wrote whole under that key:
//
//   - each entry is written to a temporary file in the same directory and
//     renamed over its name, so a reader sees the old entry or the new one,
//     never half of one, and concurrent writers of one key cannot
//     interleave (the last rename wins, whole);
//   - each entry carries a magic, this package's layout version and a
//     CRC-32C of the rest, so a truncated, corrupt or foreign file reads as
//     no entry at all (a miss), never as data.
//
// Every failure (a directory that cannot be made, a full disk, a read
// error) is a miss or an unsaved entry, never an error: a cache must not be
// able to fail the work it speeds up.
package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// Layout is the version of the entry envelope and of the directory
// layout; a store of another layout is never read (its entries live in
// another folder).
const Layout = 1

// magic starts every entry file.
var magic = [8]byte{'e', 'f', 'l', 'c', 'a', 'c', 'h', 'e'}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header: magic, layout (uint32), payload length (uint64), CRC-32C of the
// payload (uint32).
const headerLen = 8 + 4 + 8 + 4

// MaxEntryBytes bounds what Get reads: an entry claiming more is no entry.
const MaxEntryBytes = 4 << 30

// Store is a directory of entries. The zero Store is not usable; Open one.
// A Store is safe for concurrent use, and by concurrent processes.
type Store struct {
	dir string
}

// Open returns the store in dir (made when first written). It does not
// touch the file system.
func Open(dir string) *Store {
	return &Store{dir: filepath.Join(dir, "v1")}
}

// DefaultDir is the default cache folder: effectlint under the user's
// cache directory (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS, %LocalAppData% on Windows).
func DefaultDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "effectlint"), nil
}

// Dir is where the store keeps its entries.
func (s *Store) Dir() string { return s.dir }

// path names the file of a key: the key is hashed, so any string is a key
// and no key can name a path outside the store.
func (s *Store) path(key string) string {
	h := sha256.Sum256([]byte(key))
	name := hex.EncodeToString(h[:])
	return filepath.Join(s.dir, name[:2], name[2:])
}

// Get returns the payload last stored under key, or false when there is
// none that is whole and of this layout.
func (s *Store) Get(key string) ([]byte, bool) {
	f, err := os.Open(s.path(key))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var h [headerLen]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return nil, false
	}
	if [8]byte(h[:8]) != magic || binary.LittleEndian.Uint32(h[8:]) != Layout {
		return nil, false
	}
	n := binary.LittleEndian.Uint64(h[12:])
	if n > MaxEntryBytes {
		return nil, false
	}
	st, err := f.Stat()
	if err != nil || uint64(st.Size()) != headerLen+n {
		return nil, false // truncated, or longer than it says
	}
	if !private(st) || !s.privateDirs(filepath.Dir(s.path(key))) {
		return nil, false
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(f, payload); err != nil {
		return nil, false
	}
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(h[20:]) {
		return nil, false
	}
	return payload, true
}

// privateDirs reports whether the entry's folder, the store's folder and
// the folder it was opened in (--cache DIR) are writable by this user alone
// (no one else could have put an entry there, nor a folder of theirs in
// place of the store's).
func (s *Store) privateDirs(dir string) bool {
	for _, d := range []string{dir, s.dir, filepath.Dir(s.dir)} {
		st, err := os.Stat(d)
		if err != nil || !private(st) {
			return false
		}
	}
	return true
}

// Put stores payload under key, replacing what was there, and reports
// whether it did. A failure leaves the previous entry (or none) and no
// temporary file behind.
func (s *Store) Put(key string, payload []byte) bool {
	p := s.path(key)
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return false
	}
	var h [headerLen]byte
	copy(h[:], magic[:])
	binary.LittleEndian.PutUint32(h[8:], Layout)
	binary.LittleEndian.PutUint64(h[12:], uint64(len(payload)))
	binary.LittleEndian.PutUint32(h[20:], crc32.Checksum(payload, castagnoli))
	_, err = tmp.Write(h[:])
	if err == nil {
		_, err = tmp.Write(payload)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return false
	}
	return true
}

// Clear removes every entry of the store (and of older layouts): the
// whole cache folder's contents that this package wrote.
func Clear(dir string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if len(e.Name()) >= 2 && e.Name()[0] == 'v' && e.IsDir() {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
