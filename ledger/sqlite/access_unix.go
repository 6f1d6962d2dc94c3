//go:build unix

package sqlite

import "syscall"

// writable reports whether this process may write path (access(2), W_OK:
// it counts the file's mode, the process's identity and a read-only
// mount).
func writable(path string) bool { return syscall.Access(path, 2) == nil }
