//go:build !unix

package cache

import "os"

// private: elsewhere than Unix the folder's access control is the user's
// profile folder's.
func private(os.FileInfo) bool { return true }
