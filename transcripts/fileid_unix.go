//go:build unix

package transcripts

import (
	"os"
	"syscall"
)

// fileID names a file whatever the path it is reached by.
type fileID struct{ dev, ino uint64 }

func idOf(st os.FileInfo) (fileID, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(sys.Dev), uint64(sys.Ino)}, true
}
