package transcripts

import (
	"path/filepath"
	"slices"
	"strings"
)

// A shell command line, as agents pass it to a shell tool, is split into
// its simple commands so that conventions judge each one: in
// `effectlint check … && curl -F f=@x https://…` the upload is a crossing
// whatever else the line does. This is a careful splitter, not a shell:
// it knows quotes ('…', "…", \), the list and pipe operators (&&, ||, ;,
// |, |&, &, newlines), comments, subshells ( … ) and { …; }, command
// substitutions $( … ) and `…`, and `bash|sh|… -c 'script'` and `eval`,
// whose scripts are split in turn. Redirections stay words of their
// command. What it does not understand it reads as more commands rather
// than fewer (a here-document's lines are read as commands): seeing a
// delivery that did not happen fails closed, missing one does not.

// shellPart is one simple command of a command line.
type shellPart struct {
	text  string   // the command's text as written (quotes kept), trimmed
	words []string // its words, shell quotes removed
	// splits[i]: word i holds, outside quotes, an expansion ($X, $(…),
	// `…`), a glob or a brace, which the shell may split or widen into
	// several arguments, flags among them: the words do not say what the
	// command was given.
	splits []bool
	// before and after are the operators that join it to its neighbours
	// in its list ("" at either end of the line).
	before, after string
	// nested: inside a subshell, a command substitution or a script
	// given to another shell; the line's exit status is not its own.
	nested bool
	// runs: the command hands a script to another shell (bash -c, eval);
	// the script's commands follow it and are judged instead.
	runs bool
	// scope: the lists the command sits in, outermost first (the line,
	// then each subshell, substitution or script by a number of its own):
	// a cd changes the directory of the commands after it in its own list
	// and in lists nested in it.
	scope []int
}

// splitShell splits a command line into its simple commands.
func splitShell(line string) []shellPart {
	return splitShellScope(line, false, 0, []int{0}, new(int))
}

const maxShellDepth = 8

func splitShellScope(line string, nested bool, depth int, scope []int, scopes *int) []shellPart {
	s := &shellSplit{src: line, nested: nested, depth: depth, scope: scope, scopes: scopes}
	s.run()
	s.end("")
	return s.parts
}

// nestedSplit splits the text of a subshell, substitution or script: a
// list of its own inside this one.
func (s *shellSplit) nestedSplit(text string) []shellPart {
	*s.scopes++
	scope := append(append([]int{}, s.scope...), *s.scopes)
	return splitShellScope(text, true, s.depth+1, scope, s.scopes)
}

type shellSplit struct {
	src    string
	nested bool
	depth  int
	scope  []int
	scopes *int // lists numbered so far in the line
	parts  []shellPart
	inner  []shellPart // parts found inside substitutions and subshells
	masks  [][2]int    // substitutions in the text: shown as $(…)
	start  int         // where the current command's text begins
	words  []string
	splits []bool // of each word (shellPart.splits)
	word   strings.Builder
	inWord bool
	split  bool // the word being read holds an unquoted expansion
	before string
}

func (s *shellSplit) flushWord() {
	if s.inWord {
		s.words = append(s.words, s.word.String())
		s.splits = append(s.splits, s.split)
		s.word.Reset()
		s.inWord, s.split = false, false
	}
}

// end closes the current command at the operator op.
func (s *shellSplit) end(op string) {
	s.endAt(len(s.src), op)
}

func (s *shellSplit) endAt(at int, op string) {
	s.flushWord()
	text := ""
	if s.start <= at && at <= len(s.src) {
		// The command's own text: a substitution's commands are parts of
		// their own, so their text is left out here.
		var b strings.Builder
		from := s.start
		for _, m := range s.masks {
			if m[0] >= from && m[1] <= at {
				b.WriteString(s.src[from:m[0]])
				b.WriteString("…")
				from = m[1]
			}
		}
		b.WriteString(s.src[from:at])
		text = strings.TrimSpace(b.String())
	}
	s.masks = nil
	if len(s.words) > 0 {
		p := shellPart{text: text, words: s.words, splits: s.splits, before: s.before, after: op, nested: s.nested, scope: s.scope}
		if script, ok := scriptOf(p.words); ok && s.depth < maxShellDepth {
			// bash -c 'a; b', eval "…": the script's commands, nested.
			p.runs = true
			s.parts = append(s.parts, p)
			s.parts = append(s.parts, s.nestedSplit(script)...)
		} else {
			s.parts = append(s.parts, p)
		}
	}
	s.parts = append(s.parts, s.inner...)
	s.inner = nil
	s.words, s.splits = nil, nil
	s.before = op
}

// scriptOf returns the script a command hands to another shell.
func scriptOf(words []string) (string, bool) {
	i := 0
	for i < len(words) && (isAssignment(words[i]) || wrapper[words[i]]) {
		i++
	}
	if i >= len(words) {
		return "", false
	}
	name := words[i]
	if j := strings.LastIndexByte(name, '/'); j >= 0 {
		name = name[j+1:]
	}
	if name == "eval" {
		return strings.Join(words[i+1:], " "), i+1 < len(words)
	}
	if !shells[name] {
		return "", false
	}
	for j := i + 1; j < len(words); j++ {
		w := words[j]
		if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
			return "", false
		}
		if !strings.HasPrefix(w, "--") && strings.ContainsRune(w, 'c') && j+1 < len(words) {
			return words[j+1], true
		}
	}
	return "", false
}

var shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "ash": true, "fish": true}

// wrapper commands run the command that follows them (! too, negating
// its status: ! bash -c '…' runs the script).
var wrapper = map[string]bool{"sudo": true, "env": true, "exec": true, "nohup": true, "time": true, "command": true, "nice": true, "!": true}

func isAssignment(w string) bool {
	i := strings.IndexByte(w, '=')
	if i <= 0 {
		return false
	}
	for _, r := range w[:i] {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func (s *shellSplit) run() {
	src := s.src
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\\':
			if i+1 < len(src) {
				if src[i+1] != '\n' { // a line continuation joins lines
					s.word.WriteByte(src[i+1])
					s.inWord = true
				}
				i += 2
				continue
			}
			i++
		case c == '\'':
			j := strings.IndexByte(src[i+1:], '\'')
			if j < 0 {
				j = len(src) - i - 1 // unterminated: to the end
			}
			s.word.WriteString(src[i+1 : i+1+j])
			s.inWord = true
			i += j + 2
		case c == '"':
			i = s.double(i + 1)
		case c == '`':
			i = s.backtick(i)
			s.inWord, s.split = true, true
		case c == '$' && i+1 < len(src) && src[i+1] == '(':
			j := matchParen(src, i+1)
			s.sub(src[i+2:j], i+2, j)
			s.word.WriteString(src[i:min(len(src), j+1)])
			s.inWord, s.split = true, true
			i = j + 1
		case c == '#' && !s.inWord:
			// A comment, to the end of the line.
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				s.endAt(i, "")
				s.start = len(src)
				return
			}
			s.endAt(i, ";")
			i += j
			s.start = i
		case c == '(' && !s.inWord:
			// A subshell (or arithmetic): its commands, nested.
			j := matchParen(src, i)
			s.endAt(i, s.before)
			s.before = ""
			s.sub(src[i+1:j], -1, -1)
			i = j + 1
			s.start = i
		case (c == '{' || c == '}') && !s.inWord && (i+1 == len(src) || isBlank(src[i+1]) || src[i+1] == ';'):
			s.endAt(i, s.before)
			i++
			s.start = i
		case c == ';' || c == '\n':
			s.endAt(i, ";")
			i++
			s.start = i
		case c == '&' || c == '|':
			op := string(c)
			if i+1 < len(src) && (src[i+1] == c || (c == '|' && src[i+1] == '&')) {
				op += string(src[i+1])
			}
			if c == '&' && op == "&" && s.redirectionAmp(i) {
				// >&2, &>file: part of a redirection, not an operator;
				// &> ends the word before it (URL&>log).
				if i+1 < len(src) && src[i+1] == '>' && !s.digitsOnly() {
					s.flushWord()
				}
				s.word.WriteByte(c)
				s.inWord = true
				i++
				continue
			}
			s.endAt(i, op)
			i += len(op)
			s.start = i
		case (c == '<' || c == '>') && i+1 < len(src) && src[i+1] == '(':
			// Process substitution <(…) / >(…): its commands, nested.
			s.flushWord()
			j := matchParen(src, i+1)
			s.sub(src[i+2:j], i+2, j)
			s.word.WriteString(src[i:min(len(src), j+1)])
			s.inWord = true
			i = j + 1
		case c == '<' || c == '>':
			// A redirection ends the word before it, as in the shell
			// (URL>/dev/null, <(…), <<<x), unless that word is the file
			// descriptor it redirects (2>&1): the operator starts a word
			// that its target, when glued to it, continues (>&2, >/dev/null).
			if !s.digitsOnly() && s.word.String() != "&" {
				s.flushWord()
			}
			j := i
			for j < len(src) && (src[j] == '<' || src[j] == '>' || src[j] == '|' && j == i+1 && src[i] == '>') {
				j++
			}
			if j < len(src) && src[j] == '&' {
				j++ // >&2
			}
			s.word.WriteString(src[i:j])
			s.inWord = true
			i = j
		case c == ')':
			// An unbalanced parenthesis ends a word too.
			s.flushWord()
			i++
		case isBlank(c):
			s.flushWord()
			i++
		default:
			if strings.IndexByte("$*?[{", c) >= 0 {
				// $X, ${X}, $'…', a glob, a brace: taken as a word the
				// shell may split or widen into several.
				s.split = true
			}
			s.word.WriteByte(c)
			s.inWord = true
			i++
		}
	}
}

// digitsOnly: the word being read is a file descriptor number (the 2 of
// 2>&1).
func (s *shellSplit) digitsOnly() bool {
	w := s.word.String()
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// redirectionAmp: the & at i belongs to a redirection (2>&1, >&2, &>f).
func (s *shellSplit) redirectionAmp(i int) bool {
	src := s.src
	if i > 0 && (src[i-1] == '>' || src[i-1] == '<') {
		return true
	}
	return i+1 < len(src) && src[i+1] == '>'
}

// double reads a "…" string from i (after the quote) and returns the index
// after its closing quote.
func (s *shellSplit) double(i int) int {
	src := s.src
	s.inWord = true
	for i < len(src) {
		c := src[i]
		switch {
		case c == '"':
			return i + 1
		case c == '\\' && i+1 < len(src) && strings.IndexByte("$`\"\\\n", src[i+1]) >= 0:
			if src[i+1] != '\n' {
				s.word.WriteByte(src[i+1])
			}
			i += 2
		case c == '$' && i+1 < len(src) && src[i+1] == '(':
			j := matchParen(src, i+1)
			s.sub(src[i+2:j], i+2, j)
			s.word.WriteString(src[i:min(len(src), j+1)])
			i = j + 1
		case c == '`':
			i = s.backtick(i)
		default:
			s.word.WriteByte(c)
			i++
		}
	}
	return i
}

// sub splits a substitution's or subshell's text (at [from, to) of the
// line, or -1 for a subshell): its commands are nested.
// backtick reads a `command substitution` starting at src[i] (unquoted or
// inside double quotes) and returns the index after it.
func (s *shellSplit) backtick(i int) int {
	src := s.src
	j := strings.IndexByte(src[i+1:], '`')
	if j < 0 {
		j = len(src) - i - 1 // unterminated: to the end
	}
	s.sub(src[i+1:i+1+j], i+1, i+1+j)
	s.word.WriteString(src[i:min(len(src), i+2+j)])
	return i + j + 2
}

func (s *shellSplit) sub(text string, from, to int) {
	if from >= 0 {
		s.masks = append(s.masks, [2]int{from, to})
	}
	if s.depth >= maxShellDepth {
		return
	}
	s.inner = append(s.inner, s.nestedSplit(text)...)
}

// matchParen returns the index of the ) that closes the ( at open,
// skipping quoted text; len(src) when there is none.
func matchParen(src string, open int) int {
	depth := 0
	for i := open; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '\'':
			j := strings.IndexByte(src[i+1:], '\'')
			if j < 0 {
				return len(src)
			}
			i += j + 1
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(src)
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// successImplied reports whether an exit status 0 of the whole line means
// that part i ran and exited 0: it is not nested, it is reached only
// through && since the last ; (or the start), and only && follow it.
func successImplied(parts []shellPart, i int) bool {
	if parts[i].nested {
		return false
	}
	for _, p := range parts {
		if p.nested {
			return false // a subshell or substitution: its status is not told
		}
	}
	for j := i; j >= 0; j-- {
		if parts[j].before == ";" || parts[j].before == "" {
			break
		}
		if parts[j].before != "&&" {
			return false
		}
	}
	for j := i; j < len(parts); j++ {
		if parts[j].after != "&&" && parts[j].after != "" {
			return false
		}
	}
	return true
}

// wordsText is the words of a command, one a line: what file_pattern reads.
func wordsText(words []string) string { return strings.Join(words, "\n") }

// unquoted is the command's words, shell quotes removed, joined by
// spaces (a word with blanks in single quotes): rules match this as well
// as the text as written, so that cu”rl, c\url and "curl" are curl.
func (p shellPart) unquoted() string {
	var b strings.Builder
	for i, w := range p.words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if strings.Contains(w, "$(") || strings.Contains(w, "`") {
			// A substitution's commands are parts of their own.
			b.WriteString("…")
			continue
		}
		if strings.ContainsAny(w, " \t\n") {
			b.WriteString("'" + w + "'")
		} else {
			b.WriteString(w)
		}
	}
	return b.String()
}

// Directory changes within one shell line. A relative file a command
// names resolves against the call's cwd, moved by each plain `cd DIR`
// (DIR a literal relative or absolute path) that runs before it in the
// same list (or a list that encloses the command's: a subshell,
// substitution or script inherits the directory), joined by && or ;. A cd
// in a list that has ended (`(cd sub) && …`) changes nothing after it.
// Where the directory cannot be followed (a cd in a pipeline or the
// background, `cd -`, `cd` alone, `cd ~…`, `cd $VAR`, pushd/popd, `env -C`
// / `--chdir`, `git -C`, a directory that is a substitution) the
// command's relative files cannot be found: unitCwd says so and the
// delivery is left without a key.

var chdirCommands = map[string]bool{"cd": true, "pushd": true, "popd": true, "chdir": true}

// maxCwdBytes bounds a directory followed through cd: past Linux's
// PATH_MAX a relative file cannot be opened by its path anyway, and a
// line of a million "cd a &&" would otherwise join ever longer paths
// (issue 15). Past it the directory is not known (fail closed: the
// delivery is left without a key), and no later cd is joined: each join
// cleans at most this much and the argument.
const maxCwdBytes = 4096

// shellLine is what the units of one shell line share, worked out once for
// the line: each unit walked every part before it, quadratic in the parts
// of a line and cubic with the directory joins (a 90 KB command line of
// "cd a && curl …" took 8 s, issue 15).
type shellLine struct {
	parts []shellPart
	base  string     // the call's directory dirs were worked out from
	dirs  []shellDir // per part: the directory it runs in
	ok    []bool     // per part: successImplied
}

// shellDir is the directory a part runs in, and whether it is known.
type shellDir struct {
	cwd   string
	known bool
}

func newShellLine(parts []shellPart) *shellLine { return &shellLine{parts: parts} }

// unitCwd is the directory a shell unit runs in, and whether it is known.
func unitCwd(u unit, cwd string) (string, bool) {
	if u.parts == nil {
		return cwd, true
	}
	l := u.line
	if l == nil {
		l = newShellLine(u.parts)
	}
	d := l.dir(u.i, cwd)
	return d.cwd, d.known
}

// dir is part i's directory for a call run in base.
func (l *shellLine) dir(i int, base string) shellDir {
	if l.dirs == nil || l.base != base {
		l.base, l.dirs = base, l.walkDirs(base)
	}
	return l.dirs[i]
}

// walkDirs follows the directory through the line once. A part sees the
// cd's of the parts before it in its own list and in the lists that
// enclose it. A nested list's parts follow the part that holds them,
// together, and a list's number is never used again once it has ended, so
// a stack of the lists enclosing the current part holds, for each, the
// directory its earlier parts left.
func (l *shellLine) walkDirs(base string) []shellDir {
	type open struct {
		scope []int
		dir   shellDir
	}
	out := make([]shellDir, len(l.parts))
	stack := []open{{scope: nil, dir: shellDir{cwd: base, known: true}}}
	for i, p := range l.parts {
		for len(stack) > 1 && !scopeWithin(p.scope, stack[len(stack)-1].scope) {
			stack = stack[:len(stack)-1]
		}
		if top := stack[len(stack)-1]; len(stack) == 1 || !slices.Equal(top.scope, p.scope) {
			stack = append(stack, open{scope: p.scope, dir: top.dir})
		}
		cur := &stack[len(stack)-1].dir
		out[i] = *cur
		name, args := commandName(p.words)
		if changesDirOption(name, args) {
			out[i].known = false
		}
		*cur = afterPart(*cur, p, name, args)
	}
	return out
}

// afterPart is the directory the parts after p (in its list and the lists
// nested in it) run in, given the one p runs in.
func afterPart(d shellDir, p shellPart, name string, args []string) shellDir {
	if !chdirCommands[name] {
		// A cd behind a keyword or inside a construct (if cd sub;
		// then …, while cd …, case … cd …) may or may not have run
		// (a fifth review: it was not followed, and the file was
		// hashed in the wrong directory).
		for _, w := range p.words {
			if chdirCommands[w] {
				d.known = false
			}
		}
		return d
	}
	// A cd in a pipeline runs in a subshell of its own (bash), or not
	// (lastpipe, zsh): which directory follows is not known.
	if name != "cd" || (p.after != "&&" && p.after != ";") || p.before == "|" || p.before == "|&" || len(args) != 1 {
		d.known = false
		return d
	}
	dir := args[0]
	switch {
	case dir == "-" || dir == "" || strings.ContainsAny(dir, "$`~*?[") || strings.HasPrefix(dir, "-"):
		d.known = false
	case !d.known:
		// Unknown stays unknown: no need to follow the path.
	case filepath.IsAbs(dir):
		d.cwd = dir
	default:
		// The limit is on the directory, once cleaned: a long argument
		// that cleans to a short path (./././…/b) is followed (the 47th
		// review: limiting the argument lost a delivery's key).
		if j := filepath.Join(d.cwd, dir); len(j) > maxCwdBytes {
			d.known = false
		} else {
			d.cwd = j
		}
	}
	return d
}

// success is successImplied(parts, i), worked out for the whole line once.
func (l *shellLine) success(i int) bool {
	if l.ok == nil {
		l.ok = successImpliedAll(l.parts)
	}
	return l.ok[i]
}

// successImpliedAll is successImplied for every part, in two passes.
func successImpliedAll(parts []shellPart) []bool {
	out := make([]bool, len(parts))
	for _, p := range parts {
		if p.nested {
			return out // a subshell or substitution: its status is not told
		}
	}
	// back[i]: the parts from i back to the start of its ;-list are
	// joined by &&; fwd[i]: from i to the end of the line, by && only.
	back := make([]bool, len(parts))
	for i := range parts {
		switch b := parts[i].before; {
		case b == ";" || b == "":
			back[i] = true
		case b == "&&":
			back[i] = i == 0 || back[i-1]
		}
	}
	fwd := true
	for i := len(parts) - 1; i >= 0; i-- {
		fwd = fwd && (parts[i].after == "&&" || parts[i].after == "")
		out[i] = back[i] && fwd
	}
	return out
}

// scopeWithin: the list inner is outer or nested in it.
func scopeWithin(inner, outer []int) bool {
	if len(outer) > len(inner) {
		return false
	}
	for i := range outer {
		if inner[i] != outer[i] {
			return false
		}
	}
	return true
}

// commandName is a command's name (after assignments and wrappers such
// as sudo, base name) and its arguments.
func commandName(words []string) (string, []string) {
	i := 0
	for i < len(words) && (isAssignment(words[i]) || wrapper[words[i]]) {
		if words[i] == "env" {
			break // env -C DIR is judged as env
		}
		i++
	}
	if i >= len(words) {
		return "", nil
	}
	name := words[i]
	if j := strings.LastIndexByte(name, '/'); j >= 0 {
		name = name[j+1:]
	}
	return name, words[i+1:]
}

// changesDirOption: the command runs in another directory by an option
// (env -C DIR, env --chdir=DIR, git -C DIR).
func changesDirOption(name string, args []string) bool {
	switch name {
	case "env":
		for _, a := range args {
			if a == "-C" || strings.HasPrefix(a, "--chdir") || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "C")) {
				return true
			}
		}
	case "git", "make", "tar":
		for _, a := range args {
			if a == "-C" || strings.HasPrefix(a, "--directory") {
				return true
			}
		}
	}
	return false
}
