package sqlite

// SetSynchronous sets PRAGMA synchronous for the stores opened until
// restore is called: the benchmarks compare FULL with NORMAL.
func SetSynchronous(mode string) (restore func()) {
	old := synchronous
	synchronous = mode
	return func() { synchronous = old }
}
