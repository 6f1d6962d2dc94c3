package effect

import "fmt"

// Checkpoint is where a task asks the gate (SPEC §5).
type Checkpoint string

// The checkpoints, from the strictest.
const (
	Resume Checkpoint = "resume"
	Picker Checkpoint = "picker"
	Send   Checkpoint = "send"
)

// Checkpoints lists the checkpoints, from the strictest.
var Checkpoints = []Checkpoint{Resume, Picker, Send}

// ParseCheckpoint reads a checkpoint's name.
func ParseCheckpoint(s string) (Checkpoint, error) {
	for _, c := range Checkpoints {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("checkpoint must be resume, picker or send, not %q", s)
}

// The states of a key scope (SPEC §4). in_flight and open are not
// terminal.
const (
	SentVerified      = "sent_verified"
	SendStatusUnknown = "send_status_unknown"
	InFlight          = "in_flight"
	NotSent           = "not_sent"
	Open              = "open"
)

// Consumes reports whether a scope in this state is consumed for every
// other task: no timeout, interface change or lost response restores
// permission to cross; only an authorization (a new scope) can. The
// built-in rules' consumed_states is the same set (a test holds them to
// it).
func Consumes(state string) bool {
	return state == SentVerified || state == SendStatusUnknown || state == InFlight
}

// The severities of findings (SPEC §6), from the gravest.
const (
	Critical = "critical"
	High     = "high"
	Medium   = "medium"
	Low      = "low"
	Info     = "info"
)

// SeverityRank orders severities: 5 for critical down to 1 for info, 0
// for anything else.
func SeverityRank(s string) int {
	switch s {
	case Critical:
		return 5
	case High:
		return 4
	case Medium:
		return 3
	case Low:
		return 2
	case Info:
		return 1
	}
	return 0
}
