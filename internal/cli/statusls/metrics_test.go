//go:build unix

package statusls

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/internal/promtest"
	"github.com/agentstatus/agentstatus/statusfile"
)

// metricsDir is a status directory of every kind of entry metrics counts:
// fresh sessions of three agents in every state (one unknown), waits with
// and without a since, stale records, invalid files, an ignored name, and
// a record whose every field but the title tries to break the exposition.
func metricsDir(t *testing.T) string {
	t.Helper()
	dir := privateDir(t)
	files := map[string][]byte{
		"w1": rec("w1", "agent", `"claude-code"`),
		"w2": rec("w2"),
		"b1": rec("b1", "agent", `"claude-code"`, "state", `"blocked"`, "waitingFor", `{"kind":"permission","tool":"Bash","detail":"rm -rf build","since":"2026-11-30T11:48:00.000Z"}`),
		"b2": rec("b2", "agent", `"codex"`, "state", `"blocked"`, "waitingFor", `{"kind":"question","since":"2026-11-30T11:59:30.500Z"}`),
		"b3": rec("b3", "agent", `"codex"`, "state", `"blocked"`),
		"i1": rec("i1", "state", `"idle"`, "ended", `{"reason":"done","at":"2026-11-30T11:58:00.000Z"}`),
		"u1": rec("u1", "state", `"reviewing"`),
		"s1": rec("s1", "agent", `"gemini"`, "updatedAt", `"2026-11-30T11:00:00.000Z"`),
		"s2": rec("s2", "state", `"blocked"`, "updatedAt", `"2026-11-30T11:00:00.000Z"`),
		"x1": []byte(`{"schema":`),
		"x2": nil,
		"x3": rec("x3", "schema", `"gentle-shell.agent-status/v2"`),
		"hostile\"\\\n": rec("hostile\"\\\n", "agent", jsonString("evil\"agent\\\n\x1b]0;pwned\x07"),
			"cwd", jsonString("/home/\"q\"/"+strings.Repeat("ü", 300)), "task", `{"title":`+jsonString(strings.Repeat("T", 4096))+`}`),
	}
	for session, data := range files {
		writeFile(t, dir, statusfile.FileName(session), data)
	}
	writeFile(t, dir, statusfile.FileName("someone-else"), rec("mismatch"))
	writeFile(t, dir, "notes.txt", []byte("not a status file"))
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, statusfile.FileName("link"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestMetricsGolden(t *testing.T) {
	t.Parallel()
	dir := metricsDir(t)
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"metrics.prom", nil},
		{"metrics.per-session.prom", []string{"--per-session"}},
		{"metrics.om.txt", []string{"--openmetrics", "--per-session"}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			res := run(t, runOpts{env: map[string]string{"STATUS_DIR": dir}}, append([]string{"metrics"}, c.args...)...)
			if res.code != 0 || res.stderr != "" {
				t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
			}
			if strings.Contains(res.stdout, "pwned") || strings.Contains(res.stdout, "TTTT") {
				t.Errorf("an escape sequence or the title reached the metrics:\n%s", res.stdout)
			}
			noControls(t, c.golden, res.stdout)
			golden(t, c.golden, res.stdout)
			promtest.CheckMetrics(t, c.golden, []byte(res.stdout))
		})
	}
}

// TestMetricsTextfile: --textfile DIR writes DIR/agentstatus.prom, what
// statusls metrics prints, mode 0644; a directory writable by others is
// refused with the rule and a hint, and nothing is written.
func TestMetricsTextfile(t *testing.T) {
	dir := metricsDir(t)
	env := map[string]string{"STATUS_DIR": dir}
	out := filepath.Join(t.TempDir(), "textfile")
	os.Mkdir(out, 0o755)
	os.Chmod(out, 0o755)
	res := run(t, runOpts{env: env}, "metrics", "--textfile", out)
	if res.code != 0 || res.stdout != "" || res.stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "agentstatus.prom"))
	if err != nil {
		t.Fatal(err)
	}
	if printed := run(t, runOpts{env: env}, "metrics"); string(data) != printed.stdout {
		t.Errorf("the textfile differs from what metrics prints:\n%s", data)
	}
	if fi, _ := os.Stat(filepath.Join(out, "agentstatus.prom")); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %04o, want 0644", fi.Mode().Perm())
	}

	open := openDir(t)
	res = run(t, runOpts{env: env}, "metrics", "--textfile", open)
	want := "statusls: textfile directory " + open + ": writable by others (mode 0777)\nstatusls: hint: "
	if res.code != 1 || !strings.HasPrefix(res.stderr, want) {
		t.Errorf("exit %d, stderr %q, want 1 and %q...", res.code, res.stderr, want)
	}
	if names, _ := os.ReadDir(open); len(names) != 0 {
		t.Errorf("a refused directory was written to: %v", names)
	}

	for _, args := range [][]string{
		{"metrics", "--textfile", out, "--openmetrics"},
		{"metrics", "extra"},
	} {
		if res := run(t, runOpts{env: env}, args...); res.code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage); stderr %q", args, res.code, res.stderr)
		}
	}
}
