package transcripts

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Forks. `claude --resume <id> --fork-session` (and /branch, and the
// SDK's forkSession) starts a new session whose file begins with a copy
// of its parent's history: the same lines under the new session's id,
// with their uuids and timestamps (2.1.197's --fork-session writes nothing
// else that names the parent; /branch adds forkedFrom {sessionId,
// messageUuid}). The new session is a task that resumes its parent, and
// the copied lines are the parent's: they count once, as the parent's,
// whichever file comes first in path order.
//
// Which session a shared line is the original of is decided before any
// input is read (claudeOwners): among the sessions whose lines are the
// same line (its uuid, or the uuid forkedFrom names, and the very same
// type and message text), the one that a forkedFrom names, else the one
// whose file began strictly first (its first record with a time: a fork's
// file begins with its own new prompt, later than the lines it copies).
// When neither tells (sessions that began at the same time: a proxy or a
// converter that reuses uuids), no session owns the line and the reader
// reads it once, for the session whose file comes first in path order. A session holding lines another owns
// resumes the owner of the last of them in its file. Lines of one
// session in several files (a session appended by --resume or
// --continue, copies of one file) and lines no other session holds are
// read as before.

// claudeForks is what the pre-read of the Claude Code inputs found.
type claudeForks struct {
	owner   map[string]string // copy key → the session that holds the original
	resumes map[string]string // session → the session it forked from
}

// claudeForkScanLineBytes bounds the lines the pre-read looks at, so that
// it costs little memory: a longer line (a tool's large output, say) is
// left to the reading itself, where a line read twice counts once, for
// the session whose file comes first in path order.
const claudeForkScanLineBytes = 1 << 20

// claudeCopyKey is what makes lines of two sessions one line: the uuid
// (of the original, where forkedFrom names it) and the exact text of what
// the line says. A line of a subagent or a progress copy has none.
func claudeCopyKey(t *claudeTop) (key, from string) {
	typ := t.typ.String()
	if t.isSidechain.Bool() || !claudeEvidenceTypes[typ] || typ == "progress" {
		return "", ""
	}
	u := t.uuid.String()
	if f := t.forkedFrom; f.IsObject() {
		from = f.Get("sessionId").String()
		if m := f.Get("messageUuid").String(); m != "" {
			u = m
		}
	}
	if u == "" {
		return "", ""
	}
	h := sha256.New()
	for _, part := range []string{u, typ, t.subtype.String(), t.message.Raw} {
		h.Write(unsafe.Slice(unsafe.StringData(part), len(part)))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), from
}

// claudeOwners pre-reads the Claude Code files among the sources (regular
// files only: standard input or a pipe cannot be read twice) and decides the owner of every
// line that several sessions hold.
func (rn *run) claudeOwners(srcs []source) claudeForks {
	type holding struct {
		session string
		from    string // forkedFrom's session
	}
	holders := map[string][]holding{} // copy key → sessions, in read order
	order := map[string][]string{}    // session → its copy keys, in file order
	start := map[string]time.Time{}   // session → its files' earliest beginning
	interned := map[string]string{}   // session ids, cloned once
	type keySession struct{ key, session string }
	held := map[keySession]bool{} // the holdings of holders
	for _, s := range srcs {
		if !s.file() {
			continue
		}
		if st, err := os.Stat(s.path); err != nil || !st.Mode().IsRegular() {
			continue // a pipe is read once, by its reader
		}
		br, closeFn, _, ok := rn.open(s, false)
		if !ok {
			continue
		}
		peek, err := br.Peek(64 << 10)
		format := rn.opt.InputFormat
		if format == "" {
			format = detect(peek, err != nil, rn.opt.Profile)
		}
		if format != FormatClaudeCode {
			closeFn()
			continue
		}
		began := map[string]bool{}
		lr := newLineReader(br, claudeForkScanLineBytes)
		for {
			l, err := lr.next()
			if err != nil {
				break
			}
			if l.tooLong || !validJSON(l.bytes) {
				continue
			}
			// A view of the line, no copy (a line may be tens of MB),
			// valid until the next line: what is kept of it (the
			// session ids) is cloned. Kept as views, they changed under
			// the maps that hold them when the reader reused its buffer,
			// and a file of many sessions lost most of them.
			t := claudeTopOf(gjson.Parse(unsafe.String(unsafe.SliceData(l.bytes), len(l.bytes))))
			session := t.sessionID.String()
			if session == "" {
				continue
			}
			if s, ok := interned[session]; ok {
				session = s
			} else {
				session = strings.Clone(session)
				interned[session] = session
			}
			ts, ok := parseTime(t.timestamp)
			if ok && !rn.opt.AsOf.IsZero() && ts.After(rn.opt.AsOf) {
				continue
			}
			if ok && !began[session] {
				began[session] = true
				if st, seen := start[session]; !seen || ts.Before(st) {
					start[session] = ts
				}
			}
			key, from := claudeCopyKey(&t)
			if key == "" {
				continue
			}
			from = strings.Clone(from)
			// One message copied into thousands of sessions: a scan of
			// the holders for this one was quadratic (issue 15).
			if ks := (keySession{key, session}); !held[ks] {
				held[ks] = true
				holders[key] = append(holders[key], holding{session, from})
			}
			order[session] = append(order[session], key)
		}
		closeFn()
	}
	f := claudeForks{owner: map[string]string{}, resumes: map[string]string{}}
	for key, hs := range holders {
		if len(hs) < 2 {
			continue
		}
		in := map[string]bool{}
		for _, h := range hs {
			in[h.session] = true
		}
		owner := ""
		for _, h := range hs {
			if h.from != "" && h.from != h.session && in[h.from] {
				owner = h.from // a copy that names its original
			}
		}
		if owner == "" {
			// The one that began strictly first; when none did, nothing
			// tells the copy from the original.
			var first string
			var at time.Time
			tied := false
			for _, h := range hs {
				t, ok := start[h.session]
				switch {
				case !ok:
				case first == "" || t.Before(at):
					first, at, tied = h.session, t, false
				case t.Equal(at):
					tied = true
				}
			}
			if first == "" || tied {
				continue
			}
			owner = first
		}
		f.owner[key] = owner
	}
	for session, keys := range order {
		for _, k := range keys {
			if o := f.owner[k]; o != "" && o != session {
				f.resumes[session] = o
			}
		}
	}
	// A chain of forks resumes its nearest ancestor; ownership by time is
	// a strict order, but forkedFrom can name anything:
	// a session that would resume itself through others resumes none.
	for _, s := range reachesCycle(f.resumes) {
		delete(f.resumes, s)
	}
	return f
}

// reachesCycle lists the sessions whose chain of resumes comes back to a
// session it passed (a cycle, or a chain that runs into one), in one walk
// of each session: walking every chain from every session was quadratic
// in a chain of thousands of forks (issue 15).
func reachesCycle(resumes map[string]string) []string {
	const (
		walking = 1 + iota // on the path being walked
		clear              // its chain ends
		cyclic             // its chain comes back
	)
	state := make(map[string]int, len(resumes))
	var out, path []string
	for s := range resumes {
		path = path[:0]
		end := clear
		for p := s; p != ""; p = resumes[p] {
			if st := state[p]; st != 0 {
				end = st
				if st == walking {
					end = cyclic
				}
				break
			}
			state[p] = walking
			path = append(path, p)
		}
		for _, p := range path {
			state[p] = end
			if end == cyclic {
				if _, ok := resumes[p]; ok {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// copiedFrom is the session that owns this line of session, when it is
// another's: the line is a copy, read as the owner's.
func (rn *run) copiedFrom(session string, t *claudeTop) string {
	if len(rn.forks.owner) == 0 {
		return ""
	}
	key, _ := claudeCopyKey(t)
	if o := rn.forks.owner[key]; o != "" && o != session {
		return o
	}
	return ""
}
