package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFrom_ReadsVCSSettingsAndLdflagsWin(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.1"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"},
		{Key: "vcs.time", Value: "2026-11-30T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	got := from(bi, "", "", "", "")
	want := Info{Version: "v0.3.1", Revision: "0123456789abcdef0123", Time: "2026-11-30T10:00:00Z", Modified: true, GoVersion: "go1.26.8"}
	if got != want {
		t.Fatalf("from = %+v, want %+v", got, want)
	}
	if s := got.String(); s != "v0.3.1 (revision 0123456789ab, modified, 2026-11-30T10:00:00Z, go1.26.8)" {
		t.Errorf("String = %q", s)
	}
	got = from(bi, "v1.0.0", "feed", "2026-12-01T00:00:00Z", "false")
	if got.Version != "v1.0.0" || got.Revision != "feed" || got.Time != "2026-12-01T00:00:00Z" || got.Modified {
		t.Errorf("-ldflags values did not win: %+v", got)
	}
}

func TestFrom_NoRecordIsDevel(t *testing.T) {
	if got := from(nil, "", "", "", ""); got.Version != Devel || got.String() != Devel {
		t.Errorf("from(nil) = %+v", got)
	}
	if got := from(&debug.BuildInfo{}, "", "", "", ""); got.Version != Devel {
		t.Errorf("empty Main.Version = %q, want %q", got.Version, Devel)
	}
}

func TestGet_IsFixedInTests(t *testing.T) {
	if got := Get(); got != (Info{Version: Devel}) {
		t.Errorf("Get in a test binary = %+v, want only %q (goldens)", got, Devel)
	}
}

func TestSemVer(t *testing.T) {
	for v, want := range map[string]string{
		"v1.2.3":                             "1.2.3",
		"v0.0.0-20261130100000-0123456789ab": "0.0.0-20261130100000-0123456789ab",
		"v1.2.3+dirty":                       "1.2.3+dirty",
		"v1.2.3-rc.1":                        "1.2.3-rc.1",
		Devel:                                "",
		"1.2":                                "",
		"v01.2.3":                            "",
		"":                                   "",
	} {
		if got := (Info{Version: v}).SemVer(); got != want {
			t.Errorf("SemVer(%q) = %q, want %q", v, got, want)
		}
	}
}
