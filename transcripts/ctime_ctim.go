//go:build unix && !darwin && !netbsd && !freebsd

package transcripts

import "syscall"

func ctimeNs(s *syscall.Stat_t) int64 { return int64(s.Ctim.Sec)*1e9 + int64(s.Ctim.Nsec) }
