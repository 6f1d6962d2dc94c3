package policy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/transcripts"
)

// The questions about one random history, asked in a random order with
// the values of the rules free of the question shared between them
// (policy/shared.go), decide as each asked alone: whatever was computed
// for an earlier question, no later one reads a value that depends on
// its own question. Some histories have an unreadable line, so that
// incomplete tasks are among the shared values.
func TestProperty_SharedValuesNeverChangeADecision(t *testing.T) {
	if testing.Short() {
		t.Skip("slow; runs without -short")
	}
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		files := oneFilePerTask(genHistory(t))
		if rapid.IntRange(0, 4).Draw(t, "damaged") == 0 {
			names := make([]string, 0, len(files))
			for n := range files {
				names = append(names, n)
			}
			sort.Strings(names)
			name := rapid.SampledFrom(names).Draw(t, "file")
			j := rapid.IntRange(0, len(files[name])-1).Draw(t, "line")
			files[name][j] = files[name][j][:len(files[name][j])/2]
		}
		var history strings.Builder
		for name, lines := range files {
			body := strings.Join(lines, "\n") + "\n"
			fmt.Fprintf(&history, "%s:\n%s", name, body)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		defer func() {
			for name := range files {
				os.Remove(filepath.Join(dir, name))
			}
		}()
		b := analyzer.New()
		res, err := transcripts.Read([]string{dir}, transcripts.Options{}, b.Add)
		if err != nil {
			t.Fatal(err)
		}
		f := b.Build(res)
		var qs []*analyzer.Query
		for _, task := range []string{"t1", "t2", "t3", "t4", "t9"} {
			for _, cp := range checkpoints {
				qs = append(qs, f.AskAll(task, cp, analyzer.IntentSpec{})...)
				for _, d := range destinations {
					var spec analyzer.IntentSpec
					spec.SHA256 = sha
					if err := json.Unmarshal([]byte(d), &spec.Destination); err != nil {
						t.Fatal(err)
					}
					qs = append(qs, f.AskAll(task, cp, spec)...)
				}
			}
		}
		qs = rapid.Permutation(qs).Draw(t, "order")
		together, alone, err := policy.AskedTogetherAndAlone(sharedEngine(t), f, qs)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range qs {
			if !reflect.DeepEqual(together[i], alone[i]) {
				t.Fatalf("question %d (%s at %s, key %q): shared %+v, alone %+v\n%s", i, q.Task, q.Checkpoint, q.Key, together[i], alone[i], history.String())
			}
		}
	})
}
