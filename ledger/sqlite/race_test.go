//go:build race

package sqlite_test

// raceEnabled: the race detector slows SQLite (pure Go) several times
// over, so the process test runs fewer rounds.
const raceEnabled = true
