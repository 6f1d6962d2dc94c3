package report

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/transcripts"
)

type textRenderer struct {
	opt Options
	// base is the folder every input is in, said once at the top and
	// left out of every file:line below it, so that absolute paths do not
	// crowd out the timeline.
	base string
}

// ptr is a file:line under the report's base folder.
func (t textRenderer) ptr(p analyzer.Pointer) string {
	return fmt.Sprintf("%s:%d", strings.TrimPrefix(clean(p.File), t.base), p.Line)
}

// styles are the colors of the text report; with no color they render
// plain text, so the layout never depends on color.
type styles struct {
	head, dim, key, task, state, ok, bad, warn, plain lipgloss.Style
	severity                                          map[string]lipgloss.Style
	class                                             map[string]lipgloss.Style
	// ascii: no color at all (a file, a pipe, NO_COLOR, --color never).
	ascii bool
}

// render is style.Render(text), without lipgloss when that is sure to
// give text back: no color, and one line without tabs or carriage returns
// (our styles set colors and bold only, no width, padding or border).
// A month of history is a timeline of a million cells.
func (s styles) render(style lipgloss.Style, text string) string {
	if s.ascii && !strings.ContainsAny(text, "\n\r\t") {
		return text
	}
	return style.Render(text)
}

// Colors adapt to the terminal's background (lipgloss asks the terminal,
// or reads COLORFGBG): the 256-color orange and grey that read well on a
// dark background are faint on a light one, so each color has a darker
// twin for light backgrounds.
var (
	colorDim     = lipgloss.AdaptiveColor{Light: "241", Dark: "245"}
	colorKey     = lipgloss.AdaptiveColor{Light: "25", Dark: "75"}
	colorOK      = lipgloss.AdaptiveColor{Light: "28", Dark: "42"}
	colorBad     = lipgloss.AdaptiveColor{Light: "160", Dark: "196"}
	colorHigh    = lipgloss.AdaptiveColor{Light: "166", Dark: "202"}
	colorWarn    = lipgloss.AdaptiveColor{Light: "130", Dark: "214"}
	colorLabel   = lipgloss.AdaptiveColor{Light: "91", Dark: "177"}
	colorPalette = []lipgloss.AdaptiveColor{colorDim, colorKey, colorOK, colorBad, colorHigh, colorWarn, colorLabel}
)

func newStyles(w io.Writer, color string) styles { return newStylesOn(lipgloss.NewRenderer(w), color) }

// newStylesOn makes the styles on renderer r (tests set its background).
func newStylesOn(r *lipgloss.Renderer, color string) styles {
	switch color {
	case "always":
		r.SetColorProfile(termenv.ANSI256)
	case "never":
		r.SetColorProfile(termenv.Ascii)
	default:
		// lipgloss inspects w: no color when it is not a terminal, when
		// NO_COLOR is set (and, as measured, when CI is set).
		if os.Getenv("NO_COLOR") != "" {
			r.SetColorProfile(termenv.Ascii)
		}
	}
	c := func(ac lipgloss.AdaptiveColor) lipgloss.Style { return r.NewStyle().Foreground(ac) }
	return styles{
		ascii: r.ColorProfile() == termenv.Ascii,
		head:  r.NewStyle().Bold(true), dim: c(colorDim), key: c(colorKey), task: r.NewStyle().Bold(true),
		ok: c(colorOK), bad: c(colorBad).Bold(true), warn: c(colorWarn), state: r.NewStyle().Bold(true), plain: r.NewStyle(),
		severity: map[string]lipgloss.Style{
			"critical": c(colorBad).Bold(true), "high": c(colorHigh).Bold(true), "medium": c(colorWarn),
			"low": c(colorKey), "info": c(colorDim),
		},
		class: map[string]lipgloss.Style{
			"confirmation": c(colorOK), "crossing": c(colorBad), "uncertainty": c(colorWarn),
			"approach": c(colorKey), "retreat": c(colorDim), "label": c(colorLabel), "check": c(colorDim),
			kindInterruption: c(colorWarn).Bold(true), "other": c(colorDim),
		},
	}
}

func (s styles) stateStyle(state string) lipgloss.Style {
	switch state {
	case "not_sent", "open":
		return s.ok
	case "sent_verified":
		return s.warn
	}
	return s.bad
}

// clean makes transcript text safe for a terminal: control characters
// (escape sequences included) are shown escaped, never interpreted, and so
// are the invisible characters that reorder or break what is shown (bidi
// overrides, as in "Trojan Source", line and paragraph separators); long
// text is cut to an excerpt (see excerpt). Every format's escaping starts
// here.
func clean(s string) string {
	if len(s) <= MaxText && plainASCII(s) {
		return s // nothing to escape or cut (the common case)
	}
	var b strings.Builder
	for _, r := range excerpt(s) {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, "\\x%02x", r)
		case invisible(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func ptr(p analyzer.Pointer) string { return fmt.Sprintf("%s:%d", clean(p.File), p.Line) }

func (t textRenderer) Analyze(w io.Writer, r *Report) error {
	st := newStyles(w, t.opt.Color)
	width := termWidth(w, t.opt.Width)
	paths := make([]string, 0, len(r.Inputs))
	for _, in := range r.Inputs {
		paths = append(paths, in.Path)
	}
	t.base = commonDir(paths)
	var b strings.Builder
	s := r.Summary
	// Free text wraps to the width at spaces; a token (a key, a path) that
	// is longer stays whole and runs over.
	say := func(indent int, style lipgloss.Style, text string) {
		// -2: continuation lines are indented by two more.
		for i, l := range wrapWords(text, width-indent-2) {
			pad := strings.Repeat(" ", indent)
			if i > 0 {
				pad += "  "
			}
			b.WriteString(pad + style.Render(l) + "\n")
		}
	}
	b.WriteString(headed(st.head, "effectlint analyze:", fmt.Sprintf("%d input(s), %d event(s), %d problem(s), %d task(s), %d key scope(s)",
		s.Inputs, s.Events, s.Problems, s.Tasks, s.Keys), width))
	// The verdict first, so that a long report need not be scrolled to
	// its end to be judged (it is said again at the end).
	b.WriteString(summaryLine(st, width, r))
	for _, in := range r.Inputs {
		for i, p := range in.Problems {
			if i == 20 {
				say(2, st.bad, fmt.Sprintf("! %d more problem(s) in %s", len(in.Problems)-20+in.ProblemsOmitted, t.rel(in.Path)))
				break
			}
			say(2, st.bad, fmt.Sprintf("problem %s: %s", t.ptr(analyzer.Pointer{File: p.File, Line: p.Line}), clean(p.Message)))
		}
		if o := omitted(in); o != "" && len(in.Problems) <= 20 {
			say(2, st.bad, fmt.Sprintf("! %s: %s", t.rel(in.Path), o))
		}
	}
	for _, n := range groupNotices(r.Inputs) {
		if len(n.paths) == 1 {
			times := ""
			if n.count > 1 {
				times = fmt.Sprintf("%d × ", n.count)
			}
			say(2, st.warn, fmt.Sprintf("%snotice %s: %s", times, t.rel(n.paths[0]), n.text))
			continue
		}
		where := make([]string, 0, 4)
		for i, p := range n.paths {
			if i == 3 {
				where = append(where, fmt.Sprintf("%d more", len(n.paths)-3))
				break
			}
			where = append(where, t.rel(p))
		}
		say(2, st.warn, fmt.Sprintf("%d × notice: %s (in %s)", n.count, n.text, plainList(where)))
	}
	if t.base != "" {
		// One token, printed whole so it can be copied.
		if 2+len("paths below are under ")+ansi.StringWidth(t.base) <= width {
			fmt.Fprintf(&b, "  %s %s\n", st.dim.Render("paths below are under"), st.dim.Render(t.base))
		} else {
			fmt.Fprintf(&b, "  %s\n    %s\n", st.dim.Render("paths below are under"), st.dim.Render(t.base))
		}
	}
	if len(r.Skipped) > 0 {
		skipped := make([]string, 0, len(r.Skipped))
		for _, s := range r.Skipped {
			skipped = append(skipped, t.rel(s))
		}
		say(2, st.dim, fmt.Sprintf("skipped %d non-transcript file(s): %s", len(r.Skipped), strings.Join(skipped, ", ")))
	}
	b.WriteString("\n")
	b.WriteString(summaryTables(st, width, r))
	shown, hidden := t.shownScopes(r)
	if n := len(hidden); n > 0 {
		b.WriteString("\n")
		say(0, st.dim, hiddenLine(r, hidden))
	}
	if len(shown) > 0 {
		b.WriteString("\n")
		for _, l := range strings.Split(legend(width), "\n") {
			b.WriteString(st.dim.Render(l) + "\n")
		}
	}
	idx := r.findingIndex()
	for _, i := range shown {
		b.WriteString("\n")
		// K numbers are positions in the whole report (and in the JSON
		// report's keys), whatever --show hides.
		t.keyScope(&b, st, width, i+1, r.Keys[i], r.timeline(r.Keys[i], idx))
		// A month of history has thousands of key scopes: write them as
		// they come (at line ends, so trimming is the same).
		if b.Len() > 256<<10 && strings.HasSuffix(b.String(), "\n") {
			if _, err := io.WriteString(w, trimLines(b.String())); err != nil {
				return err
			}
			b.Reset()
		}
	}
	b.WriteString("\n")
	t.findings(&b, st, width, r)
	b.WriteString("\n")
	b.WriteString(summaryLine(st, width, r))
	_, err := io.WriteString(w, trimLines(b.String()))
	return err
}

// rel is a path as the report shows it: under the report's base folder.
func (t textRenderer) rel(path string) string { return strings.TrimPrefix(clean(path), t.base) }

// Show modes of the text report (Options.Show).
const (
	// ShowFindings, the default, draws the key scopes a reader has to look
	// at: those with a finding, and those whose evidence settles nothing.
	ShowFindings = "findings"
	// ShowAll draws every key scope.
	ShowAll = "all"
)

// ShowModes lists the values of Options.Show.
var ShowModes = []string{ShowFindings, ShowAll}

// settled says whether a key scope's evidence proves its outcome (SPEC
// §4): sent_verified (a confirmed delivery) or not_sent (every task ended
// without crossing). send_status_unknown is terminal but proves nothing
// (the doubt is what a reader must see); in_flight and open are not
// terminal.
func settled(state string) bool { return state == "sent_verified" || state == "not_sent" }

// shownScopes splits the key scopes (by index) into those the text report
// draws and those --show findings leaves out: a settled scope that no
// finding concerns. A finding concerns a scope when it names its key and
// scope; one that names no key (an ambiguous title, an unreadable input)
// concerns every scope of its task, or with an event or a task start in
// a file its evidence points into (in doubt, a scope is drawn).
func (t textRenderer) shownScopes(r *Report) (shown, hidden []int) {
	withFindings := map[[2]string]bool{}
	keylessTasks, keylessFiles := map[string]bool{}, map[string]bool{}
	for _, f := range r.Findings {
		if f.Key != nil {
			withFindings[[2]string{*f.Key, deref(f.Scope)}] = true
			continue
		}
		if f.Task != nil {
			keylessTasks[*f.Task] = true
		}
		for _, p := range f.Evidence {
			keylessFiles[p.File] = true
		}
	}
	concerned := func(k KeyScope) bool {
		if withFindings[[2]string{k.Key, k.Scope}] {
			return true
		}
		for _, task := range k.Tasks {
			if keylessTasks[task.ID] || keylessFiles[task.Start.File] {
				return true
			}
		}
		for _, e := range k.Evidence {
			if keylessFiles[e.File] {
				return true
			}
		}
		return false
	}
	for i, k := range r.Keys {
		if t.opt.Show != ShowAll && settled(k.State) && !concerned(k) {
			hidden = append(hidden, i)
			continue
		}
		shown = append(shown, i)
	}
	return shown, hidden
}

// hiddenLine says how many key scopes were left out, in which states, and
// how to see them.
func hiddenLine(r *Report, hidden []int) string {
	byState := map[string]int{}
	for _, i := range hidden {
		byState[r.Keys[i].State]++
	}
	var parts []string
	for _, s := range states {
		if n := byState[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	return fmt.Sprintf("not drawn: %d settled key scope(s) with no finding (%s); --show all draws them",
		len(hidden), plainList(parts))
}

// notice is one notice text and the inputs that gave it, in input order.
type notice struct {
	text  string
	paths []string
	count int // occurrences, one input may give the same notice again
}

// groupNotices folds identical notices of several inputs into one (a run
// over 160 sessions of one tool says the same thing 160 times), in the
// order of their first appearance.
func groupNotices(inputs []transcripts.Input) []notice {
	var out []notice
	at := map[string]int{}
	for _, in := range inputs {
		for _, n := range in.Notices {
			text := clean(n)
			i, ok := at[text]
			if !ok {
				i = len(out)
				at[text] = i
				out = append(out, notice{text: text})
			}
			out[i].count++
			if p := out[i].paths; len(p) == 0 || p[len(p)-1] != in.Path {
				out[i].paths = append(out[i].paths, in.Path)
			}
		}
	}
	return out
}

// legend explains the marks, wrapped between entries (never inside one).
func legend(width int) string {
	parts := make([]string, 0, len(legendOrder)+1)
	for _, k := range legendOrder {
		name := k
		if k == "check" {
			name = "gate check"
		}
		parts = append(parts, glyph(k)+" "+name)
	}
	parts = append(parts, "━ consumed")
	line, out := "marks:", ""
	for _, p := range parts {
		if ansi.StringWidth(line)+2+ansi.StringWidth(p) > width {
			out += line + "\n"
			line = "      "
		}
		line += "  " + p
	}
	return out + line
}

// summaryTables counts key scopes by state and findings by severity: two
// tables (the two lists have nothing to do with each other row by row),
// side by side when the width allows, else one under the other.
func summaryTables(st styles, width int, r *Report) string {
	count := func(head string, names []string, counts map[string]int, style func(string) lipgloss.Style) string {
		tb := table.New().Border(lipgloss.NormalBorder()).BorderStyle(st.dim).Headers(head, "COUNT")
		for _, n := range names {
			tb.Row(n, strconv.Itoa(counts[n]))
		}
		tb.StyleFunc(func(row, col int) lipgloss.Style {
			switch {
			case row == table.HeaderRow:
				return st.head.Padding(0, 1)
			case col == 1:
				return st.plain.Padding(0, 1).Align(lipgloss.Right)
			case counts[names[row]] > 0:
				return style(names[row]).Padding(0, 1)
			}
			return st.dim.Padding(0, 1)
		})
		return tb.Render()
	}
	left := count("KEY SCOPE STATE", states, r.Summary.States, st.stateStyle)
	right := count("FINDING SEVERITY", severities, r.Summary.Findings, func(s string) lipgloss.Style { return st.severity[s] })
	if lipgloss.Width(left)+2+lipgloss.Width(right) <= width {
		return lipgloss.JoinHorizontal(lipgloss.Top, left, "  ", right) + "\n"
	}
	return left + "\n" + right + "\n"
}

// cell writes text styled, padded to w cells (text is already clean).
func (st styles) cell(b *strings.Builder, style lipgloss.Style, text string, w int) {
	width := 0
	if plainASCII(text) {
		// One cell per byte: measure and cut without ansi's parser.
		if len(text) > w {
			text = ansi.Truncate(text, w, "…")
			width = ansi.StringWidth(text)
		} else {
			width = len(text)
		}
	} else {
		text = ansi.Truncate(text, w, "…")
		width = ansi.StringWidth(text)
	}
	if text != "" {
		b.WriteString(st.render(style, text))
	}
	if pad := w - width; pad > 0 {
		b.WriteString(strings.Repeat(" ", pad))
	}
}

// plainASCII: printable ASCII only (no escape, no wide character).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func (t textRenderer) keyScope(b *strings.Builder, st styles, width, num int, k KeyScope, tl Timeline) {
	b.WriteString(headed(st.head, fmt.Sprintf("K%d", num), st.stateStyle(k.State).Render("● "+k.State)+"  "+
		fmt.Sprintf("%s  scope %s", clean(destination(k)), clean(k.Scope)), width))
	// field writes "  label    text", text wrapped under itself.
	const hang = 12
	field := func(label string, style lipgloss.Style, text string) {
		for i, l := range wrapText(text, width-hang) {
			if i == 0 {
				fmt.Fprintf(b, "  %s %s\n", st.dim.Render(fmt.Sprintf("%-9s", label)), style.Render(l))
				continue
			}
			fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", hang), style.Render(l))
		}
	}
	fmt.Fprintf(b, "  %s %s\n", st.dim.Render("key      "), st.key.Render(clean(k.Key)))
	ids := make([]string, 0, len(k.Tasks))
	for _, task := range k.Tasks {
		ids = append(ids, task.ID)
	}
	// Long ids (UUIDs) are shown by a short label; the task list gives
	// each full id once.
	labels := taskLabels(ids)
	name := func(id string) string {
		if l, ok := labels[id]; ok {
			return clean(l)
		}
		return clean(id)
	}
	label := fmt.Sprintf("tasks %d", len(k.Tasks))
	for i, task := range tl.Lanes {
		if i == CollapseAbove {
			field(label, st.dim, fmt.Sprintf("… %d more drawn below", len(tl.Lanes)-i))
			break
		}
		line := name(task.ID) + "  " + clean(taskLine(task))
		if l := labels[task.ID]; l != task.ID {
			line = clean(l) + " (" + clean(task.ID) + ")  " + clean(taskLine(task))
		}
		field(label, st.dim, line)
		label = ""
	}
	if n := len(tl.Collapsed); n > 0 {
		ids := make([]string, 0, 8)
		for i, c := range tl.Collapsed {
			// Collapsed tasks are not in the list above: their full id.
			if i == 6 {
				ids = append(ids, fmt.Sprintf("… %d more", n-6))
				break
			}
			ids = append(ids, clean(c.ID)+" ("+t.ptr(tl.CollapsedAt[i])+")")
		}
		field(label, st.warn, fmt.Sprintf("%d uneventful task(s) collapsed, %d mark(s) not drawn: no crossing, confirmation, uncertainty, interruption or finding",
			n, tl.CollapsedMarks))
		for _, l := range strings.Split(wrapList(ids, width-hang, hang), "\n") {
			field("", st.dim, strings.TrimLeft(l, " "))
		}
	}
	switch {
	case k.Consumed != nil:
		c := k.Consumed
		field("consumed", st.bad, fmt.Sprintf("at %s by %s %s (%s)", clean(c.TS), name(c.Task), clean(c.Type),
			t.ptr(analyzer.Pointer{File: c.File, Line: c.Line})))
	case effect.Consumes(k.State):
		field("consumed", st.bad, "yes, with no crossing on record (see the findings)")
	}
	switch {
	case len(k.Evidence) == 0:
		fmt.Fprintf(b, "  %s\n", st.dim.Render("(no evidence yet)"))
	case len(tl.Marks) == 0:
		fmt.Fprintf(b, "  %s\n", st.dim.Render("(every task collapsed: nothing to draw)"))
	default:
		b.WriteString("\n")
		t.timeline(b, st, width, tl, name)
	}
}

// timeline draws a key scope's marks, time flowing down, one lane per
// task; columns: time, lanes, task, event, class, file:line, findings.
// name gives the label a task is shown by (see taskLabels).
func (t textRenderer) timeline(b *strings.Builder, st styles, width int, tl Timeline, name func(id string) string) {
	const indent = 2
	clockW, taskW, atW, findW := 10, 4, 2, 0
	maxID := 1
	for _, l := range tl.Lanes {
		maxID = max(maxID, ansi.StringWidth(name(l.ID)))
	}
	type row struct {
		clock, task, what, at, find string
	}
	rows := make([]row, len(tl.Marks))
	for i, m := range tl.Marks {
		fs := make([]string, 0, len(m.Findings))
		for _, n := range m.Findings {
			fs = append(fs, fmt.Sprintf("F%d", n))
		}
		rows[i] = row{clean(m.Clock()), name(m.Task), clean(m.What), t.ptr(m.At), strings.Join(fs, " ")}
		clockW = max(clockW, ansi.StringWidth(rows[i].clock))
		taskW = max(taskW, ansi.StringWidth(rows[i].task))
		atW = max(atW, ansi.StringWidth(rows[i].at))
		findW = max(findW, ansi.StringWidth(rows[i].find))
	}
	taskW = min(taskW, 24)
	if findW > 0 {
		findW = max(findW, len("findings"))
	}
	// Lanes: a cell per task, labelled by (the end of) its id; when they
	// would take more than a quarter of the width, the rest share one
	// overflow lane.
	labelW := min(maxID, 3)
	cellW := labelW + 1
	lanes := len(tl.Lanes)
	if budget := max(width/4/cellW, 2); lanes > budget {
		lanes = budget
	}
	overflow := len(tl.Lanes) - lanes
	if overflow > 0 {
		lanes-- // the last cell becomes the overflow lane
		overflow++
	}
	laneOf := map[string]int{}
	for i, l := range tl.Lanes {
		laneOf[l.ID] = min(i, lanes)
	}
	cells := lanes
	if overflow > 0 {
		cells++
	}
	// The overflow lane is labelled +N and may need a wider cell.
	cellWs := make([]int, cells)
	lanesW := 0
	for l := range cellWs {
		cellWs[l] = cellW
		if l == lanes {
			cellWs[l] = max(cellW, len(fmt.Sprintf("+%d", overflow))+1)
		}
		lanesW += cellWs[l]
	}
	classW := 12
	whatW := func() int {
		fixed := indent + clockW + 2 + lanesW + 1 + taskW + 2 + 2 + classW + 2 + atW
		if findW > 0 {
			fixed += 2 + findW
		}
		return width - fixed
	}
	if whatW() < 22 {
		// Long paths (an absolute folder) crowd out the events: say the
		// folder once and show paths under it.
		files := make([]string, 0, len(rows))
		for _, r := range rows {
			files = append(files, r.at)
		}
		if dir := commonDir(files); dir != "" {
			atW = 2
			for i := range rows {
				rows[i].at = strings.TrimPrefix(rows[i].at, dir)
				atW = max(atW, ansi.StringWidth(rows[i].at))
			}
			for i, l := range wrapText(dir, width-12) {
				label := "files in "
				if i > 0 {
					label = "         "
				}
				fmt.Fprintf(b, "  %s %s\n", st.dim.Render(label), st.dim.Render(l))
			}
		}
	}
	if whatW() < 22 {
		classW = 0 // the glyph and the legend still say the class
	}
	atHead := "at"
	if classW == 0 && whatW()+2 < 22 {
		// Still too long (a session file named by its UUID): when each
		// task's marks are all in one file, name that file once per task,
		// whole, and show only line numbers in the rows.
		fileOf := map[string]string{}
		lines := make([]string, len(rows))
		single := true
		for i, m := range tl.Marks {
			j := strings.LastIndexByte(rows[i].at, ':')
			if j < 0 {
				single = false
				break
			}
			f := rows[i].at[:j]
			if prev, ok := fileOf[m.Task]; ok && prev != f {
				single = false
				break
			}
			fileOf[m.Task], lines[i] = f, rows[i].at[j+1:]
		}
		if single {
			label := "file of  "
			for _, l := range tl.Lanes {
				f, ok := fileOf[l.ID]
				if !ok {
					continue
				}
				for k, line := range wrapWords(name(l.ID)+"  "+f, width-12) {
					if k > 0 {
						line = "  " + line
					}
					fmt.Fprintf(b, "  %s %s\n", st.dim.Render(label), st.dim.Render(line))
					label = "         "
				}
			}
			atHead, atW = "line", len("line")
			for i := range rows {
				rows[i].at = lines[i]
				atW = max(atW, len(lines[i]))
			}
		}
	}
	ww := max(whatW(), 8)
	if classW == 0 {
		ww = max(whatW()+2, 8)
	}
	// active[lane] is true between the first and the last mark of its task.
	firstMark, lastMark := map[int]int{}, map[int]int{}
	for i, m := range tl.Marks {
		l := laneOf[m.Task]
		if _, ok := firstMark[l]; !ok {
			firstMark[l] = i
		}
		lastMark[l] = i
	}
	laneCells := func(b *strings.Builder, i int, m *Mark) {
		for l := 0; l < cells; l++ {
			cell := " "
			style := st.dim
			if f, ok := firstMark[l]; ok && i > f && i <= lastMark[l] {
				cell = "│"
			}
			if laneOf[m.Task] == l {
				cell, style = glyph(m.Kind), st.class[m.Kind]
			}
			if cell != " " {
				cell = st.render(style, cell)
			}
			b.WriteString(cell)
			b.WriteString(strings.Repeat(" ", cellWs[l]-1))
		}
	}
	// Header.
	b.WriteString(strings.Repeat(" ", indent))
	st.cell(b, st.dim, "time", clockW)
	b.WriteString("  ")
	for l := 0; l < cells; l++ {
		label := ""
		if l < lanes {
			label = name(tl.Lanes[l].ID)
			if w := ansi.StringWidth(label); w > labelW {
				// Ids differ at their end (w1, w2), and so do labels:
				// each is the shortest prefix that tells it apart.
				label = ansi.TruncateLeft(label, w-labelW, "")
			}
		} else {
			label = fmt.Sprintf("+%d", overflow)
		}
		st.cell(b, st.task, label, cellWs[l])
	}
	b.WriteString(" ")
	st.cell(b, st.dim, "task", taskW)
	b.WriteString("  ")
	st.cell(b, st.dim, "event", ww)
	if classW > 0 {
		b.WriteString("  ")
		st.cell(b, st.dim, "class", classW)
	}
	b.WriteString("  ")
	st.cell(b, st.dim, atHead, atW)
	if findW > 0 {
		b.WriteString("  ")
		b.WriteString(st.dim.Render("findings"))
	}
	b.WriteString("\n")
	for i, m := range tl.Marks {
		if m.Gap > 0 {
			t.separator(b, st, st.dim, indent, clockW, cellWs, i, firstMark, lastMark, "⋮", humanGap(m.Gap)+" later")
		}
		if m.NewDay {
			t.separator(b, st, st.dim, indent, clockW, cellWs, i, firstMark, lastMark, m.Date(), "")
		}
		r := rows[i]
		b.WriteString(strings.Repeat(" ", indent))
		st.cell(b, st.dim, r.clock, clockW)
		b.WriteString("  ")
		laneCells(b, i, &tl.Marks[i])
		b.WriteString(" ")
		st.cell(b, st.task, r.task, taskW)
		b.WriteString("  ")
		st.cell(b, st.plain, r.what, ww)
		if classW > 0 {
			b.WriteString("  ")
			st.cell(b, st.class[m.Kind], m.Kind, classW)
		}
		b.WriteString("  ")
		if r.find == "" {
			b.WriteString(st.render(st.dim, r.at))
		} else {
			st.cell(b, st.dim, r.at, atW)
			b.WriteString("  ")
			b.WriteString(st.render(st.warn, r.find))
		}
		b.WriteString("\n")
		if m.Consumed {
			line := " scope consumed here "
			lw := max(width-indent-ansi.StringWidth(line), 8)
			b.WriteString(strings.Repeat(" ", indent))
			b.WriteString(st.bad.Render(strings.Repeat("━", lw/2) + line + strings.Repeat("━", lw-lw/2)))
			b.WriteString("\n")
		}
	}
}

// separator writes a row with no mark: a date, or a gap in time.
func (textRenderer) separator(b *strings.Builder, st styles, style lipgloss.Style, indent, clockW int, cellWs []int, i int, firstMark, lastMark map[int]int, left, right string) {
	b.WriteString(strings.Repeat(" ", indent))
	st.cell(b, style, left, clockW)
	b.WriteString("  ")
	for l, cw := range cellWs {
		cell := " "
		if f, ok := firstMark[l]; ok && i > f && i <= lastMark[l] {
			cell = "│"
		}
		if cell != " " {
			cell = st.render(style, cell)
		}
		b.WriteString(cell)
		b.WriteString(strings.Repeat(" ", cw-1))
	}
	if right != "" {
		b.WriteString(" ")
		b.WriteString(st.render(style, right))
	}
	b.WriteString("\n")
}

// headed writes "head rest" wrapped to width, head styled, continuation
// lines indented by two.
func headed(style lipgloss.Style, head, rest string, width int) string {
	lines := wrapText(rest, width-ansi.StringWidth(head)-1)
	return style.Render(head) + " " + strings.Join(lines, "\n  ") + "\n"
}

// commonDir is the folder (with its trailing separator) that holds every
// path, as the paths are displayed, or "".
func commonDir(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	prefix := clean(paths[0])
	for _, p := range paths[1:] {
		f := clean(p)
		for !strings.HasPrefix(f, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if i := strings.LastIndexAny(prefix, `/\`); i >= 0 {
		return prefix[:i+1]
	}
	return ""
}

// trimLines drops trailing blanks of every line (padding of last cells).
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// wrapList joins items with ", " into lines of at most w cells, indenting
// continuation lines by indent.
func wrapList(items []string, w, indent int) string {
	var b strings.Builder
	col := 0
	for i, it := range items {
		sep := ""
		if i > 0 {
			sep = ", "
		}
		iw := ansi.StringWidth(it)
		// +1: the comma that follows every item but the last.
		if col > 0 && col+len(sep)+iw+1 > w {
			b.WriteString(",\n" + strings.Repeat(" ", indent))
			col, sep = 0, ""
		}
		b.WriteString(sep + it)
		col += len(sep) + iw
	}
	return b.String()
}

// wrapText wraps plain text to w cells at spaces (see wrapWords).
func wrapText(text string, w int) []string { return wrapWords(text, w) }

func (t textRenderer) findings(b *strings.Builder, st styles, width int, r *Report) {
	if len(r.Findings) == 0 {
		fmt.Fprintf(b, "%s none\n", st.head.Render("Findings:"))
		return
	}
	fmt.Fprintf(b, "%s %d\n", st.head.Render("Findings:"), len(r.Findings))
	const hang = 16 // "  F1   CRITICAL "
	scopeNum := map[[2]string]int{}
	for i, k := range r.Keys {
		scopeNum[[2]string{k.Key, k.Scope}] = i + 1
	}
	for i, f := range r.Findings {
		sev := f.Severity
		head := clean(f.Rule)
		if f.Task != nil && !namesTask(f.Message, *f.Task) {
			head += " task " + clean(*f.Task)
		}
		lines := wrapText(head+": "+clean(f.Message), width-hang)
		fmt.Fprintf(b, "  %s %s %s\n", st.warn.Render(fmt.Sprintf("F%-3d", i+1)),
			st.severity[sev].Render(fmt.Sprintf("%-8s", strings.ToUpper(sev))), lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", hang), l)
		}
		if f.Key != nil {
			if n, ok := scopeNum[[2]string{*f.Key, deref(f.Scope)}]; ok {
				k := r.Keys[n-1]
				for _, l := range wrapText(fmt.Sprintf("in K%d %s scope %s", n, clean(destination(k)), clean(k.Scope)), width-hang) {
					fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", hang), st.dim.Render(l))
				}
			} else {
				fmt.Fprintf(b, "%s%s %s\n", strings.Repeat(" ", hang), st.key.Render(clean(*f.Key)), st.dim.Render("scope "+clean(deref(f.Scope))))
			}
		}
		if len(f.Evidence) > 0 {
			at := make([]string, 0, len(f.Evidence))
			for i, p := range f.Evidence {
				if i == 10 {
					at = append(at, fmt.Sprintf("… %d more", len(f.Evidence)-10))
					break
				}
				at = append(at, t.ptr(p))
			}
			for _, l := range strings.Split(wrapList(at, width-hang-3, hang+3), "\n") {
				if strings.TrimSpace(l) == "" {
					continue
				}
				if !strings.HasPrefix(l, " ") {
					l = strings.Repeat(" ", hang) + st.dim.Render("at ") + st.dim.Render(l)
				} else {
					l = st.dim.Render(l)
				}
				fmt.Fprintf(b, "%s\n", l)
			}
		}
	}
}

// namesTask says whether a message begins by naming the task ("task t2:
// …", "task t2 crossed …", "task t2's intent …"): the line then does not
// name it a second time ("task t2: task t2: …").
func namesTask(message, task string) bool {
	rest, ok := strings.CutPrefix(message, "task "+task)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == ':' || rest[0] == ',' || strings.HasPrefix(rest, "'s "))
}

func summaryLine(st styles, width int, r *Report) string {
	s := r.Summary
	var states []string
	keys := make([]string, 0, len(s.States))
	for k := range s.States {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		states = append(states, fmt.Sprintf("%d %s", s.States[k], k))
	}
	var fs []string
	for _, sev := range severities {
		if n := s.Findings[sev]; n > 0 {
			fs = append(fs, fmt.Sprintf("%d %s", n, sev))
		}
	}
	line := fmt.Sprintf("%d key scope(s)", s.Keys)
	if len(states) > 0 {
		line += " (" + strings.Join(states, ", ") + ")"
	}
	line += fmt.Sprintf(", %d finding(s)", len(r.Findings))
	if len(fs) > 0 {
		line += " (" + strings.Join(fs, ", ") + ")"
	}
	if sp := r.Suppressions; sp != nil {
		// The verdict counts only new findings: say so where it is said.
		var known []string
		if n := sp.Tally.Baseline; n > 0 {
			known = append(known, fmt.Sprintf("%d in the baseline", n))
		}
		if n := sp.Tally.Waived; n > 0 {
			known = append(known, fmt.Sprintf("%d waived", n))
		}
		line += fmt.Sprintf(", %d new", sp.Tally.New)
		if len(known) > 0 {
			line += ", " + strings.Join(known, ", ")
		}
	}
	verdict := st.ok.Render("PASS")
	if s.Failed {
		verdict = st.bad.Render("FAIL")
	}
	return headed(st.head, "Summary:", fmt.Sprintf("%s: %s (--fail-on %s)", verdict, line, s.FailOn), width)
}

func (t textRenderer) Check(w io.Writer, c *CheckReport) error {
	st := newStyles(w, t.opt.Color)
	width := termWidth(w, t.opt.Width)
	// As analyze does: the folder every input is in is said once, and
	// file:line pointers are shown under it.
	paths := make([]string, 0, len(c.Inputs))
	for _, in := range c.Inputs {
		paths = append(paths, in.Path)
	}
	for _, r := range c.Reasons {
		for _, p := range r.Evidence {
			paths = append(paths, p.File)
		}
	}
	t.base = commonDir(paths)
	var b strings.Builder
	verdict := st.ok.Render("ALLOW")
	if c.Decision != "allow" {
		verdict = st.bad.Render("STOP")
	}
	fmt.Fprintf(&b, "%s task %s at %s\n", verdict, clean(c.Task), clean(c.Checkpoint))
	if c.Key != nil {
		fmt.Fprintf(&b, "  key      %s\n  scope    %s\n", st.key.Render(clean(*c.Key)), clean(deref(c.Scope)))
	}
	if c.State != nil {
		fmt.Fprintf(&b, "  state    %s\n", st.stateStyle(*c.State).Render(*c.State))
	}
	if c.Executor != nil {
		fmt.Fprintf(&b, "  executor %s\n", clean(*c.Executor))
	}
	if t.base != "" {
		fmt.Fprintf(&b, "  %s %s\n", st.dim.Render("paths below are under"), st.dim.Render(t.base))
	}
	for _, r := range c.Reasons {
		rule := clean(r.Rule)
		lines := wrapWords(rule+" "+clean(r.Message), width-4)
		first, _ := strings.CutPrefix(lines[0], rule)
		fmt.Fprintf(&b, "  %s%s\n", st.head.Render(rule), first)
		for _, l := range lines[1:] {
			fmt.Fprintf(&b, "    %s\n", l)
		}
		if len(r.Evidence) > 0 {
			at := make([]string, 0, len(r.Evidence))
			for _, p := range r.Evidence {
				at = append(at, t.ptr(p))
			}
			for i, l := range wrapWords("at "+strings.Join(at, ", "), width-4) {
				if i > 0 {
					l = "  " + l
				}
				fmt.Fprintf(&b, "    %s\n", st.dim.Render(l))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
