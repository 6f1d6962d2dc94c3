package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/effectlint/effectlint/internal/buildinfo"
)

func TestSARIF_DriverVersionAndSemanticVersion(t *testing.T) {
	for _, c := range []struct{ version, semantic string }{
		{"v1.2.3", "1.2.3"},
		{"v0.0.0-20261130100000-0123456789ab", "0.0.0-20261130100000-0123456789ab"},
		{buildinfo.Devel, ""}, // not semver: no semanticVersion
	} {
		r := &Report{Tool: &Tool{Name: "effectlint", Info: buildinfo.Info{Version: c.version}}}
		var b bytes.Buffer
		if err := (sarifRenderer{}).Analyze(&b, r); err != nil {
			t.Fatal(err)
		}
		var log struct {
			Runs []struct {
				Tool struct {
					Driver map[string]any `json:"driver"`
				} `json:"tool"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		d := log.Runs[0].Tool.Driver
		if d["version"] != c.version {
			t.Errorf("%s: driver.version %v", c.version, d["version"])
		}
		sv, has := d["semanticVersion"]
		if c.semantic == "" && has || c.semantic != "" && sv != c.semantic {
			t.Errorf("%s: driver.semanticVersion %v (present %v), want %q", c.version, sv, has, c.semantic)
		}
	}
}
