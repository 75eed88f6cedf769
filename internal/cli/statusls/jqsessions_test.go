package statusls

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

// jqSessionsDir has two fresh sessions, one stale and one invalid file.
func jqSessionsDir(t *testing.T) string {
	t.Helper()
	dir := privateDir(t)
	publish(t, dir, statusfile.Status{Agent: "pi", Session: "a", PID: 1, Cwd: "/w/p", State: "blocked", Title: "Question", UpdatedAt: now.Add(-2 * time.Second)})
	publish(t, dir, statusfile.Status{Agent: "claude", Session: "c", PID: 2, Cwd: "/w/q", State: "working", Title: "Build \u001b[31mit", UpdatedAt: now.Add(-time.Second)})
	publish(t, dir, statusfile.Status{Agent: "pi", Session: "b", PID: 3, Cwd: "/w/p", State: "idle", UpdatedAt: now.Add(-time.Hour)})
	writeFile(t, dir, statusfile.FileName("broken"), []byte(`{"schema":`))
	return dir
}

// --jq runs over exactly what --json prints, after the same selection
// flags: the same objects in the same order.
func TestJQSessionsAreJSONOutput(t *testing.T) {
	dir := jqSessionsDir(t)
	for _, flags := range [][]string{
		nil,
		{"--all"},
		{"--state", "blocked"},
		{"--agent", "pi", "--all"},
		{"--cwd", "/w/p", "--all"},
		{"--sort", "updated"},
		{"--sort", "attention", "--all"},
	} {
		args := append([]string{"--dir", dir}, flags...)
		j := run(t, runOpts{}, append(args, "--json")...)
		q := run(t, runOpts{}, append(args, "--jq", ".")...)
		if j.code != 0 || q.code != 0 {
			t.Fatalf("%v: --json exit %d %s; --jq exit %d %s", flags, j.code, j.stderr, q.code, q.stderr)
		}
		if strings.Count(q.stdout, "\n") != 1 {
			t.Errorf("%v: --jq . piped is not one compact line: %q", flags, q.stdout)
		}
		var want, got any
		if err := json.Unmarshal([]byte(j.stdout), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(q.stdout), &got); err != nil {
			t.Fatalf("%v: --jq . printed %q: %v", flags, q.stdout, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: --jq . differs from --json:\n%s\n%s", flags, q.stdout, j.stdout)
		}
	}
}

func TestJQSessions(t *testing.T) {
	t.Parallel()
	dir := jqSessionsDir(t)
	empty := privateDir(t)
	tests := []struct {
		name     string
		args     []string
		terminal bool
		code     int
		stdout   string
		stderr   string // a substring
	}{
		{"titles raw, fresh only", []string{"--sort", "updated", "--jq", ".[].title"}, false, 0, "Build it\nQuestion\n", ""},
		{"-r changes nothing", []string{"--sort", "updated", "-r", "--jq", ".[].title"}, false, 0, "Build it\nQuestion\n", ""},
		{"--json --jq as in gh", []string{"--sort", "updated", "--json", "--jq", ".[].session"}, false, 0, "c\na\n", ""},
		{"--all adds stale and invalid", []string{"--all", "--jq", "[.[] | .verdict] | sort | join(\",\")"}, false, 0, "fresh,fresh,invalid,stale\n", ""},
		{"--state", []string{"--state", "blocked", "--jq", ".[].session"}, false, 0, "a\n", ""},
		{"--agent", []string{"--agent", "claude", "--jq", ".[] | .agent + \" \" + .state"}, false, 0, "claude working\n", ""},
		{"--sort updated", []string{"--sort", "updated", "--jq", "map(.session) | join(\" \")"}, false, 0, "c a\n", ""},
		{"numbers as JSON", []string{"--jq", "length, (.[] | select(.session == \"a\") | .pid, .fresh)"}, false, 0, "2\n1\ntrue\n", ""},
		{"compact when piped", []string{"--jq", ".[] | select(.session == \"a\") | {session, state}"}, false, 0, "{\"session\":\"a\",\"state\":\"blocked\"}\n", ""},
		{"indented on a terminal", []string{"--jq", ".[] | select(.session == \"a\") | {session}"}, true, 0, "{\n  \"session\": \"a\"\n}\n", ""},
		{"-c on a terminal", []string{"-c", "--jq", ".[] | select(.session == \"a\") | {session}"}, true, 0, "{\"session\":\"a\"}\n", ""},
		{"--arg", []string{"--arg", "s", "c", "--jq", ".[] | select(.session == $s) | .title"}, false, 0, "Build it\n", ""},
		{"--now", []string{"--now", "2026-11-30T12:00:40Z", "--jq", "length, now"}, false, 0, "0\n1796040040\n", ""},
		{"no sessions", []string{"--dir", empty, "--jq", ".[]"}, false, 0, "", ""},
		{"runtime error", []string{"--jq", ".[] | error(\"boom\")"}, false, 1, "", "boom"},
		{"timeout", []string{"--jq-timeout", "100ms", "--jq", "def f: f; f"}, false, 1, "", "statusls: --jq: filter stopped after 100ms"},
		{"syntax error", []string{"--jq", ".[] |"}, false, 2, "", "statusls: --jq: syntax error"},
		{"--ndjson and --jq", []string{"--ndjson", "--jq", "."}, false, 2, "", "cannot be combined"},
		{"--jq and --jq-files", []string{"--jq", ".", "--jq-files", "."}, false, 2, "", "--jq and --jq-files cannot be combined"},
		{"--jq-files refuses --all", []string{"--jq-files", ".", "--all"}, false, 2, "", "--jq-files cannot be combined with --all"},
		{"-c needs a jq flag", []string{"-c"}, false, 2, "", "-c needs --jq or --jq-files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, runOpts{terminal: tt.terminal}, append([]string{"--dir", dir}, tt.args...)...)
			if r.code != tt.code || r.stdout != tt.stdout || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, stderr with %q", r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.stderr)
			}
			if tt.code == 0 && r.stderr != "" {
				t.Errorf("stderr: %q", r.stderr)
			}
		})
	}
}
