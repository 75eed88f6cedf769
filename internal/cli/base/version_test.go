package base

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	checkout := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/agentstatus/agentstatus", Version: "(devel)"}}
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Main: checkout.Main, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "4bf9e8e0123456789abcdef0123456789abcdef0"},
		{Key: "vcs.time", Value: "2026-12-02T12:37:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	installed := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/agentstatus/agentstatus", Version: "v1.2.3"}}
	pseudo := &debug.BuildInfo{GoVersion: "go1.25.0", Main: debug.Module{Path: "github.com/agentstatus/agentstatus", Version: "v0.0.0-20261202123700-4bf9e8e01234"}}
	for _, tc := range []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  string
	}{
		{"release", "1.2.3", "abc1234def5678", "2026-12-02T10:11:12Z", checkout, "1.2.3 (commit abc1234, 2026-12-02)"},
		{"release, date in another zone", "1.2.3", "abc1234", "2026-12-02T23:30:00-02:00", nil, "1.2.3 (commit abc1234, 2026-12-03)"},
		{"snapshot", "0.0.0-SNAPSHOT-4bf9e8e", "4bf9e8e01234", "2026-12-02T10:11:12Z", nil, "0.0.0-SNAPSHOT-4bf9e8e (commit 4bf9e8e, 2026-12-02)"},
		{"release, date not RFC 3339", "1.2.3", "abc1234", "yesterday", nil, "1.2.3 (commit abc1234, yesterday)"},
		{"release, no commit", "1.2.3", "", "", nil, "1.2.3"},
		{"go install", "", "", "", installed, "1.2.3 (go1.26.8)"},
		{"go install of a commit", "", "", "", pseudo, "0.0.0-20261202123700-4bf9e8e01234 (go1.25.0)"},
		{"checkout", "", "", "", checkout, "(devel) go1.26.8"},
		{"checkout with VCS stamps", "", "", "", stamped, "(devel) (revision 4bf9e8e01234, 2026-12-02T12:37:00Z, modified) go1.26.8"},
		{"no build info", "", "", "", nil, "(unknown)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionOf(tc.version, tc.commit, tc.date, tc.bi); got != tc.want {
				t.Errorf("versionOf(%q, %q, %q) = %q, want %q", tc.version, tc.commit, tc.date, got, tc.want)
			}
		})
	}
}
