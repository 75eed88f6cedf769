//go:build unix

package statusls

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/timefmt"
	"github.com/agentstatus/agentstatus/statusfile"
)

// oneLinerFilter is the filter of the published jq one-liner (seed 000).
const oneLinerFilter = `select(.schema == "gentle-shell.agent-status/v1") |
  select((now - (.updatedAt | sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601)) <= 30) |
  [.agent, .session, .state, (.task.title // "")] | @tsv`

// oneLiner is the published reader, run by a shell as its users run it.
const oneLiner = `jq -r '` + oneLinerFilter + `' "$STATUS_DIR"/*.json 2>/dev/null`

// needJQ skips a test when jq is missing, unless AGENTSTATUS_REQUIRE_TOOLS=1.
func needJQ(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		if os.Getenv("AGENTSTATUS_REQUIRE_TOOLS") == "1" {
			t.Fatal("jq is required (AGENTSTATUS_REQUIRE_TOOLS=1) but not found")
		}
		t.Skip("jq not found")
	}
}

// wellFormedDir publishes sessions as publishers write them, updated at
// base minus a few seconds, with awkward but valid contents.
func wellFormedDir(t *testing.T, base time.Time) string {
	t.Helper()
	dir := privateDir(t)
	titles := []string{
		"Implement status adapter", "", `back\slash and "quotes"`, "日本語のタイトル", "emoji 👩‍💻 and ZWJ",
		"tab-free title with  two spaces", "ünïcödé", "a  b", "percent % and $dollar",
	}
	states := []statusfile.State{statusfile.Working, statusfile.Blocked, statusfile.Idle, "thinking"}
	agents := []string{"pi", "gentle-shell", "claude-code", ""}
	for i := 0; i < 40; i++ {
		s := statusfile.Status{
			Agent:   agents[i%len(agents)],
			Session: fmt.Sprintf("session-%02d-%s", i, []string{"x", "é", "\\", "s p"}[i%4]),
			PID:     1000 + i,
			Cwd:     fmt.Sprintf("/work/p%d", i%5),
			State:   states[i%len(states)],
			Title:   titles[i%len(titles)],
			// Fresh ones well inside the window, stale ones well outside:
			// the one-liner truncates fractions, so the last second before
			// the boundary differs by design (see the README).
			UpdatedAt: base.Add(-time.Duration(1+i%7) * time.Second).Add(-time.Duration(i*37) * time.Millisecond),
		}
		if i%6 == 5 {
			s.UpdatedAt = base.Add(-time.Duration(40+i) * time.Minute)
		}
		publish(t, dir, s)
	}
	return dir
}

// TestOneLinerParity checks that statusls (TSV) and statusls --jq-files with the
// one-liner's filter print byte for byte what the real one-liner prints.
func TestOneLinerParity(t *testing.T) {
	needJQ(t)
	realNow := time.Now()
	dir := wellFormedDir(t, realNow)
	cmd := exec.Command("sh", "-c", oneLiner)
	cmd.Env = append(os.Environ(), "STATUS_DIR="+dir)
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("one-liner: %v", err)
	}
	if strings.Count(string(want), "\n") < 20 {
		t.Fatalf("the one-liner printed only %d rows: the fixture is wrong\n%s", strings.Count(string(want), "\n"), want)
	}
	o := runOpts{now: realNow, env: map[string]string{"STATUS_DIR": dir}}
	if r := run(t, o); r.code != 0 || r.stdout != string(want) {
		t.Errorf("statusls (exit %d, stderr %q) differs from the one-liner:\n--- statusls ---\n%s--- jq ---\n%s", r.code, r.stderr, r.stdout, want)
	}
	if r := run(t, o, "--jq-files", oneLinerFilter, "-r"); r.code != 0 || r.stdout != string(want) {
		t.Errorf("statusls --jq-files (exit %d, stderr %q) differs from the one-liner:\n--- statusls ---\n%s--- jq ---\n%s", r.code, r.stderr, r.stdout, want)
	}
}

// TestJQOutputLikeJQ compares statusls --jq-files's output encoding with jq's for
// filters where jq 1.6 and gojq agree.
func TestJQOutputLikeJQ(t *testing.T) {
	t.Parallel()
	needJQ(t)
	dir := privateDir(t)
	publish(t, dir, statusfile.Status{Agent: "pi", Session: "s1", PID: 7, Cwd: "/w", State: "working", Title: "T \\ \"q\"", UpdatedAt: now})
	writeFile(t, dir, statusfile.FileName("s2"), []byte(`{"a":[],"b":{},"c":[1,{"d":null}],"e":"x\u00e9\"\\","f":1.5,"g":true,"h":-0.25,"i":1e3,"session":"s2"}`))
	files := []string{filepath.Join(dir, statusfile.FileName("s1")), filepath.Join(dir, statusfile.FileName("s2"))}
	slices.Sort(files) // the glob's order
	// Filters whose output jq 1.6 and gojq print alike. (They differ on the
	// order of keys: jq keeps the input's, gojq sorts them; see the README.)
	for _, f := range []string{
		`select(.session == "s2")`, ".session", ".task", "[.pid, .state]", "keys", "{n: 1, session}",
		"select(.a) | .c", ".e", "[.f, .g, null, .h, .i]", ".task.title // empty", `"a\tb"`, "@tsv \"\\([.e])\"",
	} {
		for _, raw := range []bool{false, true} {
			args := []string{f}
			if raw {
				args = append([]string{"-r"}, args...)
			}
			cmd := exec.Command("jq", append(args, files...)...)
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("jq %v: %v", args, err)
			}
			sargs := []string{"--dir", dir, "--jq-files", f}
			if raw {
				sargs = append(sargs, "-r")
			}
			r := run(t, runOpts{}, sargs...)
			// The two files are read in file-name order, as the glob gives
			// them to jq here.
			if r.code != 0 || r.stdout != string(want) {
				t.Errorf("%v: exit %d %s\n--- statusls ---\n%s--- jq ---\n%s", sargs[2:], r.code, r.stderr, r.stdout, want)
			}
		}
	}
}

// TestJQGolden runs the one-liner's filter at a fixed --now over the
// bad-input directory: what statusls --jq-files makes of every bad input.
func TestJQGolden(t *testing.T) {
	dir, _ := badDir(t)
	r := run(t, runOpts{}, "--dir", dir, "--now", nowText, "-r", "--jq-files", oneLinerFilter)
	// The filter fails on the files with a non-string or missing
	// updatedAt, as it does in jq (which exits 5): the error is reported,
	// the other files are still printed, and the exit status is 1.
	if r.code != base.ExitError {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	noControls(t, "--jq-files", r.stdout)
	golden(t, "badinput.jq.tsv", r.stdout)
	golden(t, "badinput.jq.stderr", r.stderr)
	// Strings are sanitized before the filter sees them: -r cannot print
	// a file's escape sequences.
	r = run(t, runOpts{}, "--dir", dir, "-r", "--jq-files", "select(.session == \"hostile\") | .agent, .cwd, .task.title, (keys[])")
	noControls(t, "--jq-files -r hostile", r.stdout)
	if !strings.Contains(r.stdout, "agent\n") {
		t.Errorf("hostile agent: %q", r.stdout)
	}
}

func TestJQ(t *testing.T) {
	t.Parallel()
	dir := privateDir(t)
	publish(t, dir, statusfile.Status{Agent: "pi", Session: "a", State: "blocked", Title: "Question", UpdatedAt: now})
	publish(t, dir, statusfile.Status{Agent: "pi", Session: "b", State: "idle", UpdatedAt: now.Add(-time.Hour)})
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string // a substring
	}{
		{"raw", []string{"-r", "--jq-files", ".session"}, 0, "b\na\n", ""},
		{"json", []string{"--jq-files", ".session"}, 0, "\"b\"\n\"a\"\n", ""},
		{"indent", []string{"--jq-files", "select(.session==\"a\") | {s: .session, t: .task}"}, 0, "{\n  \"s\": \"a\",\n  \"t\": {\n    \"title\": \"Question\"\n  }\n}\n", ""},
		{"compact", []string{"-c", "--jq-files", "select(.session==\"a\") | {s: .session, e: []}"}, 0, "{\"e\":[],\"s\":\"a\"}\n", ""},
		{"arg", []string{"--arg", "want", "a", "-r", "--jq-files", "select(.session == $want) | .state"}, 0, "blocked\n", ""},
		{"argjson", []string{"--argjson", "n", `{"x":[1,2]}`, "-c", "--jq-files", "select(.session == \"a\") | $n.x"}, 0, "[1,2]\n", ""},
		{"now flag", []string{"--now", "2026-11-30T12:00:30Z", "--jq-files", "select(.session == \"a\") | now"}, 0, "1796040030\n", ""},
		{"stale by now", []string{"--now", nowText, "-r", "--jq-files", "select(now - (.updatedAt | sub(\"\\\\.[0-9]+Z$\"; \"Z\") | fromdateiso8601) <= 30) | .session"}, 0, "a\n", ""},
		{"syntax error", []string{"--jq-files", ".a | ]"}, 2, "", "syntax error at line 1, column 6"},
		{"syntax error line 2", []string{"--jq-files", ".a |\n  .b )"}, 2, "", "line 2, column 6"},
		{"unterminated", []string{"--jq-files", `"abc`}, 2, "", "unterminated string literal"},
		{"undefined variable", []string{"--jq-files", "$nope"}, 2, "", "variable not defined"},
		{"runtime error continues", []string{"-r", "--jq-files", "if .session == \"b\" then error(\"boom\") else .session end"}, 1, "a\n", "boom"},
		{"timeout", []string{"--jq-timeout", "100ms", "--jq-files", "def f: f; f"}, 1, "", "stopped after 100ms"},
		{"infinite output stopped", []string{"--jq-timeout", "100ms", "--jq-files", "repeat(1) | empty"}, 1, "", "stopped after"},
		{"halt", []string{"-r", "--jq-files", ".session, halt"}, 0, "b\n", ""},
		{"halt_error", []string{"--jq-files", "\"bye\\n\" | halt_error"}, 1, "", "bye"},
		{"-r without --jq", []string{"-r"}, 2, "", "-r needs --jq"},
		{"--arg without --jq", []string{"--arg", "a", "b"}, 2, "", "need --jq"},
		{"--jq-files with --state", []string{"--jq-files", ".", "--state", "idle"}, 2, "", "cannot be combined"},
		{"bad argjson", []string{"--argjson", "x", "{", "--jq-files", "."}, 2, "", "invalid JSON"},
		{"missing arg value", []string{"--jq-files", ".", "--arg", "x"}, 2, "", "needs a name and a value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, runOpts{}, append([]string{"--dir", dir}, tt.args...)...)
			if r.code != tt.code || r.stdout != tt.stdout || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, stderr with %q", r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.stderr)
			}
			if tt.code == 0 && r.stderr != "" {
				t.Errorf("stderr: %q", r.stderr)
			}
		})
	}
}

// sessionsDir holds sessions for the filter, sort and summary tests.
func sessionsDir(t *testing.T) string {
	dir := privateDir(t)
	for _, s := range []statusfile.Status{
		{Agent: "pi", Session: "w1", Cwd: "/home/user/src/api", State: "working", Title: "Build", UpdatedAt: now.Add(-3 * time.Second)},
		{Agent: "claude-code", Session: "b1", Cwd: "/home/user/src/web", State: "blocked", Title: "Approve?", UpdatedAt: now.Add(-20 * time.Second)},
		{Agent: "pi", Session: "i1", Cwd: "/home/user/src/api/sub", State: "idle", UpdatedAt: now.Add(-1 * time.Second)},
		{Agent: "codex", Session: "t1", Cwd: "/home/user/src/apiary", State: "thinking", Title: "Hmm", UpdatedAt: now.Add(-8 * time.Second)},
		{Agent: "pi", Session: "w2", Cwd: "/srv/x", State: "working", Title: "Deploy", UpdatedAt: now.Add(-2 * time.Second)},
		{Agent: "pi", Session: "old", Cwd: "/home/user/src/api", State: "blocked", Title: "Gone", UpdatedAt: now.Add(-time.Hour)},
	} {
		publish(t, dir, s)
	}
	return dir
}

func sessionsOf(out string) string {
	var s []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if f := strings.Split(l, "\t"); len(f) == 4 {
			s = append(s, f[1])
		}
	}
	return strings.Join(s, " ")
}

func TestFiltersSortSummaryCount(t *testing.T) {
	dir := sessionsDir(t)
	env := map[string]string{"HOME": "/home/user"}
	tests := []struct {
		args []string
		want string // sessions, in order, or the exact output for summary/count
	}{
		{nil, "w2 i1 w1 t1 b1"}, // file-name order
		{[]string{"--sort", "attention"}, "b1 w2 w1 i1 t1"},
		{[]string{"--sort", "updated"}, "i1 w2 w1 t1 b1"},
		{[]string{"--sort", "name"}, "w2 i1 w1 t1 b1"},
		{[]string{"--all", "--sort", "attention"}, "b1 old w2 w1 i1 t1"},
		{[]string{"--state", "working"}, "w2 w1"},
		{[]string{"--state", "working,blocked", "--all"}, "w2 w1 b1 old"},
		{[]string{"--state", "other:thinking"}, "t1"},
		{[]string{"--agent", "pi"}, "w2 i1 w1"},
		{[]string{"--agent", "codex,claude-code"}, "t1 b1"},
		{[]string{"--cwd", "/home/user/src/api"}, "i1 w1"},
		{[]string{"--cwd", "/home/user/src/api/"}, "i1 w1"},
		{[]string{"--cwd", "~/src"}, "i1 w1 t1 b1"},
		{[]string{"--cwd", "/"}, "w2 i1 w1 t1 b1"},
		{[]string{"--cwd", "/home/user/src/ap"}, ""},
		{[]string{"--agent", "pi", "--state", "idle"}, "i1"},
	}
	for _, tt := range tests {
		r := run(t, runOpts{env: env}, append([]string{"--dir", dir}, tt.args...)...)
		if r.code != 0 || sessionsOf(r.stdout) != tt.want {
			t.Errorf("%v: exit %d %s: got %q, want %q", tt.args, r.code, r.stderr, sessionsOf(r.stdout), tt.want)
		}
	}
	exact := []struct {
		args []string
		want string
	}{
		{[]string{"--summary"}, "1 blocked · 2 working · 1 idle · 1 thinking\n"},
		{[]string{"--summary", "--state", "idle"}, "1 idle\n"},
		{[]string{"--summary", "--state", "other:nothing"}, ""},
		{[]string{"--summary", "--all"}, "2 blocked · 2 working · 1 idle · 1 thinking\n"},
		{[]string{"--count"}, "5\n"},
		{[]string{"--count", "--state", "blocked"}, "1\n"},
		{[]string{"--count", "--state", "other:nothing"}, "0\n"},
		{[]string{"--count", "--all"}, "6\n"},
	}
	for _, tt := range exact {
		r := run(t, runOpts{env: env}, append([]string{"--dir", dir}, tt.args...)...)
		if r.code != 0 || r.stdout != tt.want {
			t.Errorf("%v: exit %d %s: got %q, want %q", tt.args, r.code, r.stderr, r.stdout, tt.want)
		}
	}
	// The table sorts by attention by default and fits the width.
	r := run(t, runOpts{env: env, terminal: true, width: 100}, "--dir", dir, "--color", "never")
	golden(t, "sessions.table", r.stdout)
	r = run(t, runOpts{env: env, terminal: true, width: 100}, "--dir", dir, "--color", "always", "--all")
	golden(t, "sessions.color.table", r.stdout)
	// NO_COLOR turns colours off on a terminal, --color=always back on.
	noColor := map[string]string{"HOME": "/home/user", "NO_COLOR": "1"}
	if r := run(t, runOpts{env: noColor, terminal: true}, "--dir", dir); strings.Contains(r.stdout, "\x1b") {
		t.Errorf("NO_COLOR: colours printed:\n%s", r.stdout)
	}
	if r := run(t, runOpts{env: env, terminal: true}, "--dir", dir); !strings.Contains(r.stdout, "\x1b[1;31mblocked\x1b[0m") {
		t.Errorf("no colour on a terminal:\n%q", r.stdout)
	}
	if r := run(t, runOpts{env: noColor, terminal: true}, "--dir", dir, "--color", "always"); !strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("--color=always: no colour:\n%s", r.stdout)
	}
	// --now moves the clock: an hour later nothing is fresh.
	if r := run(t, runOpts{}, "--dir", dir, "--count", "--now", "2026-11-30T13:00:00Z"); r.stdout != "0\n" {
		t.Errorf("--now an hour later: %q", r.stdout)
	}
}

// TestTableWidths renders the sessions at every width from 1 to 120 and
// checks that no line is ever longer than the width, and that columns give
// way in the documented order.
func TestTableWidths(t *testing.T) {
	t.Parallel()
	dir := sessionsDir(t)
	publish(t, dir, statusfile.Status{Agent: "gentle-shell", Session: "wide", Cwd: "/home/user/プロジェクト/ウェブ", State: "working", Title: "日本語のタイトルとても長い 👩‍💻 emoji", UpdatedAt: now})
	prevCols := 0
	for w := 1; w <= 120; w++ {
		r := run(t, runOpts{env: map[string]string{"HOME": "/home/user", "COLUMNS": fmt.Sprint(w)}, terminal: true, width: 999}, "--dir", dir, "--color", "never")
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		for _, l := range lines {
			if got := displayWidth(l); got > w {
				t.Errorf("width %d: line of %d columns: %q", w, got, l)
			}
		}
		cols := strings.Fields(lines[0])
		if len(cols) < prevCols {
			t.Errorf("width %d: %v has fewer columns than at a narrower width", w, cols)
		}
		prevCols = len(cols)
		// The order columns give way in: agent, age, cwd, title, session; state stays.
		order := []string{"STATE", "SESSION", "TITLE", "CWD", "AGE", "AGENT"}
		for i := range len(cols) {
			if i < len(order) && !containsStr(cols, order[i]) && w >= 5 {
				t.Errorf("width %d: header %v lacks %s", w, cols, order[i])
			}
		}
	}
	golden(t, "wide.table.40", run(t, runOpts{env: map[string]string{"HOME": "/home/user", "COLUMNS": "40"}, terminal: true}, "--dir", dir, "--color", "never").stdout)
	golden(t, "wide.table.72", run(t, runOpts{env: map[string]string{"HOME": "/home/user", "COLUMNS": "72"}, terminal: true}, "--dir", dir, "--color", "never").stdout)
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestJSON(t *testing.T) {
	dir := sessionsDir(t)
	// Liveness compares the process's start with updatedAt: the record is
	// written now, on the real clock, so that this (live) process started
	// before it however recently the test binary started (a record 1.5 s
	// old on the real clock came before a process that a loaded machine
	// started less than 0.5 s ago, which made it "reused"). The listing's
	// clock, --now, is 1.5 s later.
	updated := time.Now().UTC().Truncate(time.Millisecond)
	base := updated.Add(1500 * time.Millisecond)
	baseText := string(timefmt.Append(nil, base))
	publish(t, dir, statusfile.Status{Agent: "pi", Session: "me", PID: os.Getpid(), Cwd: "/w", State: "idle", UpdatedAt: updated})
	publish(t, dir, statusfile.Status{Agent: "pi", Session: "me2", Cwd: "/w", State: "idle", UpdatedAt: updated})
	r := run(t, runOpts{}, "--dir", dir, "--ndjson", "--cwd", "/w", "--now", baseText)
	var objs []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		objs = append(objs, m)
	}
	if len(objs) != 2 {
		t.Fatalf("%d objects: %s", len(objs), r.stdout)
	}
	me := objs[1]
	if objs[0]["session"] == "me" {
		me = objs[0]
	}
	want := map[string]any{
		"file": statusfile.FileName("me"), "schema": statusfile.Schema, "session": "me", "agent": "pi",
		"pid": float64(os.Getpid()), "cwd": "/w", "state": "idle", "title": nil, "updatedAt": string(timefmt.Append(nil, updated)),
		"waitingFor": nil, "ended": nil,
		"fresh": true, "age": 1.5, "alive": true, "verdict": "fresh", "reason": nil, "error": nil,
	}
	for k, v := range want {
		if me[k] != v {
			t.Errorf("%s: %#v, want %#v", k, me[k], v)
		}
	}
	other := objs[0]
	if other["session"] == "me" {
		other = objs[1]
	}
	if other["pid"] != nil || other["alive"] != nil {
		t.Errorf("unknown pid: pid %v, alive %v; want null, null", other["pid"], other["alive"])
	}
	if len(me) != len(want) {
		t.Errorf("keys: %v", me)
	}
	if r := run(t, runOpts{}, "--dir", dir, "--json", "--state", "other:nothing"); r.stdout != "[]\n" {
		t.Errorf("empty --json: %q", r.stdout)
	}
	if r := run(t, runOpts{}, "--dir", dir, "--ndjson", "--state", "other:nothing"); r.stdout != "" {
		t.Errorf("empty --ndjson: %q", r.stdout)
	}
	// The conformance suite's reader adapter.
	r = run(t, runOpts{env: map[string]string{"STATUS_DIR": dir}}, "--ndjson", "--now", nowText)
	if n := strings.Count(r.stdout, "\n"); r.code != 0 || n != 5 {
		t.Errorf("adapter: exit %d, %d lines", r.code, n)
	}
}

func TestUsageAndErrors(t *testing.T) {
	dir := privateDir(t)
	tests := []struct {
		name string
		args []string
		code int
		out  string // substring of stdout
		err  string // substring of stderr
	}{
		{"help", []string{"--help"}, 0, "tmux", ""},
		{"help word", []string{"help"}, 0, "--jq FILTER", ""},
		{"prune help", []string{"prune", "--help"}, 0, "--dry-run", ""},
		{"doctor help", []string{"doctor", "-h"}, 0, "Exit status", ""},
		{"unknown flag", []string{"--frobnicate"}, 2, "", "statusls: unknown flag --frobnicate"},
		{"argument", []string{"extra"}, 2, "", `unexpected argument "extra"`},
		{"two modes", []string{"--json", "--tsv"}, 2, "", "cannot be combined"},
		{"bad sort", []string{"--sort", "random"}, 2, "", "unknown order"},
		{"bad color", []string{"--color", "sometimes"}, 2, "", "--color"},
		{"bad now", []string{"--now", "yesterday"}, 2, "", "RFC 3339"},
		{"bad jq-timeout", []string{"--jq", ".", "--jq-timeout", "0s"}, 2, "", "positive"},
		{"missing dir", []string{"--dir", filepath.Join(dir, "none")}, 0, "", ""},
		{"missing dir json", []string{"--dir", filepath.Join(dir, "none"), "--json"}, 0, "[]", ""},
		{"prune argument", []string{"prune", "now"}, 2, "", "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, runOpts{}, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.out) || !strings.Contains(r.stderr, tt.err) {
				t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			if tt.code == base.ExitUsage && !strings.Contains(r.stderr, "statusls: hint:") {
				t.Errorf("no hint: %q", r.stderr)
			}
		})
	}
}

func TestRefusedDirectory(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	os.Mkdir(real, 0o700)
	link := filepath.Join(root, "link")
	os.Symlink(real, link)
	open := openDir(t)
	for _, tt := range []struct {
		dir, err, hint string
	}{
		{link, "symbolic link refused", "R2"},
		{open, "writable by group or others (mode 0777)", "chmod 700 " + open},
	} {
		for _, args := range [][]string{{"--dir", tt.dir}, {"--dir", tt.dir, "--json"}, {"--dir", tt.dir, "--jq", "."}, {"--dir", tt.dir, "--jq-files", "."}, {"prune", "--dir", tt.dir}} {
			r := run(t, runOpts{}, args...)
			if r.code != base.ExitError || r.stdout != "" || !strings.Contains(r.stderr, "statusls: status directory "+tt.dir+": "+tt.err) || !strings.Contains(r.stderr, "statusls: hint: ") || !strings.Contains(r.stderr, tt.hint) {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
			}
		}
		r := run(t, runOpts{}, "doctor", "--dir", tt.dir)
		if r.code != base.ExitError || !strings.Contains(r.stdout, "PROBLEM") || !strings.Contains(r.stdout, "hints:") {
			t.Errorf("doctor %s: exit %d\n%s", tt.dir, r.code, r.stdout)
		}
	}
}

func TestDoctorLocations(t *testing.T) {
	dir := privateDir(t)
	home := filepath.Dir(dir)
	other := filepath.Join(t.TempDir(), "other")
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want []string
	}{
		{"flag", nil, []string{"--dir", dir}, []string{"status directory: " + dir, "chosen by --dir"}},
		{"config home flag", nil, []string{"--config-home", home}, []string{"chosen by --config-home"}},
		{"STATUS_DIR", map[string]string{"STATUS_DIR": dir, "GENTLE_PI_CONFIG_HOME": other}, nil, []string{"chosen by $STATUS_DIR = " + dir, "publishers ignore $STATUS_DIR (SPEC.md L4)", "unset STATUS_DIR"}},
		{"GENTLE_PI_CONFIG_HOME", map[string]string{"GENTLE_PI_CONFIG_HOME": home}, nil, []string{"chosen by $GENTLE_PI_CONFIG_HOME = " + home}},
		{"default", map[string]string{"HOME": other}, nil, []string{"chosen by default", "status directory: ~/.pi/gentle-ai/agent-status", "does not exist yet", "statusls demo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, runOpts{env: tt.env}, append([]string{"doctor"}, tt.args...)...)
			for _, w := range tt.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("no %q in:\n%s", w, r.stdout)
				}
			}
		})
	}
	// A status directory that publishers refuse (P4) but readers accept.
	os.Chmod(dir, 0o755)
	r := run(t, runOpts{}, "doctor", "--dir", dir)
	if r.code != base.ExitError || !strings.Contains(r.stdout, "PROBLEM for publishers: accessible by group or others (mode drwxr-xr-x (0755)): they refuse to write (P4)") || !strings.Contains(r.stdout, "ok for readers") {
		t.Errorf("doctor, 0755 status directory: exit %d\n%s", r.code, r.stdout)
	}
	os.Chmod(home, 0o777)
	r = run(t, runOpts{}, "doctor", "--dir", dir)
	if !strings.Contains(r.stdout, "config home: PROBLEM: writable by group or others (mode drwxrwxrwx (0777)): publishers refuse to write (P2)") {
		t.Errorf("doctor, 0777 config home:\n%s", r.stdout)
	}
}

func TestDemo(t *testing.T) {
	env := map[string]string{"HOME": "/home/user"}
	r := run(t, runOpts{env: env}, "demo")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	golden(t, "demo.tsv", r.stdout)
	r = run(t, runOpts{env: env, terminal: true, width: 100}, "demo")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	golden(t, "demo.table", r.stdout)
	if !strings.Contains(r.stdout, "\x1b[1;31mblocked") {
		t.Error("the demo table on a terminal has no colour")
	}
}

// TestDemoCleansUp checks that the demo leaves nothing behind.
func TestDemoCleansUp(t *testing.T) {
	tmp := t.TempDir()
	var stdout, stderr strings.Builder
	code := Run([]string{"demo"}, base.Env{Stdout: &stdout, Stderr: &stderr, TempDir: tmp, Getenv: func(string) string { return "" }})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
	if n := strings.Count(stdout.String(), "\n"); n != 4 {
		t.Errorf("%d rows:\n%s", n, stdout.String())
	}
}

// TestNotOwned needs root: a file of another account is invalid
// (not-owned, R7) and a directory of another account is refused (R2).
func TestNotOwned(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give files to another account")
	}
	dir := privateDir(t)
	name := publish(t, dir, statusfile.Status{Agent: "pi", Session: "theirs", State: "working", UpdatedAt: now})
	if err := os.Chown(filepath.Join(dir, name), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if r := run(t, runOpts{}, "--dir", dir); r.code != 0 || r.stdout != "" {
		t.Errorf("TSV: exit %d, %q", r.code, r.stdout)
	}
	if r := run(t, runOpts{}, "--dir", dir, "--json", "--all"); !strings.Contains(r.stdout, `"reason":"not-owned"`) {
		t.Errorf("--json --all: %s", r.stdout)
	}
	if r := run(t, runOpts{}, "doctor", "--dir", dir); !strings.Contains(r.stdout, "invalid  "+name+"  not-owned") || !strings.Contains(r.stdout, "(R7)") {
		t.Errorf("doctor:\n%s", r.stdout)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if r := run(t, runOpts{}, "--dir", dir); r.code != base.ExitError || !strings.Contains(r.stderr, "owned by another account") || !strings.Contains(r.stderr, "hint:") {
		t.Errorf("foreign directory: exit %d, %q", r.code, r.stderr)
	}
}
