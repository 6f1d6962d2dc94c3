package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// IsTestFile reports whether a policy file holds Rego unit tests only by
// its name (like OPA's `_test.rego`): analyze and check leave such files
// out, verify reads them.
func IsTestFile(name string) bool { return strings.HasSuffix(name, "_test.rego") }

// LoadPolicies reads the users' policies: each path is a .rego file or a
// directory walked for .rego files. Test files (*_test.rego) are read only
// when tests is set. Every module remembers the path argument it came from,
// so that a path that contributes no rule can be named.
func LoadPolicies(paths []string, tests bool) ([]Module, error) {
	var out []Module
	seen := map[string]bool{}
	for _, p := range paths {
		files, err := regoFiles(p, tests)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			what := ".rego file"
			if !tests {
				what = ".rego file other than tests (*_test.rego)"
			}
			return nil, policyErrorf("policy path %s: contributes no rule: no %s there", p, what)
		}
		for _, f := range files {
			if seen[f] {
				continue
			}
			seen[f] = true
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, policyErrorf("policy path %s: %v", p, unwrap(err))
			}
			out = append(out, Module{Name: f, Source: string(b), From: p})
		}
	}
	return out, nil
}

func regoFiles(p string, tests bool) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, policyErrorf("policy path %s: %v", p, unwrap(err))
	}
	clean := filepath.ToSlash(filepath.Clean(p))
	if !info.IsDir() {
		if !strings.HasSuffix(p, ".rego") {
			return nil, policyErrorf("policy path %s: not a .rego file", p)
		}
		if IsTestFile(p) && !tests {
			return nil, nil
		}
		return []string{clean}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, werr error) error {
		if werr != nil {
			return werr
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".rego") || (IsTestFile(d.Name()) && !tests) {
			return nil
		}
		files = append(files, filepath.ToSlash(path))
		return nil
	})
	if err != nil {
		return nil, policyErrorf("policy path %s: %v", p, unwrap(err))
	}
	sort.Strings(files)
	return files, nil
}

func unwrap(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// ReservedData is the top-level name of data the rules own: data files may
// not write into it.
const ReservedData = "effectlint"

// LoadData reads extra data for policy: JSON or YAML files (.json, .yaml,
// .yml), or directories walked for them. Each file holds one object; all
// are merged at the root of `data` (as `opa eval --data` does), so a file
// {"finance": {"channels": [...]}} is data.finance.channels in Rego. Two
// files that set the same value differently are an error, never a silent
// override.
func LoadData(paths []string) (map[string]any, error) {
	merged := map[string]any{}
	origin := map[string]string{} // dotted path → file that set it
	for _, p := range paths {
		files, err := dataFiles(p)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, policyErrorf("--data %s: no .json, .yaml or .yml file there", p)
		}
		for _, f := range files {
			doc, err := readData(f)
			if err != nil {
				return nil, err
			}
			if _, ok := doc[ReservedData]; ok {
				return nil, policyErrorf("--data %s: the top-level name %q belongs to the rules; put your data under another name", f, ReservedData)
			}
			if err := merge(merged, doc, "", f, origin); err != nil {
				return nil, err
			}
		}
	}
	return merged, nil
}

func dataFiles(p string) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, policyErrorf("--data %s: %v", p, unwrap(err))
	}
	if !info.IsDir() {
		return []string{filepath.ToSlash(filepath.Clean(p))}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, werr error) error {
		if werr != nil {
			return werr
		}
		if !d.IsDir() && isDataName(d.Name()) {
			files = append(files, filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		return nil, policyErrorf("--data %s: %v", p, unwrap(err))
	}
	sort.Strings(files)
	return files, nil
}

func isDataName(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")
}

// readData decodes one data file. YAML is read by its extension, JSON
// otherwise; either way the result is normalized to JSON values (numbers
// kept exact as json.Number), the only shapes Rego data can hold.
func readData(f string) (map[string]any, error) {
	b, err := os.ReadFile(f)
	if err != nil {
		return nil, policyErrorf("--data %s: %v", f, unwrap(err))
	}
	n := strings.ToLower(f)
	if strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml") {
		var v any
		if err := yaml.Unmarshal(b, &v); err != nil {
			return nil, policyErrorf("--data %s: %v", f, err)
		}
		if b, err = json.Marshal(v); err != nil {
			// Mappings with keys that are not strings, for example.
			return nil, policyErrorf("--data %s: not JSON-compatible data: %v", f, err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, policyErrorf("--data %s: %v", f, err)
	}
	if dec.More() {
		return nil, policyErrorf("--data %s: more than one JSON value", f)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, policyErrorf("--data %s: the document must be an object (its keys become top-level names in data)", f)
	}
	return doc, nil
}

func merge(dst, src map[string]any, prefix, file string, origin map[string]string) error {
	keys := make([]string, 0, len(src))
	for k := range src {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := src[k]
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		old, exists := dst[k]
		if !exists {
			dst[k] = v
			origin[path] = file
			continue
		}
		om, ok1 := old.(map[string]any)
		nm, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			if err := merge(om, nm, path, file, origin); err != nil {
				return err
			}
			continue
		}
		ob, _ := json.Marshal(old)
		nb, _ := json.Marshal(v)
		if !bytes.Equal(ob, nb) {
			first := "another data file"
			// A subtree set whole is recorded at its root.
			for p := path; p != ""; p = parentPath(p) {
				if o, ok := origin[p]; ok {
					first = o
					break
				}
			}
			return policyErrorf("--data %s: data.%s is already set differently by %s", file, path, first)
		}
	}
	return nil
}

func parentPath(p string) string {
	if i := strings.LastIndex(p, "."); i >= 0 {
		return p[:i]
	}
	return ""
}
