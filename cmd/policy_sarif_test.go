package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A user rule's finding reaches SARIF: its result, and a reportingDescriptor
// carrying the rule's METADATA (issue 5 × issue 4).
func TestPolicy_UserFindingShowsUpInSARIF(t *testing.T) {
	dir := t.TempDir()
	policy := `package effectlint.custom.finance

# METADATA
# title: Finance channel needs read-back
# description: Deliveries to finance channels must be confirmed by a read-back.
# custom:
#   severity: high
#   rule: FINANCE_NEEDS_READBACK
finding contains f if {
	some s in input.scopes
	s.destination.id == "C024BE91L"
	f := {"rule": "FINANCE_NEEDS_READBACK", "message": "finance delivery", "key": s.key, "scope": s.scope,
		"evidence": [x.at | some x in s.facts; x.type == "send_fired"]}
}
`
	if err := os.WriteFile(filepath.Join(dir, "finance.rego"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runWith(t, "", builtinRules(t), "analyze", "--format", "sarif", "--policy", dir, incident)
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sarif struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID               string                `json:"id"`
						FullDescription  struct{ Text string } `json:"fullDescription"`
						ShortDescription struct{ Text string } `json:"shortDescription"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string `json:"level"`
				Locations []any  `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &sarif); err != nil {
		t.Fatalf("not SARIF JSON: %v", err)
	}
	described, reported := false, false
	for _, r := range sarif.Runs[0].Tool.Driver.Rules {
		if r.ID == "FINANCE_NEEDS_READBACK" {
			described = r.FullDescription.Text != "" && r.ShortDescription.Text == "Finance channel needs read-back"
		}
	}
	for _, r := range sarif.Runs[0].Results {
		if r.RuleID == "FINANCE_NEEDS_READBACK" {
			reported = r.Level == "error" && len(r.Locations) > 0
		}
	}
	if !described || !reported {
		t.Errorf("user rule in SARIF: described %v, reported %v\n%s", described, reported, out)
	}
}
