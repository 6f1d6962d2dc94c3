package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/effectlint/effectlint/ledger"
	sqlite "modernc.org/sqlite"
	lib "modernc.org/sqlite/lib"
)

// The kinds of failure a caller may want to tell apart (errors.Is). Every
// error of this package also names the file.
var (
	// ErrBusy: another connection held the write lock past the busy
	// timeout. The operation did nothing.
	ErrBusy = errors.New("the file is locked by another writer (busy) past the busy timeout")
	// ErrNotDatabase: the file is not a SQLite database.
	ErrNotDatabase = errors.New("the file is not a SQLite database")
	// ErrNotLedger: the file is a SQLite database of something else.
	ErrNotLedger = errors.New("the file is a SQLite database but not an effectlint ledger")
	// ErrDamaged: the database is truncated or corrupt.
	ErrDamaged = errors.New("the database is damaged (truncated or corrupt)")
	// ErrReadOnly: the file, its directory or its filesystem cannot be
	// written.
	ErrReadOnly = errors.New("the ledger cannot be written (read-only file, directory or filesystem)")
	// ErrNewerSchema: the file was written by a newer effectlint.
	ErrNewerSchema = errors.New("the ledger's schema is newer than this build")
)

// fail wraps an error of operation what on the store's file: the file's
// name, what was being done, the kind of failure when it is known, and the
// driver's own words.
func (s *Store) fail(what string, err error) error {
	return wrap(s.path, what, err, s.cfg.Busy())
}

func wrap(path, what string, err error, busy time.Duration) error {
	if err == nil || errors.Is(err, ledger.ErrInvalid) {
		return err
	}
	if kind := kindOf(path, err); kind != nil && !errors.Is(err, kind) {
		if kind == ErrBusy {
			return fmt.Errorf("ledger %s: %s: %w (%s): %w", path, what, kind, busy, err)
		}
		return fmt.Errorf("ledger %s: %s: %w: %w", path, what, kind, err)
	}
	return fmt.Errorf("ledger %s: %s: %w", path, what, err)
}

// kindOf tells which of the package's kinds of failure a driver error is
// (nil: none of them).
func kindOf(path string, err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			return ErrReadOnly
		}
		return nil
	}
	switch se.Code() & 0xff {
	case lib.SQLITE_BUSY, lib.SQLITE_LOCKED:
		return ErrBusy
	case lib.SQLITE_NOTADB:
		return ErrNotDatabase
	case lib.SQLITE_CORRUPT:
		return ErrDamaged
	case lib.SQLITE_IOERR:
		if se.Code() == lib.SQLITE_IOERR_SHORT_READ {
			return ErrDamaged
		}
	case lib.SQLITE_READONLY:
		return ErrReadOnly
	}
	if readOnly(path) {
		// SQLite says "unable to open database file" (CANTOPEN) when it
		// cannot create the file or its -wal and -shm companions.
		return ErrReadOnly
	}
	return nil
}

// readOnly reports whether this process cannot write the file (when it
// exists) or its directory, where SQLite keeps the -wal and -shm files.
func readOnly(path string) bool {
	if _, err := os.Stat(path); err == nil && !writable(path) {
		return true
	}
	return !writable(filepath.Dir(path))
}
