package policy

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// ErrTimeout is returned (wrapped) when evaluation ran out of time: the
// context's deadline passed or it was cancelled. Callers name their limit.
var ErrTimeout = errors.New("policy evaluation did not finish in time")

// refused lists the builtins the sandbox removes (OPA marks them
// non-deterministic: network, clock, randomness, remote schemas). Using one
// makes the compiler say "undefined function"; knowing that the name exists
// lets the error say why instead.
var refused = func() map[string]bool {
	m := map[string]bool{}
	for _, b := range ast.CapabilitiesForThisVersion().Builtins {
		if b.Nondeterministic {
			m[b.Name] = true
		}
	}
	return m
}()

// Refused reports whether the sandbox removes builtin name.
func Refused(name string) bool { return refused[name] }

// where formats a location as file:line:col, the form editors jump to.
func where(l *ast.Location) string {
	if l == nil {
		return "-"
	}
	file := l.File
	if file == "" {
		file = "-"
	}
	// Always three parts, so that editors and CI annotations can jump to
	// it; an unknown column (OPA gives none at the end of a file) is 1.
	return fmt.Sprintf("%s:%d:%d", file, l.Row, max(l.Col, 1))
}

// compileError turns OPA's parse and compile errors into one error that
// lists each as "file:line:col: code: message", in file order, with the
// details OPA gives (the source line and a caret for parse errors).
func compileError(err error) error {
	var errs ast.Errors
	if !errors.As(err, &errs) {
		var one *ast.Error
		if !errors.As(err, &one) {
			return fmt.Errorf("policy: %w", err)
		}
		errs = ast.Errors{one}
	}
	sorted := append(ast.Errors{}, errs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i].Location, sorted[j].Location
		if a == nil || b == nil {
			return a != nil
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Row != b.Row {
			return a.Row < b.Row
		}
		return a.Col < b.Col
	})
	var b strings.Builder
	if len(sorted) == 1 {
		b.WriteString("policy error:")
	} else {
		fmt.Fprintf(&b, "%d policy errors:", len(sorted))
	}
	for _, e := range sorted {
		msg := e.Message
		if name, ok := strings.CutPrefix(msg, "undefined function "); ok && refused[name] {
			msg = fmt.Sprintf("builtin %s is not allowed: policies run sandboxed, without network, clock or randomness, so that a verdict follows from the inputs alone", name)
		}
		fmt.Fprintf(&b, "\n  %s: %s: %s", where(e.Location), e.Code, msg)
		if e.Details != nil {
			for _, l := range e.Details.Lines() {
				fmt.Fprintf(&b, "\n    %s", l)
			}
		}
	}
	return &Error{msg: b.String(), errs: errs}
}

// Error is a policy error: Rego that does not parse or compile, a rule
// that breaks the contract for user rules, or an evaluation error. Its
// message names file:line:col wherever OPA knows it.
type Error struct {
	msg  string
	errs ast.Errors
}

func (e *Error) Error() string { return e.msg }

// Errors returns the underlying OPA errors, if any.
func (e *Error) Errors() ast.Errors { return e.errs }

func policyErrorf(format string, args ...any) error {
	return &Error{msg: fmt.Sprintf(format, args...)}
}

// evalError names where evaluation failed (a conflict, a builtin error) or
// that it ran out of time.
func evalError(err error) error {
	if topdown.IsCancel(err) {
		return fmt.Errorf("%w: %v", ErrTimeout, err)
	}
	var te *topdown.Error
	if errors.As(err, &te) {
		return &Error{msg: fmt.Sprintf("policy evaluation error:\n  %s: %s: %s", where(te.Location), te.Code, te.Message)}
	}
	return &Error{msg: fmt.Sprintf("policy evaluation error: %v", err)}
}
