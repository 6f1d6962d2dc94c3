// Package buildinfo says which effectlint is running: the module version
// and, when the binary was built from a checkout, the VCS revision and time.
// The CLI prints it (`effectlint version`) and the reports carry it (SARIF
// tool.driver.version, the JSON reports' tool), so a finding can be traced
// to the build that made it.
package buildinfo

import (
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// Set with -ldflags at build time; each overrides what the Go toolchain
// recorded, e.g.
//
//	go build -ldflags "-X github.com/effectlint/effectlint/internal/buildinfo.version=v1.2.0 \
//	  -X github.com/effectlint/effectlint/internal/buildinfo.revision=$(git rev-parse HEAD)"
//
// (a release built from a tarball has no VCS stamp of its own).
var (
	version  string
	revision string
	time     string
	modified string // "true" or "false"
)

// Devel is the version of a build that carries none (go run, go test, a
// build outside a module): what Go itself prints for such a build.
const Devel = "(devel)"

// Info describes one build.
type Info struct {
	// Version is the module version (v1.2.3, a pseudo-version, or Devel).
	Version string `json:"version"`
	// Revision and Time are the VCS commit and its time, when known.
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	// Modified: the working tree had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"go,omitempty"`
}

// Get returns the running build's information. In a test binary it is
// always {Version: Devel}: reports written by tests (goldens) must not
// change with the commit they were run at.
func Get() Info {
	if testing.Testing() {
		return Info{Version: Devel}
	}
	bi, _ := debug.ReadBuildInfo()
	return from(bi, version, revision, time, modified)
}

// from joins the toolchain's record with the -ldflags overrides.
func from(bi *debug.BuildInfo, v, rev, t, mod string) Info {
	var in Info
	if bi != nil {
		in.Version = bi.Main.Version
		in.GoVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Revision = s.Value
			case "vcs.time":
				in.Time = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	if v != "" {
		in.Version = v
	}
	if rev != "" {
		in.Revision = rev
	}
	if t != "" {
		in.Time = t
	}
	if mod != "" {
		in.Modified = mod == "true"
	}
	if in.Version == "" {
		in.Version = Devel
	}
	return in
}

// semver is SemVer 2.0.0's own grammar, with Go's leading v allowed.
var semver = regexp.MustCompile(`^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// SemVer returns the version as SemVer 2.0.0 (without Go's v), or "" when
// it is not one (Devel): SARIF's semanticVersion must be valid semver.
func (in Info) SemVer() string {
	if !semver.MatchString(in.Version) {
		return ""
	}
	return strings.TrimPrefix(in.Version, "v")
}

// String is the one line `effectlint --version` prints after the name:
// "v1.2.3 (revision 0123456789ab, modified, 2026-11-30T10:00:00Z, go1.26.8)".
func (in Info) String() string {
	var extra []string
	if in.Revision != "" {
		r := in.Revision
		if len(r) > 12 {
			r = r[:12]
		}
		extra = append(extra, "revision "+r)
	}
	if in.Modified {
		extra = append(extra, "modified")
	}
	if in.Time != "" {
		extra = append(extra, in.Time)
	}
	if in.GoVersion != "" {
		extra = append(extra, in.GoVersion)
	}
	if len(extra) == 0 {
		return in.Version
	}
	return in.Version + " (" + strings.Join(extra, ", ") + ")"
}
