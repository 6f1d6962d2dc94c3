//go:build unix

package effect

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A path a history names is hashed only when it is a regular file: a
// device never ends and a FIFO blocks its reader, and either hung a check
// (the 51st review). Each is refused at once, by name.
func TestHashRegularFile_RefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "r.pdf")
	os.WriteFile(plain, []byte("report"), 0o644)
	if got, err := HashRegularFile(plain); err != nil || got != mustHash(t, plain) {
		t.Fatalf("regular file: %q %v", got, err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(plain, link)
	if _, err := HashRegularFile(link); err != nil {
		t.Errorf("a symlink to a regular file is hashed: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zl := filepath.Join(dir, "zero-link")
	os.Symlink("/dev/zero", zl)
	cases := map[string]string{dir: "a directory", "/dev/zero": "a device", fifo: "a FIFO", zl: "a device"}
	for p, kind := range cases {
		if _, err := HashRegularFile(p); err == nil || !strings.Contains(err.Error(), kind) {
			t.Errorf("%s: err %v, want it refused as %s", p, err, kind)
		}
	}
}

func mustHash(t *testing.T, p string) string {
	t.Helper()
	h, err := HashFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
