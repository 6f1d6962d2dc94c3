package report

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/effect"
)

// htmlRenderer writes one self-contained page: inline CSS, an inline SVG
// timeline per key scope, no script and nothing loaded from anywhere (the
// Content-Security-Policy says so to the browser too). Every piece of
// transcript text goes through h.
type htmlRenderer struct{}

// h escapes text for HTML and SVG (both element content and attributes).
func h(s string) string { return html.EscapeString(clean(s)) }

// kindColor is the color of each mark kind, in the SVG and the tables.
var kindColor = map[string]string{
	"crossing":       "#d62728",
	"confirmation":   "#2ca02c",
	"uncertainty":    "#ff7f0e",
	"approach":       "#1f77b4",
	"retreat":        "#7f7f7f",
	"label":          "#9467bd",
	"check":          "#7f7f7f",
	kindInterruption: "#333333",
	"other":          "#aaaaaa",
}

func colorOf(kind string) string {
	if c, ok := kindColor[kind]; ok {
		return c
	}
	return kindColor["other"]
}

const htmlStyle = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:16px clamp(8px,2vw,32px);color:#1b1b1b;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}h3{font-size:15px;margin:20px 0 6px}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
code{overflow-wrap:anywhere}.mono,.t{white-space:nowrap}
.counts{display:flex;flex-wrap:wrap;gap:0 24px;align-items:flex-start}
table.events{width:100%}
.verdict{font-weight:700;padding:2px 8px;border-radius:4px;color:#fff}.fail{background:#c62828}.pass{background:#2e7d32}
table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f5f5f5}td.n{text-align:right}
.state{font-weight:700}.s-sent_verified,.s-send_status_unknown,.s-in_flight{color:#c62828}.s-not_sent,.s-open{color:#2e7d32}
.sev{font-weight:700;text-transform:uppercase;font-size:12px}.sev-critical{color:#b71c1c}.sev-high{color:#e65100}.sev-medium{color:#f9a825}.sev-low{color:#1565c0}.sev-info{color:#616161}
.scope{border:1px solid #e0e0e0;border-radius:6px;padding:4px 14px 10px;margin:14px 0}
.timeline-wrap{overflow-x:auto;border:1px solid #eee;background:#fcfcfc;margin:8px 0}
svg text{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:11px}
.consumed-row td{background:#fdecea;color:#c62828;font-weight:700}
.gap-row td{color:#777;font-style:italic}
.collapsed{color:#8a6d00}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px;margin:6px 0}dt{color:#666}dd{margin:0}
.finding{margin:10px 0;padding:6px 12px;border-left:4px solid #ddd}.finding:target{background:#fff8e1}
footer{margin-top:32px;color:#888;font-size:12px}
`

func hLink(p analyzer.Pointer) string {
	label := h(fmt.Sprintf("%s:%d", p.File, p.Line))
	if u, ok := lineURI(p); ok {
		return `<a class="mono" href="` + html.EscapeString(u) + `">` + label + `</a>`
	}
	return `<span class="mono">` + label + `</span>`
}

func hLinks(ps []analyzer.Pointer) string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, hLink(p))
	}
	return strings.Join(out, ", ")
}

func htmlHead(b *strings.Builder, title string) {
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` + "\n")
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1">` + "\n")
	fmt.Fprintf(b, "<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n", title, htmlStyle)
}

func (htmlRenderer) Analyze(w io.Writer, r *Report) error {
	var b strings.Builder
	s := r.Summary
	verdict, cls := "PASS", "pass"
	if s.Failed {
		verdict, cls = "FAIL", "fail"
	}
	htmlHead(&b, fmt.Sprintf("effectlint report: %s, %d finding(s)", verdict, len(r.Findings)))
	fmt.Fprintf(&b, "<header>\n<h1>effectlint report</h1>\n<p><span class=\"verdict %s\">%s</span> at <code>--fail-on %s</code>: %d key scope(s), %d finding(s). Read %d input(s), %d event(s), %d task(s); %d problem(s).</p>\n</header>\n",
		cls, verdict, h(s.FailOn), s.Keys, len(r.Findings), s.Inputs, s.Events, s.Tasks, s.Problems)

	// Two tables: the counts of states and of severities have nothing
	// to do with each other row by row.
	b.WriteString("<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"counts\">\n<table class=\"summary states\">\n<tr><th>key scope state</th><th>count</th></tr>\n")
	for _, st := range states {
		fmt.Fprintf(&b, "<tr><td class=\"state s-%s\">%s</td><td class=\"n\">%d</td></tr>\n", st, st, s.States[st])
	}
	b.WriteString("</table>\n<table class=\"summary severities\">\n<tr><th>finding severity</th><th>count</th></tr>\n")
	for _, sev := range severities {
		fmt.Fprintf(&b, "<tr><td class=\"sev sev-%s\">%s</td><td class=\"n\">%d</td></tr>\n", sev, sev, s.Findings[sev])
	}
	b.WriteString("</table>\n</div>\n")
	var notes []string
	for _, in := range r.Inputs {
		for _, p := range in.Problems {
			notes = append(notes, fmt.Sprintf("<li>problem: %s: %s</li>", hLink(analyzer.Pointer{File: p.File, Line: p.Line}), h(p.Message)))
		}
		if o := omitted(in); o != "" {
			notes = append(notes, fmt.Sprintf("<li><span class=\"mono\">%s</span>: %s</li>", h(in.Path), h(o)))
		}
	}
	// Identical notices of many inputs once, with a count (as the text report).
	for _, n := range groupNotices(r.Inputs) {
		where := make([]string, 0, 4)
		for i, p := range n.paths {
			if i == 3 {
				where = append(where, fmt.Sprintf("%d more", len(n.paths)-3))
				break
			}
			where = append(where, `<span class="mono">`+h(p)+`</span>`)
		}
		times := ""
		if n.count > 1 {
			times = fmt.Sprintf("%d × ", n.count)
		}
		if len(n.paths) == 1 {
			notes = append(notes, fmt.Sprintf("<li>%snotice: %s: %s</li>", times, where[0], html.EscapeString(n.text)))
			continue
		}
		notes = append(notes, fmt.Sprintf("<li>%snotice: %s (in %s)</li>", times, html.EscapeString(n.text), plainList(where)))
	}
	if len(r.Skipped) > 0 {
		notes = append(notes, fmt.Sprintf("<li>skipped %d non-transcript file(s): %s</li>", len(r.Skipped), h(strings.Join(r.Skipped, ", "))))
	}
	if len(notes) > 0 {
		b.WriteString("<ul>\n" + strings.Join(notes, "\n") + "\n</ul>\n")
	}
	b.WriteString("</section>\n")

	idx := r.findingIndex()
	if len(r.Keys) > 0 {
		b.WriteString("<section id=\"scopes\">\n<h2>Key scopes</h2>\n")
		b.WriteString(svgLegend())
	}
	for i, k := range r.Keys {
		htmlScope(&b, i+1, k, r.timeline(k, idx))
	}
	if len(r.Keys) > 0 {
		b.WriteString("</section>\n")
	}

	b.WriteString("<section id=\"findings\">\n<h2>Findings</h2>\n")
	if len(r.Findings) == 0 {
		b.WriteString("<p>None.</p>\n")
	}
	scopeNum := map[[2]string]int{}
	for i, k := range r.Keys {
		scopeNum[[2]string{k.Key, k.Scope}] = i + 1
	}
	for i, f := range r.Findings {
		fmt.Fprintf(&b, "<div class=\"finding\" id=\"f%d\">\n<p><b>F%d</b> <span class=\"sev sev-%s\">%s</span> <b>%s</b>", i+1, i+1, h(f.Severity), h(f.Severity), h(f.Rule))
		if f.Task != nil {
			fmt.Fprintf(&b, " · task <b>%s</b>", h(*f.Task))
		}
		fmt.Fprintf(&b, "<br>%s</p>\n<p>", h(f.Message))
		if f.Key != nil {
			if n, ok := scopeNum[[2]string{*f.Key, deref(f.Scope)}]; ok {
				fmt.Fprintf(&b, "key scope <a href=\"#k%d\">K%d</a> (%s, scope %s)", n, n, h(destination(r.Keys[n-1])), h(deref(f.Scope)))
			} else {
				fmt.Fprintf(&b, "key <code>%s</code> scope %s", h(*f.Key), h(deref(f.Scope)))
			}
			b.WriteString("<br>")
		}
		if len(f.Evidence) > 0 {
			fmt.Fprintf(&b, "evidence: %s", hLinks(f.Evidence))
		}
		b.WriteString("</p>\n</div>\n")
	}
	b.WriteString("</section>\n")
	fmt.Fprintf(&b, "<footer>effectlint · %s · every mark links to its transcript line</footer>\n</body>\n</html>\n", h(r.Version))
	_, err := io.WriteString(w, b.String())
	return err
}

func htmlScope(b *strings.Builder, num int, k KeyScope, tl Timeline) {
	fmt.Fprintf(b, "<article class=\"scope\" id=\"k%d\">\n<h3>K%d <span class=\"state s-%s\">%s</span> %s · scope %s</h3>\n<dl>\n",
		num, num, h(k.State), h(k.State), h(destination(k)), h(k.Scope))
	fmt.Fprintf(b, "<dt>key</dt><dd><code>%s</code></dd>\n", h(k.Key))
	switch {
	case k.Consumed != nil:
		c := k.Consumed
		fmt.Fprintf(b, "<dt>consumed</dt><dd class=\"s-sent_verified\">at <span class=\"t\">%s</span> by %s %s (%s)</dd>\n", h(c.TS), h(c.Task), h(c.Type),
			hLink(analyzer.Pointer{File: c.File, Line: c.Line}))
	case effect.Consumes(k.State):
		b.WriteString("<dt>consumed</dt><dd class=\"s-sent_verified\">yes, with no crossing on record (see the findings)</dd>\n")
	}
	fmt.Fprintf(b, "<dt>tasks</dt><dd>%d", len(k.Tasks))
	for _, t := range tl.Lanes {
		fmt.Fprintf(b, "<br><b>%s</b> %s", h(t.ID), h(taskLine(t)))
	}
	if n := len(tl.Collapsed); n > 0 {
		fmt.Fprintf(b, "<br><span class=\"collapsed\">%d uneventful task(s) collapsed, %d mark(s) not drawn: no crossing, confirmation, uncertainty, interruption or finding (listed below)</span>", n, tl.CollapsedMarks)
	}
	b.WriteString("</dd>\n</dl>\n")
	if len(tl.Marks) == 0 {
		b.WriteString("<p><i>No evidence to draw.</i></p>\n")
	} else {
		b.WriteString("<div class=\"timeline-wrap\">\n")
		svgTimeline(b, num, tl)
		b.WriteString("</div>\n")
		fmt.Fprintf(b, "<details open>\n<summary>Events (%d)</summary>\n<table class=\"events\">\n<tr><th>time</th><th>task</th><th>mark</th><th>event</th><th>evidence</th><th>findings</th></tr>\n", len(tl.Marks))
		for _, m := range tl.Marks {
			if m.Gap > 0 {
				fmt.Fprintf(b, "<tr class=\"gap-row\"><td>⋮</td><td colspan=\"5\">%s later</td></tr>\n", humanGap(m.Gap))
			}
			fs := make([]string, 0, len(m.Findings))
			for _, n := range m.Findings {
				fs = append(fs, fmt.Sprintf("<a href=\"#f%d\">F%d</a>", n, n))
			}
			fmt.Fprintf(b, "<tr><td class=\"mono t\">%s</td><td>%s</td><td style=\"color:%s\">%s %s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				h(m.TS), h(m.Task), colorOf(m.Kind), h(glyph(m.Kind)), h(m.Kind), h(m.What), hLink(m.At), strings.Join(fs, " "))
			if m.Consumed {
				b.WriteString("<tr class=\"consumed-row\"><td>━━</td><td colspan=\"5\">scope consumed here: from now on no other task may cross</td></tr>\n")
			}
		}
		b.WriteString("</table>\n</details>\n")
	}
	if n := len(tl.Collapsed); n > 0 {
		fmt.Fprintf(b, "<details>\n<summary>Collapsed tasks (%d)</summary>\n<table class=\"collapsed-tasks\">\n<tr><th>task</th><th>how it went</th><th>first event</th></tr>\n", n)
		for i, t := range tl.Collapsed {
			fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td>%s</td></tr>\n", h(t.ID), h(taskLine(t)), hLink(tl.CollapsedAt[i]))
		}
		b.WriteString("</table>\n</details>\n")
	}
	b.WriteString("</article>\n")
}

// SVG geometry of the timeline: time flows right, one mark per step (order,
// not scale: an overnight gap would otherwise swallow the picture; gaps of
// an hour or more are drawn and labelled instead), one lane per task.
const (
	svgLabelW = 130
	svgStep   = 30
	svgTop    = 40
	svgLaneH  = 30
	svgBottom = 14
)

func svgTimeline(b *strings.Builder, num int, tl Timeline) {
	lane := map[string]int{}
	for i, t := range tl.Lanes {
		lane[t.ID] = i
	}
	width := svgLabelW + len(tl.Marks)*svgStep + 90 // room for the last "consumed"
	height := svgTop + len(tl.Lanes)*svgLaneH + svgBottom
	x := func(i int) int { return svgLabelW + svgStep/2 + i*svgStep }
	y := func(l int) int { return svgTop + l*svgLaneH + svgLaneH/2 }
	fmt.Fprintf(b, "<svg class=\"timeline\" id=\"timeline-k%d\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"timeline of key scope K%d\">\n",
		num, width, height, width, height, num)
	// Lanes: a label, and a line joining each of the task's marks to the
	// next; dashed after an interruption (the task was away).
	for i, t := range tl.Lanes {
		label := clean(t.ID)
		if r := []rune(label); len(r) > 16 {
			label = string(r[:15]) + "…"
		}
		fmt.Fprintf(b, "<text x=\"6\" y=\"%d\" dominant-baseline=\"middle\"><title>%s: %s</title>%s</text>\n", y(i), h(t.ID), h(taskLine(t)), html.EscapeString(label))
	}
	prev := map[int]int{}
	for i, m := range tl.Marks {
		l := lane[m.Task]
		if p, ok := prev[l]; ok {
			dash := ""
			if tl.Marks[p].Kind == kindInterruption {
				dash = ` stroke-dasharray="4 4"`
			}
			fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#c8c8c8\" stroke-width=\"2\"%s/>\n", x(p), y(l), x(i), y(l), dash)
		}
		prev[l] = i
	}
	// Dates, gaps and the moment of consumption: vertical rules.
	bottom := svgTop + len(tl.Lanes)*svgLaneH
	for i, m := range tl.Marks {
		if m.Gap > 0 {
			gx := x(i) - svgStep/2
			fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\" stroke-dasharray=\"2 3\"/>\n", gx, 22, gx, bottom)
			fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" fill=\"#777\">%s later</text>\n", gx+3, 34, humanGap(m.Gap))
		}
		if m.NewDay {
			fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" fill=\"#555\">%s</text>\n", x(i)-6, 14, h(m.Date()))
		}
		if m.Consumed {
			cx := x(i) + svgStep/2
			fmt.Fprintf(b, "<g class=\"consumed\"><title>scope consumed here (%s)</title><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"6 3\"/><text x=\"%d\" y=\"%d\" fill=\"#d62728\" font-weight=\"bold\">consumed</text></g>\n",
				h(fmt.Sprintf("%s:%d", m.At.File, m.At.Line)), cx, 18, cx, bottom+6, cx+3, 26)
		}
	}
	for i, m := range tl.Marks {
		tip := fmt.Sprintf("%s %s — %s — %s:%d", m.Task, m.What, m.TS, m.At.File, m.At.Line)
		if len(m.Findings) > 0 {
			fs := make([]string, 0, len(m.Findings))
			for _, n := range m.Findings {
				fs = append(fs, fmt.Sprintf("F%d", n))
			}
			tip += " — findings " + strings.Join(fs, " ")
		}
		open, end := "", ""
		if u, ok := lineURI(m.At); ok {
			open, end = "<a href=\""+html.EscapeString(u)+"\">", "</a>"
		}
		fmt.Fprintf(b, "%s<g class=\"mark k-%s\"><title>%s</title>%s</g>%s\n", open, h(m.Kind), h(tip), svgShape(m.Kind, x(i), y(lane[m.Task])), end)
	}
	b.WriteString("</svg>\n")
}

// svgShape draws one mark; shapes differ as well as colors, so the picture
// reads in grey too.
func svgShape(kind string, x, y int) string {
	c := colorOf(kind)
	switch kind {
	case "crossing":
		return fmt.Sprintf("<path d=\"M%d %dL%d %dM%d %dL%d %d\" stroke=\"%s\" stroke-width=\"4\" stroke-linecap=\"round\"/>", x-6, y-6, x+6, y+6, x-6, y+6, x+6, y-6, c)
	case "confirmation":
		return fmt.Sprintf("<circle cx=\"%d\" cy=\"%d\" r=\"8\" fill=\"%s\"/><path d=\"M%d %dL%d %dL%d %d\" stroke=\"#fff\" stroke-width=\"2.5\" fill=\"none\"/>", x, y, c, x-4, y, x-1, y+3, x+4, y-3)
	case "uncertainty":
		return fmt.Sprintf("<path d=\"M%d %dL%d %dL%d %dL%d %dZ\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" fill=\"#fff\" font-weight=\"bold\" text-anchor=\"middle\" dominant-baseline=\"central\">?</text>", x, y-9, x+9, y, x, y+9, x-9, y, c, x, y)
	case "approach":
		return fmt.Sprintf("<path d=\"M%d %dL%d %dL%d %dZ\" fill=\"%s\"/>", x-5, y-7, x+7, y, x-5, y+7, c)
	case "retreat":
		return fmt.Sprintf("<path d=\"M%d %dL%d %dL%d %dZ\" fill=\"%s\"/>", x+5, y-7, x-7, y, x+5, y+7, c)
	case "label":
		return fmt.Sprintf("<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" rx=\"2\" fill=\"%s\"/>", x-6, y-5, c)
	case kindInterruption:
		return fmt.Sprintf("<rect x=\"%d\" y=\"%d\" width=\"3\" height=\"18\" fill=\"%s\"/><rect x=\"%d\" y=\"%d\" width=\"3\" height=\"18\" fill=\"%s\"/>", x-5, y-9, c, x+2, y-9, c)
	case "check":
		return fmt.Sprintf("<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"#fff\" stroke=\"%s\" stroke-width=\"2\"/>", x, y, c)
	}
	return fmt.Sprintf("<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"%s\"/>", x, y, c)
}

func svgLegend() string {
	var b strings.Builder
	w := len(legendOrder)*120 + 10
	fmt.Fprintf(&b, "<svg class=\"legend\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"28\" viewBox=\"0 0 %d 28\" role=\"img\" aria-label=\"legend\">\n", w, w)
	for i, k := range legendOrder {
		x := 14 + i*120
		fmt.Fprintf(&b, "%s<text x=\"%d\" y=\"14\" dominant-baseline=\"middle\">%s</text>\n", svgShape(k, x, 14), x+14, k)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func (htmlRenderer) Check(w io.Writer, c *CheckReport) error {
	var b strings.Builder
	verdict, cls := "ALLOW", "pass"
	if c.Decision != "allow" {
		verdict, cls = "STOP", "fail"
	}
	htmlHead(&b, "effectlint check: "+verdict)
	fmt.Fprintf(&b, "<h1>effectlint check</h1>\n<p><span class=\"verdict %s\">%s</span> task <b>%s</b> at <b>%s</b></p>\n<dl>\n", cls, verdict, h(c.Task), h(c.Checkpoint))
	if c.Key != nil {
		fmt.Fprintf(&b, "<dt>key</dt><dd><code>%s</code></dd>\n<dt>scope</dt><dd>%s</dd>\n", h(*c.Key), h(deref(c.Scope)))
	}
	if c.State != nil {
		fmt.Fprintf(&b, "<dt>state</dt><dd class=\"state s-%s\">%s</dd>\n", h(*c.State), h(*c.State))
	}
	if c.Executor != nil {
		fmt.Fprintf(&b, "<dt>executor</dt><dd>%s</dd>\n", h(*c.Executor))
	}
	b.WriteString("</dl>\n<h2>Reasons</h2>\n<ul>\n")
	for _, r := range c.Reasons {
		fmt.Fprintf(&b, "<li><b>%s</b>: %s", h(r.Rule), h(r.Message))
		if len(r.Evidence) > 0 {
			fmt.Fprintf(&b, " (%s)", hLinks(r.Evidence))
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</ul>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
