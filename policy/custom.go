package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/effectlint/effectlint/analyzer"
)

// CustomStopOrder places users' stop reasons after the built-in ones
// (SPEC §5 orders those 1 to 7).
const CustomStopOrder = 9

// The fields of the user-rule contract. Anything else is an error: a
// misspelt "severtiy" must not quietly lose the severity.
var (
	findingFields = []string{"rule", "severity", "message", "key", "scope", "task", "evidence"}
	stopFields    = []string{"rule", "message", "evidence"}
)

// customFindings decodes and checks the findings one user package added.
func (e *Engine) customFindings(c CustomRule, raw json.RawMessage) ([]Finding, error) {
	objs, err := customObjects(c, "finding", raw, findingFields)
	if err != nil {
		return nil, err
	}
	out := make([]Finding, 0, len(objs))
	for _, o := range objs {
		bad := func(format string, args ...any) error {
			return policyErrorf("policy: %s: a finding %s: %s", c, o.text, fmt.Sprintf(format, args...))
		}
		var f Finding
		if f.Rule, err = o.str("rule", true); err != nil || f.Rule == "" {
			return nil, bad("rule must be a non-empty string (the finding's id, e.g. FINANCE_UNCONFIRMED)")
		}
		if e.builtinIDs[f.Rule] {
			return nil, bad("rule %s is a built-in rule's id; give user findings their own ids", f.Rule)
		}
		if f.Severity, err = o.str("severity", false); err != nil {
			return nil, bad("%v", err)
		}
		if f.Severity == "" {
			// The contract lets METADATA custom.severity stand in.
			f.Severity = e.customSeverity[f.Rule]
			if f.Severity == "" {
				return nil, bad("no severity: give \"severity\" (%s), or custom.severity in the METADATA of a rule with custom.rule %s", severities, f.Rule)
			}
		}
		if SeverityRank(f.Severity) == 0 {
			return nil, bad("severity %q is not one of %s", f.Severity, severities)
		}
		if f.Message, err = o.str("message", true); err != nil || f.Message == "" {
			return nil, bad("message must be a non-empty string")
		}
		for _, p := range []struct {
			name string
			dst  **string
		}{{"key", &f.Key}, {"scope", &f.Scope}, {"task", &f.Task}} {
			s, err := o.optStr(p.name)
			if err != nil {
				return nil, bad("%v", err)
			}
			*p.dst = s
		}
		if f.Evidence, err = o.evidence(); err != nil {
			return nil, bad("%v", err)
		}
		out = append(out, f)
	}
	return out, nil
}

// customStops decodes and checks the gate stop reasons one user package
// added.
func customStops(c CustomRule, raw json.RawMessage) ([]Reason, error) {
	objs, err := customObjects(c, "stop", raw, stopFields)
	if err != nil {
		return nil, err
	}
	out := make([]Reason, 0, len(objs))
	for _, o := range objs {
		bad := func(format string, args ...any) error {
			return policyErrorf("policy: %s: a stop reason %s: %s", c, o.text, fmt.Sprintf(format, args...))
		}
		r := Reason{Order: CustomStopOrder}
		if r.Rule, err = o.str("rule", true); err != nil || r.Rule == "" {
			return nil, bad("rule must be a non-empty string (the reason's id, e.g. FINANCE_NEEDS_READBACK)")
		}
		if r.Message, err = o.str("message", true); err != nil || r.Message == "" {
			return nil, bad("message must be a non-empty string")
		}
		if r.Evidence, err = o.evidence(); err != nil {
			return nil, bad("%v", err)
		}
		out = append(out, r)
	}
	return out, nil
}

// object is one element of a user's `finding` or `stop` set.
type object struct {
	fields map[string]json.RawMessage
	text   string // compact JSON, shortened, for error messages
}

func customObjects(c CustomRule, what string, raw json.RawMessage, allowed []string) ([]object, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, policyErrorf("policy: %s: %s must be a set of objects: %v", c, what, err)
	}
	out := make([]object, 0, len(elems))
	for _, el := range elems {
		o := object{text: shorten(el)}
		if err := json.Unmarshal(el, &o.fields); err != nil || o.fields == nil {
			return nil, policyErrorf("policy: %s: %s holds %s; each element must be an object with %s", c, what, o.text, strings.Join(allowed, ", "))
		}
		var unknown []string
		for k := range o.fields {
			if !contains(allowed, k) {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return nil, policyErrorf("policy: %s: %s %s: unknown field(s) %s (allowed: %s)", c, what, o.text, strings.Join(unknown, ", "), strings.Join(allowed, ", "))
		}
		out = append(out, o)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func shorten(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		buf.Reset()
		buf.Write(b)
	}
	s := buf.String()
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// str reads a string field; absent is "" (an error when required).
func (o object) str(name string, required bool) (string, error) {
	raw, ok := o.fields[name]
	if !ok || string(raw) == "null" {
		if required {
			return "", fmt.Errorf("%s is missing", name)
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s must be a string, not %s", name, shorten(raw))
	}
	return s, nil
}

// optStr reads a field that is a string or null (absent is null).
func (o object) optStr(name string) (*string, error) {
	raw, ok := o.fields[name]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s must be a string or null, not %s", name, shorten(raw))
	}
	return &s, nil
}

// evidence reads the optional list of {file, line} pointers.
func (o object) evidence() ([]analyzer.Pointer, error) {
	out := []analyzer.Pointer{}
	raw, ok := o.fields["evidence"]
	if !ok || string(raw) == "null" {
		return out, nil
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("evidence must be a list of {file, line} objects, not %s", shorten(raw))
	}
	for _, it := range items {
		var p analyzer.Pointer
		fileRaw, okF := it["file"]
		lineRaw, okL := it["line"]
		if !okF || !okL || len(it) != 2 {
			return nil, fmt.Errorf("evidence item %s must be exactly {file, line} (a fact's `at`)", shortenMap(it))
		}
		if err := json.Unmarshal(fileRaw, &p.File); err != nil {
			return nil, fmt.Errorf("evidence item %s: file must be a string", shortenMap(it))
		}
		if err := json.Unmarshal(lineRaw, &p.Line); err != nil || p.Line < 0 {
			return nil, fmt.Errorf("evidence item %s: line must be a whole number, 0 or more", shortenMap(it))
		}
		out = append(out, p)
	}
	return out, nil
}

func shortenMap(m map[string]json.RawMessage) string {
	b, _ := json.Marshal(m)
	return shorten(b)
}
