//go:build unix

package cache

import (
	"os"
	"syscall"
)

// private reports whether only this user can have written the file or
// folder: owned by the effective user, writable by no one else. An entry
// is trusted like the program itself, so one that another user could have
// planted (a --cache folder shared with others) is no entry.
func private(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	return int(sys.Uid) == os.Geteuid() && st.Mode().Perm()&0o022 == 0
}
