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
	t := tool(r.Tool)
	run.Tool.Driver.WithVersion(t.Version)
	if sv := t.SemVer(); sv != "" {
		run.Tool.Driver.WithSemanticVersion(sv)
	}
	index := map[string]int{}
	for _, ri := range r.Rules {
		index[ri.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule(ri))
	}
	owner := r.evidenceOwners()
	for i, f := range r.Findings {
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
		fp := r.Fingerprint(f)
		res.PartialFingerprints = map[string]interface{}{"effectlintFinding/v2": fp}
		if s := r.Suppressions; s != nil && i < len(s.Findings) {
			sarifSuppress(res, s, s.Findings[i], fp)
		}
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

// sarifSuppress marks a result the baseline or a waiver suppresses (SARIF
// 2.1.0 §3.27.23, §3.35). Both are kept outside the analyzed transcripts, so
// their kind is external; a waiver's justification is its reason. With a
// baseline every result also gets its baselineState (new or unchanged).
// Every field the library would write as null is set: the schema allows
// none to be null.
func sarifSuppress(res *sarif.Result, s *Suppressions, st FindingStatus, fp string) {
	if s.Baseline != "" {
		if st.Status == StatusBaseline {
			res.WithBaselineState("unchanged")
		} else {
			res.WithBaselineState("new")
		}
	}
	var just string
	var loc *sarif.Location
	switch st.Status {
	case StatusBaseline:
		just = "known finding, recorded in the baseline " + s.Baseline
		loc = sarifLocation(analyzer.Pointer{File: s.Baseline})
	case StatusWaived:
		w := st.Waiver
		just = fmt.Sprintf("waived until %s: %s", w.Expires, w.Reason)
		if w.ID != "" {
			just = fmt.Sprintf("waiver %s, until %s: %s", w.ID, w.Expires, w.Reason)
		}
		loc = sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().
			WithArtifactLocation(sarif.NewArtifactLocation().WithDescriptionText("policy data effectlint.waivers")))
	default:
		if st.Waiver != nil {
			res.Properties["expiredWaiver"] = clean(st.Waiver.ID)
		}
		return
	}
	res.WithSuppression([]*sarif.Suppression{sarif.NewSuppression("external").WithStatus("accepted").
		WithGuid(guid(fp, st.Status)).WithJustifcation(clean(just)).WithLocation(loc)})
}

// guid is a stable name-based UUID (version 5 layout over SHA-256) of a
// suppression: the same finding suppressed the same way keeps its guid.
func guid(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:16])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

func (sarifRenderer) Check(io.Writer, *CheckReport) error {
	return fmt.Errorf("sarif describes findings: use it with analyze (check speaks text, json, markdown, html, junit and github)")
}
