package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/policy"
)

// sarifRenderer writes SARIF 2.1.0 for code scanning: one reporting
// descriptor per finding rule, described by the rule's Rego METADATA, and
// one result per finding located at its evidence.
type sarifRenderer struct{}

// InformationURI is where the SARIF driver points people.
const InformationURI = "https://github.com/effectlint/effectlint"

// sarifLevel maps a finding's severity to a SARIF level.
func sarifLevel(severity string) string {
	switch severity {
	case "critical", "high":
		return "error"
	case "medium":
		return "warning"
	}
	return "note"
}

// ruleName turns DUPLICATE_DELIVERY into DuplicateDelivery (SARIF names are
// identifiers meant for people).
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(strings.ToLower(id), "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

func sarifRule(ri policy.RuleInfo) *sarif.ReportingDescriptor {
	title := ri.Title
	if title == "" {
		title = ri.ID
	}
	desc := ri.Description
	if desc == "" {
		desc = title + "."
	}
	help := fmt.Sprintf("%s\n\nSeverity: %s. Rule %s", desc, ri.Severity, ri.ID)
	helpMD := fmt.Sprintf("%s\n\n**Severity:** %s. Rule `%s`", desc, ri.Severity, ri.ID)
	if ri.Location != "" {
		help += " (" + ri.Location + ")"
		helpMD += " (`" + ri.Location + "`)"
	}
	help += ". Each result points at the transcript lines it rests on."
	helpMD += ". Each result points at the transcript lines it rests on."
	rule := sarif.NewRule(ri.ID).WithName(ruleName(ri.ID)).
		WithShortDescription(sarif.NewMultiformatMessageString(title)).
		WithFullDescription(sarif.NewMultiformatMessageString(desc)).
		WithHelp(sarif.NewMultiformatMessageString(help).WithMarkdown(helpMD)).
		WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevel(ri.Severity))).
		WithProperties(sarif.Properties{"severity": ri.Severity, "tags": []string{"effectlint", "side-effects"}})
	return rule
}

func sarifLocation(p analyzer.Pointer) *sarif.Location {
	pl := sarif.NewPhysicalLocation()
	if u, ok := fileURI(p.File); ok {
		pl.WithArtifactLocation(sarif.NewSimpleArtifactLocation(u))
	} else {
		pl.WithArtifactLocation(sarif.NewArtifactLocation().WithDescriptionText("standard input"))
	}
	if p.Line > 0 {
		pl.WithRegion(sarif.NewRegion().WithStartLine(p.Line))
	}
	return sarif.NewLocationWithPhysicalLocation(pl)
}

func (sarifRenderer) Analyze(w io.Writer, r *Report) error {
	log, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	run := sarif.NewRunWithInformationURI("effectlint", InformationURI)
	index := map[string]int{}
	for _, ri := range r.Rules {
		index[ri.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule(ri))
	}
	owner := r.evidenceOwners()
	for _, f := range r.Findings {
		if _, ok := index[f.Rule]; !ok {
			// A rule the catalogue does not describe still gets a
			// descriptor: a result must never point at nothing.
			index[f.Rule] = len(run.Tool.Driver.Rules)
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule(policy.RuleInfo{ID: f.Rule, Severity: f.Severity}))
		}
		res := sarif.NewRuleResult(clean(f.Rule)).WithRuleIndex(index[f.Rule]).
			WithLevel(sarifLevel(f.Severity)).
			WithMessage(sarif.NewTextMessage(clean(f.Message)))
		if p, ok := r.primaryEvidence(f, owner); ok {
			res.AddLocation(sarifLocation(p))
			for _, q := range f.Evidence {
				if q != p {
					res.AddLocation(sarifLocation(q))
				}
			}
		}
		props := sarif.Properties{"severity": f.Severity}
		if f.Key != nil {
			props["key"], props["scope"] = clean(*f.Key), clean(deref(f.Scope))
		}
		if f.Task != nil {
			props["task"] = clean(*f.Task)
		}
		res.Properties = props
		res.PartialFingerprints = map[string]interface{}{"effectlintFinding/v1": fingerprint(f)}
		run.Results = append(run.Results, res)
	}
	inv := sarif.NewInvocation().WithExecutionSuccess(true)
	for _, in := range r.Inputs {
		for _, p := range in.Problems {
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
				sarif.NewNotification().WithLevel("warning").WithMessage(sarif.NewTextMessage(clean(p.Message))).
					WithLocations([]*sarif.Location{sarifLocation(analyzer.Pointer{File: p.File, Line: p.Line})}))
		}
		if o := omitted(in); o != "" {
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
				sarif.NewNotification().WithLevel("warning").WithMessage(sarif.NewTextMessage(o)).
					WithLocations([]*sarif.Location{sarifLocation(analyzer.Pointer{File: in.Path, Line: in.OmittedFrom})}))
		}
	}
	run.Invocations = []*sarif.Invocation{inv}
	log.AddRun(run)
	if err := log.PrettyWrite(w); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// fingerprint identifies a finding across runs (code scanning uses it to
// track an alert): rule, key scope, task and message, not line numbers,
// which move when a transcript grows.
func fingerprint(f policy.Finding) string {
	h := sha256.Sum256([]byte(strings.Join([]string{f.Rule, deref(f.Key), deref(f.Scope), deref(f.Task), f.Message}, "\x00")))
	return hex.EncodeToString(h[:16])
}

func (sarifRenderer) Check(io.Writer, *CheckReport) error {
	return fmt.Errorf("sarif describes findings: use it with analyze (check speaks text, json, markdown, html, junit and github)")
}
