package base

import (
	"runtime/debug"
	"strings"
	"time"
)

// The release build (.goreleaser.yaml) sets these at link time with
// -ldflags "-X github.com/agentstatus/agentstatus/internal/cli/base.version=1.2.3 ...":
// the release's version (without a "v"), the full commit hash and the
// commit's time (RFC 3339). A build without them reads the build info.
var (
	version string
	commit  string
	date    string
)

// Version is what --version prints after the program's name:
//
//   - a release build: "1.2.3 (commit abc1234, 2026-12-02)", from the
//     link-time variables above;
//   - go install …@v1.2.3: "1.2.3 (go1.26.8)", the module version from
//     the build info;
//   - a build in a checkout: "(devel) go1.26.8", with the VCS revision
//     when the build info holds one.
func Version() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(version, commit, date, bi)
}

// versionOf is [Version] of the link-time values and the build info bi
// (nil when the binary has none).
func versionOf(version, commit, date string, bi *debug.BuildInfo) string {
	if version != "" {
		var about []string
		if commit != "" {
			about = append(about, "commit "+commit[:min(len(commit), 7)])
		}
		if date != "" {
			if t, err := time.Parse(time.RFC3339, date); err == nil {
				date = t.UTC().Format(time.DateOnly)
			}
			about = append(about, date)
		}
		if len(about) == 0 {
			return version
		}
		return version + " (" + strings.Join(about, ", ") + ")"
	}
	if bi == nil {
		return "(unknown)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		// go install github.com/agentstatus/agentstatus/cmd/statusls@v1.2.3
		// (or a pseudo-version, or a build stamped from a tag).
		return strings.TrimPrefix(v, "v") + " (" + bi.GoVersion + ")"
	}
	v := "(devel)"
	vcs := map[string]string{}
	for _, s := range bi.Settings {
		vcs[s.Key] = s.Value
	}
	if rev := vcs["vcs.revision"]; rev != "" {
		v += " (revision " + rev[:min(len(rev), 12)]
		if when := vcs["vcs.time"]; when != "" {
			v += ", " + when
		}
		if vcs["vcs.modified"] == "true" {
			v += ", modified"
		}
		v += ")"
	}
	return v + " " + bi.GoVersion
}
