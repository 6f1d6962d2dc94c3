//go:build !unix

package sqlite

import "os"

// writable reports whether this process may write path, as far as the
// file's mode tells.
func writable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().Perm()&0o200 != 0
}
