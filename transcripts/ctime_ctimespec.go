//go:build darwin || netbsd || freebsd

package transcripts

import "syscall"

func ctimeNs(s *syscall.Stat_t) int64 { return int64(s.Ctimespec.Sec)*1e9 + int64(s.Ctimespec.Nsec) }
