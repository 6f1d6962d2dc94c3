package transcripts

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"pgregory.net/rapid"

	"github.com/effectlint/effectlint/internal/sharedtest"
)

// claudeTopPaths are the paths the readers looked up with r.Get before
// claudeTop; the one-pass view must give each the same result.
var claudeTopPaths = map[string]func(t *claudeTop) gjson.Result{
	"sessionId":       func(t *claudeTop) gjson.Result { return t.sessionID },
	"type":            func(t *claudeTop) gjson.Result { return t.typ },
	"subtype":         func(t *claudeTop) gjson.Result { return t.subtype },
	"timestamp":       func(t *claudeTop) gjson.Result { return t.timestamp },
	"uuid":            func(t *claudeTop) gjson.Result { return t.uuid },
	"cwd":             func(t *claudeTop) gjson.Result { return t.cwd },
	"isSidechain":     func(t *claudeTop) gjson.Result { return t.isSidechain },
	"agentId":         func(t *claudeTop) gjson.Result { return t.agentID },
	"forkedFrom":      func(t *claudeTop) gjson.Result { return t.forkedFrom },
	"message":         func(t *claudeTop) gjson.Result { return t.message },
	"data":            func(t *claudeTop) gjson.Result { return t.data },
	"parentToolUseID": func(t *claudeTop) gjson.Result { return t.parentToolUseID },
	"toolUseResult":   func(t *claudeTop) gjson.Result { return t.toolUseResult },
}

// nestedPaths are looked up under a field only on lines without repeated
// keys (the main reading); the view must agree with gjson's path there.
var nestedPaths = map[string]func(t *claudeTop) gjson.Result{
	"message.content":       func(t *claudeTop) gjson.Result { return t.content() },
	"data.type":             func(t *claudeTop) gjson.Result { return t.data.Get("type") },
	"data.message":          func(t *claudeTop) gjson.Result { return t.data.Get("message") },
	"data.agentId":          func(t *claudeTop) gjson.Result { return t.data.Get("agentId") },
	"toolUseResult.agentId": func(t *claudeTop) gjson.Result { return t.toolUseResult.Get("agentId") },
}

func sameResult(a, b gjson.Result) bool {
	return a.Type == b.Type && a.Raw == b.Raw && a.Str == b.Str && a.Num == b.Num && a.Exists() == b.Exists()
}

// fataler is what checkClaudeTop needs of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

func checkClaudeTop(t fataler, line string) {
	t.Helper()
	if !gjson.Valid(line) {
		return
	}
	r := gjson.Parse(line)
	top := claudeTopOf(r)
	for path, get := range claudeTopPaths {
		if want, got := r.Get(path), get(&top); !sameResult(want, got) {
			t.Fatalf("%s of %s: Get gives %q (%v), the view %q (%v)", path, line, want.Raw, want.Type, got.Raw, got.Type)
		}
	}
	if reps, _ := repeatedKeys(line, 1); len(reps) > 0 {
		return
	}
	for path, get := range nestedPaths {
		if want, got := r.Get(path), get(&top); !sameResult(want, got) {
			t.Fatalf("%s of %s: Get gives %q (%v), the view %q (%v)", path, line, want.Raw, want.Type, got.Raw, got.Type)
		}
	}
}

// claudeLinesUnder checks every Claude Code line of the .jsonl files
// under root and returns how many there were.
func claudeLinesUnder(t *testing.T, root string) int {
	lines := 0
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"sessionId"`) {
				checkClaudeTop(t, sc.Text())
				lines++
			}
		}
		return nil
	})
	return lines
}

// TestClaudeTopSameAsGet_Corpus: every line of the real sessions.
func TestClaudeTopSameAsGet_Corpus(t *testing.T) {
	if claudeLinesUnder(t, sharedtest.Path(t, "corpus/claude-code")) == 0 {
		t.Fatal("no Claude Code line found in the corpus")
	}
}

// TestClaudeTopSameAsGet: every line of every Claude Code session in
// testdata, and generated objects with repeated keys, escaped keys and
// values of every type where objects are expected.
func TestClaudeTopSameAsGet(t *testing.T) {
	if claudeLinesUnder(t, "../testdata") == 0 {
		t.Fatal("no Claude Code line found in testdata")
	}
	keys := []string{"sessionId", "type", "subtype", "timestamp", "uuid", "cwd", "isSidechain", "agentId",
		"forkedFrom", "message", "data", "parentToolUseID", "toolUseResult", "content", "agentId", "other", `t\u0079pe`, `u\u0075id`, ""}
	values := []string{`"a"`, `"b\n"`, `1`, `true`, `false`, `null`, `[]`, `[{"content":1}]`, `{}`,
		`{"content":"x"}`, `{"content":[{"type":"text","text":"t"}]}`, `{"type":"agent_progress","message":{"uuid":"u","timestamp":"2026-01-01T00:00:00Z"},"agentId":"a1"}`,
		`{"agentId":"z","content":2}`, `{"sessionId":"s","messageUuid":"m"}`}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 8).Draw(rt, "n")
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + rapid.SampledFrom(keys).Draw(rt, "key") + `":` + rapid.SampledFrom(values).Draw(rt, "value"))
		}
		b.WriteByte('}')
		line := b.String()
		if rapid.IntRange(0, 9).Draw(rt, "shape") == 0 {
			line = rapid.SampledFrom([]string{`[` + line + `]`, `"x"`, `1`, `null`}).Draw(rt, "not an object")
		}
		checkClaudeTop(rt, line)
	})
}
