package sqlite_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
	"github.com/effectlint/effectlint/ledger/sqlite"
)

func TestNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	junk := make([]byte, 64<<10)
	if _, err := rand.Read(junk); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := sqlite.Open(context.Background(), path, ledger.Config{})
	wantErr(t, "open", err, sqlite.ErrNotDatabase, path, "not a SQLite database")
	if got, _ := os.ReadFile(path); !bytes.Equal(got, junk) {
		t.Error("a failed open changed the file")
	}
	_, err = ledger.Open(context.Background(), "sqlite:"+path, ledger.Config{})
	wantErr(t, "ledger.Open", err, sqlite.ErrNotDatabase, path)

	_, err = sqlite.Open(context.Background(), t.TempDir(), ledger.Config{})
	wantErr(t, "open a directory", err, sqlite.ErrNotDatabase, "not a SQLite database")
}

func TestAnotherProgramsDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(path)
	_, err = sqlite.Open(context.Background(), path, ledger.Config{})
	wantErr(t, "open", err, sqlite.ErrNotLedger, path, "not an effectlint ledger")
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("opening another program's database changed it")
	}
}

func TestTruncatedDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path, ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if _, err := s.Claim(ctx, claimReq(t, "a", ledgertest.Key(i), time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil { // the last connection checkpoints the WAL into the file
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	_, err = sqlite.Open(ctx, path, ledger.Config{})
	wantErr(t, "open", err, sqlite.ErrDamaged, path, "damaged")
	_, err = sqlite.Init(ctx, path, ledger.Config{})
	wantErr(t, "init", err, sqlite.ErrDamaged, path)
}

// A transaction that fails part way leaves nothing: a trigger makes the
// journal refuse the entry after the record was saved.
func TestFailedOperationLeavesNoTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	ctx := context.Background()
	s := fixtureLedger(t, path, ledger.Config{})
	defer s.Close()
	before := state(t, s)
	raw := rawDB(t, path, 1000)
	if _, err := raw.Exec(`CREATE TRIGGER fail BEFORE INSERT ON journal BEGIN SELECT RAISE(ABORT, 'injected failure'); END`); err != nil {
		t.Fatal(err)
	}
	for op, f := range writes(ledgertest.Key(1)) {
		res, err := f(s)
		if err == nil || !strings.Contains(err.Error(), "injected failure") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want the injected failure naming the file", op, err)
		}
		if res.Granted || res.Reasons != nil {
			t.Errorf("%s: answered %+v besides its error", op, res)
		}
	}
	if after := state(t, s); after != before {
		t.Errorf("failed operations changed the ledger:\n%s\nwas\n%s", after, before)
	}
	if _, err := raw.Exec(`DROP TRIGGER fail`); err != nil {
		t.Fatal(err)
	}
	// The fixture granted tokens 1 and 2; the failed claim's token went
	// with its transaction.
	r, err := s.Claim(ctx, claimReq(t, "w", ledgertest.Key(2), time.Minute))
	if err != nil || !r.Granted || r.Token != 3 {
		t.Fatalf("claim after: %+v %v", r, err)
	}
}

// rawDB is a connection of the test's own to the file, outside the store.
func rawDB(t testing.TB, path string, busyMS int) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_busy_timeout="+strconv.Itoa(busyMS))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// Another connection holds the write lock (BEGIN EXCLUSIVE) past the
// store's busy timeout: every write fails with ErrBusy, naming the file,
// and leaves no trace; reading goes on (WAL readers do not wait for
// writers); once the lock is released, writing works again.
func TestLockedPastTheBusyTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	ctx := context.Background()
	busy := 150 * time.Millisecond
	s := fixtureLedger(t, path, ledger.Config{BusyTimeout: busy})
	defer s.Close()
	before := state(t, s)

	raw := rawDB(t, path, 0)
	conn, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	for op, f := range writes(ledgertest.Key(1)) {
		start := time.Now()
		res, err := f(s)
		took := time.Since(start)
		wantErr(t, op, err, sqlite.ErrBusy, path, "locked", "busy")
		if res.Granted || res.Reasons != nil {
			t.Errorf("%s: answered %+v besides its error", op, res)
		}
		if took < busy-10*time.Millisecond || took > busy+2*time.Second {
			t.Errorf("%s: failed after %s, want about the busy timeout %s", op, took, busy)
		}
	}
	if got := state(t, s); got != before {
		t.Errorf("reading while locked:\n%s\nwant\n%s", got, before)
	}
	if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if got := state(t, s); got != before {
		t.Errorf("operations that failed on the lock changed the ledger:\n%s\nwas\n%s", got, before)
	}
	r, err := s.Claim(ctx, claimReq(t, "w", ledgertest.Key(2), time.Minute))
	if err != nil || !r.Granted {
		t.Fatalf("claim after the lock: %+v %v", r, err)
	}
}

func TestReadOnly(t *testing.T) {
	for _, scenario := range []string{"file", "directory", "new"} {
		t.Run(scenario, func(t *testing.T) {
			dir, err := os.MkdirTemp("", "effectlint-ro-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o755); os.RemoveAll(dir) })
			path := filepath.Join(dir, "ledger.db")
			var before string
			if scenario != "new" {
				s := fixtureLedger(t, path, ledger.Config{})
				before = state(t, s)
				s.Close()
				if err := os.Chmod(path, 0o444); err != nil {
					t.Fatal(err)
				}
			}
			dirMode := os.FileMode(0o555)
			if scenario == "file" {
				dirMode = 0o777
			}
			if err := os.Chmod(dir, dirMode); err != nil {
				t.Fatal(err)
			}
			var problems []string
			if os.Geteuid() != 0 {
				problems = readOnlyProblems(scenario, path)
			} else {
				// Root writes whatever the modes say: the checks run in a
				// process of user nobody, for whom they hold.
				problems = asNobody(t, scenario, path)
			}
			for _, p := range problems {
				t.Error(p)
			}
			if scenario != "new" {
				os.Chmod(dir, 0o755)
				os.Chmod(path, 0o644)
				s, err := sqlite.Open(context.Background(), path, ledger.Config{})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if after := state(t, s); after != before {
					t.Errorf("the read-only ledger changed:\n%s\nwas\n%s", after, before)
				}
			}
		})
	}
	// A read-only filesystem (EROFS), where root is refused too.
	t.Run("filesystem", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("mounting a read-only filesystem needs root")
		}
		dir := t.TempDir()
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=16m,mode=0755"); err != nil {
			t.Skipf("cannot mount a tmpfs here (%v): the read-only file, directory and new-file cases stand", err)
		}
		t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
		path := filepath.Join(dir, "ledger.db")
		fixtureLedger(t, path, ledger.Config{}).Close()
		if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
			t.Skipf("cannot remount the tmpfs read-only: %v", err)
		}
		_, err := sqlite.Open(context.Background(), path, ledger.Config{})
		wantErr(t, "open on a read-only filesystem", err, sqlite.ErrReadOnly, path, "read-only")
		_, err = sqlite.Open(context.Background(), filepath.Join(dir, "sub", "new.db"), ledger.Config{})
		wantErr(t, "create on a read-only filesystem", err, sqlite.ErrReadOnly, filepath.Join(dir, "sub", "new.db"), "read-only")
	})
}

// asNobody runs readOnlyProblems in a helper process of user nobody
// (65534), from a copy of the test binary that user may run.
func asNobody(t *testing.T, scenario, path string) []string {
	t.Helper()
	bin, err := os.MkdirTemp("", "effectlint-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(bin) })
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, exe, filepath.Join(bin, "sqlite.test"), 0o755)
	cmd := helper(t, "readonly", "SCENARIO="+scenario, "LEDGER="+path)
	cmd.Path = filepath.Join(bin, "sqlite.test")
	cmd.Dir = bin
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.Output()
	if errors.Is(err, syscall.EPERM) {
		t.Skipf("cannot start a process as user nobody (%v)", err)
	}
	if err != nil {
		t.Fatalf("helper as nobody: %v\n%s", err, out)
	}
	var problems []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		problems = append(problems, sc.Text())
	}
	return problems
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// Damage inside the file that Open does not read (a page of the journal)
// is found by Init's quick_check.
func TestInitFindsDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path, ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if _, err := s.Claim(ctx, claimReq(t, "a", ledgertest.Key(i), time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	// The b-tree header of the page before the last one: garbage.
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xa5}, 64), fi.Size()-2*4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, err = sqlite.Open(ctx, path, ledger.Config{})
	if err != nil {
		t.Fatalf("open reads only the schema's pages: %v", err)
	}
	s.Close()
	_, err = sqlite.Init(ctx, path, ledger.Config{})
	wantErr(t, "init", err, sqlite.ErrDamaged, path, "damaged")
}
