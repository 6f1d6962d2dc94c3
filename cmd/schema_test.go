package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/effectlint/effectlint/report"
)

// Schema tests: every JSON output validates against the repository's JSON
// Schemas (report/schema), and every SARIF output against the official
// SARIF 2.1.0 schema; mutated documents must fail, so the checks are not
// blind.
//
// The validator is github.com/santhosh-tekuri/jsonschema/v6: it implements
// drafts 4 to 2020-12 (the SARIF schema is draft-04, ours 2020-12), loads
// nothing from the network unless told to, and OPA already depends on it,
// so it adds no new code to the module graph.

// reportSchemas loads the report schemas from the embedded files.
func reportSchemas(t *testing.T) (analyze, check *jsonschema.Schema) {
	t.Helper()
	c := jsonschema.NewCompiler()
	for _, name := range []string{"report.schema.json", "check.schema.json"} {
		b, err := report.Schemas.ReadFile("schema/" + name)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := c.AddResource("https://github.com/effectlint/effectlint/report/schema/"+name, doc); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if analyze, err = c.Compile("https://github.com/effectlint/effectlint/report/schema/report.schema.json"); err != nil {
		t.Fatal(err)
	}
	if check, err = c.Compile("https://github.com/effectlint/effectlint/report/schema/check.schema.json"); err != nil {
		t.Fatal(err)
	}
	return analyze, check
}

func validate(t *testing.T, s *jsonschema.Schema, name string, b []byte) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s is not JSON: %v", name, err)
	}
	return s.Validate(doc)
}

func TestJSONSchema_EveryReportAndDecisionValidates(t *testing.T) {
	analyzeSchema, checkSchema := reportSchemas(t)
	files, _ := filepath.Glob(filepath.Join(repoRoot(t), "testdata/golden/*/*.json.golden"))
	var analyzed, checked int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := checkSchema
		if filepath.Base(f) == "analyze.json.golden" {
			s, analyzed = analyzeSchema, analyzed+1
		} else {
			checked++
		}
		if err := validate(t, s, f, b); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if analyzed < 21 || checked < 20 {
		t.Errorf("validated %d analyze and %d check outputs; the goldens hold more", analyzed, checked)
	}
	out, _, _ := run(t, "analyze", "--format", "json", largeScenario(t))
	if err := validate(t, analyzeSchema, "large", []byte(out)); err != nil {
		t.Errorf("large scenario: %v", err)
	}
}

func TestJSONSchema_RejectsAChangedShape(t *testing.T) {
	analyzeSchema, checkSchema := reportSchemas(t)
	good, _, _ := run(t, "analyze", "--format", "json", incident)
	if err := validate(t, analyzeSchema, "incident", []byte(good)); err != nil {
		t.Fatalf("the incident report does not validate: %v", err)
	}
	for name, edit := range map[string]func(map[string]any){
		"unknown state":         func(m map[string]any) { m["keys"].([]any)[0].(map[string]any)["state"] = "probably_sent" },
		"no version":            func(m map[string]any) { delete(m, "version") },
		"extra field":           func(m map[string]any) { m["verdict"] = "ok" },
		"severity typo":         func(m map[string]any) { m["findings"].([]any)[0].(map[string]any)["severity"] = "severe" },
		"problems_omitted zero": func(m map[string]any) { m["inputs"].([]any)[0].(map[string]any)["problems_omitted"] = 0 },
		"problems_omitted text": func(m map[string]any) { m["inputs"].([]any)[0].(map[string]any)["problems_omitted"] = "5" },
		"evidence line text": func(m map[string]any) {
			m["findings"].([]any)[0].(map[string]any)["evidence"].([]any)[0].(map[string]any)["line"] = "7"
		},
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(good), &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ := json.Marshal(m)
		if validate(t, analyzeSchema, name, b) == nil {
			t.Errorf("%s: the schema accepted it", name)
		}
	}
	stop, _, _ := run(t, "check", "--format", "json", "--task", "t2", incident)
	if err := validate(t, checkSchema, "check", []byte(stop)); err != nil {
		t.Fatalf("the incident's check does not validate: %v", err)
	}
	if validate(t, checkSchema, "check", []byte(strings.Replace(stop, `"decision": "stop"`, `"decision": "maybe"`, 1))) == nil {
		t.Error("the check schema accepted decision maybe")
	}
}

// sarifSchema compiles the official SARIF 2.1.0 schema, kept with its
// licence in testdata/sarif (EFFECTLINT_SARIF_SCHEMA overrides).
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := os.Getenv("EFFECTLINT_SARIF_SCHEMA")
	if path == "" {
		path = filepath.Join(repoRoot(t), "testdata", "sarif", "sarif-schema-2.1.0.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the SARIF schema: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // uri and uri-reference fields are checked too
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSARIF_EveryScenarioValidatesAgainstTheOfficialSchema(t *testing.T) {
	s := sarifSchema(t)
	dirs, _ := filepath.Glob(filepath.Join(repoRoot(t), "testdata/scenarios/*"))
	dirs = append(dirs, largeScenario(t), hostileScenario(t))
	for _, d := range dirs {
		// A scenario's own flags (a --profile that reads its format).
		var exp expectation
		if b, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata/expect", filepath.Base(d)+".json")); err == nil {
			if err := json.Unmarshal(b, &exp); err != nil {
				t.Fatal(err)
			}
		}
		t.Run(filepath.Base(d), func(t *testing.T) {
			args := append([]string{"analyze", "--format", "sarif"}, exp.Flags...)
			if len(exp.Flags) > 0 {
				t.Chdir(d) // flags name files relative to the scenario
			}
			out, stderr, code := run(t, append(args, d)...)
			if code == ExitError && exp.Exit != ExitError {
				t.Fatalf("%s: exit 2: %s", d, stderr)
			}
			if err := validate(t, s, d, []byte(out)); err != nil {
				t.Errorf("%s: %v", filepath.Base(d), err)
			}
		})
	}
	out, _, _ := run(t, "analyze", "--format", "sarif", incident)
	if validate(t, s, "bad level", []byte(strings.Replace(out, `"level": "error"`, `"level": "fatal"`, 1))) == nil {
		t.Error("the SARIF schema accepted level fatal: the check is blind")
	}
}
