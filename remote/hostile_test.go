//go:build unix

package remote

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/internal/testmain"
)

// fakeSSH writes an executable "ssh" that prints stdout (from a file),
// then stderr, then exits with code: a host that answers as told.
func fakeSSH(t *testing.T, stdout, stderr string, code int) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "out"), []byte(stdout), 0o600)
	os.WriteFile(filepath.Join(dir, "err"), []byte(stderr), 0o600)
	script := "#!/bin/sh\ncat '" + dir + "/out'\ncat '" + dir + "/err' >&2\nexit " + itoa(code) + "\n"
	p := filepath.Join(dir, "ssh")
	testbin.WriteProgram(t, p, script)
	return p
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestListHostileOutput(t *testing.T) {
	t.Parallel()
	good := entryLine(rec("s1", "working", "fine"))
	hostile := strings.Replace(entryLine(rec("s2", "blocked", "x")), `"title":"x"`, `"title":"\u001b[2J\u001b]0;pwned\u0007evil \u202e txt"`, 1)
	hostile = strings.Replace(hostile, `"agent":"claude-code"`, `"agent":"a\u001b[31mred"`, 1)
	noVerdict := strings.Replace(good, `,"verdict":"fresh"`, "", 1)
	badName := strings.Replace(good, `"file":"`, `"file":"../`, 1)
	wrongSession := strings.Replace(good, `"session":"s1"`, `"session":"other"`, 1)
	pidString := strings.Replace(good, `"pid":42`, `"pid":"42"`, 1)
	for _, tc := range []struct {
		name           string
		stdout, stderr string
		code           int
		kind           string // "" for success
		msg            string
	}{
		{"ok", "[\n" + good + ",\n" + hostile + "\n]\n", "", 0, "", ""},
		{"empty", "[]\n", "", 0, "", ""},
		{"invalid JSON", "[\n{\"file\": nope}\n]\n", "", 0, kindOutput, "bad output"},
		{"two values on a line", "[\n" + good + good + "\n]\n", "", 0, kindOutput, ""},
		{"not a listing", "Welcome to devbox!\n[]\n", "", 0, kindOutput, "does not start"},
		{"cut short", "[\n" + good + ",\n", "", 0, kindOutput, "without ']'"},
		{"junk after", "[]\nrm -rf /\n", "", 0, kindOutput, "after the listing"},
		{"huge line", "[\n" + strings.Repeat("x", maxLineBytes+10) + "\n]\n", "", 0, kindOutput, "longer than"},
		{"path as file name", "[\n" + badName + "\n]\n", "", 0, kindOutput, "not a status file name"},
		{"file of another session", "[\n" + wrongSession + "\n]\n", "", 0, kindOutput, "not the file of its session"},
		{"wrong type", "[\n" + pidString + "\n]\n", "", 0, kindOutput, ""},
		{"older statusls", "[\n" + noVerdict + "\n]\n", "", 0, kindVersion, "older"},
		{"usage error", "", "statusls: flag provided but not defined: -all\n", 2, kindVersion, "flag provided but not defined"},
		{"not installed", "", "sh: 1: statusls: not found\n", 127, kindMissing, "not installed"},
		{"unreachable", "", "ssh: connect to host devbox port 22: Connection refused\r\n", 255, kindSSH, "Connection refused"},
		{"escape in ssh's message", "", "ssh: \x1b]0;owned\x07Could not resolve\n", 255, kindSSH, "Could not resolve"},
		{"refused directory", "", "statusls: status directory /home/u/.pi/gentle-ai/agent-status is writable by others\nstatusls: hint: run 'chmod 700 /home/u/.pi/gentle-ai/agent-status'\n", 1, kindRefused, "writable by others"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &Config{SSH: fakeSSH(t, tc.stdout, tc.stderr, tc.code), Timeout: 20 * time.Second}
			res := List(context.Background(), cfg, []string{"devbox"})[0]
			if tc.kind == "" {
				if res.Err != nil {
					t.Fatalf("error: %v", res.Err)
				}
				for _, e := range res.Entries {
					for _, s := range []string{e.Status.Title, e.Status.Agent, string(e.Status.State)} {
						if strings.ContainsAny(s, "\x1b\x07\u202e") {
							t.Errorf("unsanitized string %q", s)
						}
					}
				}
				return
			}
			if res.Err == nil {
				t.Fatalf("no error; entries %v", res.Entries)
			}
			if res.Err.Kind != tc.kind || !strings.Contains(res.Err.Msg, tc.msg) {
				t.Errorf("got %s %q, want %s containing %q", res.Err.Kind, res.Err.Msg, tc.kind, tc.msg)
			}
			if strings.ContainsAny(res.Err.Msg+res.Err.Hint, "\x1b\x07") {
				t.Errorf("an escape reached the message: %q", res.Err.Msg)
			}
			if res.Err.Hint == "" && tc.kind != kindOutput {
				t.Errorf("no hint for %s", tc.kind)
			}
		})
	}
}

func TestListHostileTitleSanitized(t *testing.T) {
	line := strings.Replace(entryLine(rec("s2", "blocked", "x")), `"title":"x"`, `"title":"\u001b[31mred\u001b[0m \u001b]8;;http://x\u0007link\u001b]8;;\u0007"`, 1)
	cfg := &Config{SSH: fakeSSH(t, "[\n"+line+"\n]\n", "", 0)}
	res := List(context.Background(), cfg, []string{"h"})[0]
	if res.Err != nil || len(res.Entries) != 1 {
		t.Fatalf("%v %v", res.Err, res.Entries)
	}
	if got := res.Entries[0].Status.Title; got != "red link" {
		t.Errorf("title %q, want %q", got, "red link")
	}
	if want, _ := cfg.args("h", []string{"--json", "--all"}); !slices.Equal(res.Args, want) {
		t.Errorf("Args %q, want %q", res.Args, want)
	}
}

func TestListTooLarge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	line := entryLine(rec("s1", "working", strings.Repeat("t", 1000)))
	// 1 MiB instead of the default 32: the same code, a thirty-second of
	// the decoding. A listing just under the bound passes.
	const max = 1 << 20
	if (&Config{}).maxBytes() != maxHostBytes {
		t.Fatalf("the default bound is %d, want maxHostBytes", (&Config{}).maxBytes())
	}
	for _, tt := range []struct {
		lines   int
		wantErr bool
	}{{max/len(line) + 2, true}, {max/len(line) - 2, false}} {
		script := "#!/bin/sh\necho '['\nyes '" + line + ",' | head -n " + itoa(tt.lines-1) + "\necho '" + line + "'\necho ']'\n"
		p := filepath.Join(dir, "ssh")
		testbin.WriteProgram(t, p, script)
		res := List(context.Background(), &Config{SSH: p, MaxBytes: max}, []string{"h"})[0]
		if !tt.wantErr {
			if res.Err != nil || len(res.Entries) != tt.lines {
				t.Errorf("%d lines: %d entries, %+v", tt.lines, len(res.Entries), res.Err)
			}
			continue
		}
		if res.Err == nil || res.Err.Kind != kindOutput || !strings.Contains(res.Err.Msg, "too large") {
			t.Fatalf("%d lines: got %+v", tt.lines, res.Err)
		}
	}
}

// TestListHangingHost: a host that never answers costs its timeout, and
// the others are listed meanwhile.
func TestListHangingHost(t *testing.T) {
	testmain.SkipShort(t, "waits out a hanging host's 3 s timeout")
	t.Parallel()
	dir := t.TempDir()
	good := entryLine(rec("s1", "working", "fine"))
	os.WriteFile(filepath.Join(dir, "out"), []byte("[\n"+good+"\n]\n"), 0o600)
	// The last argument is the remote command; the host comes before it.
	script := `#!/bin/sh
for a; do prev="$host"; host="$a"; done
case "$prev" in
hang) exec sleep 60 ;;
esac
cat '` + dir + `/out'
`
	p := filepath.Join(dir, "ssh")
	testbin.WriteProgram(t, p, script)
	// 3 s: the good hosts' sh and cat must start within it under -race
	// on a loaded machine (500 ms missed at a load average of 54).
	cfg := &Config{SSH: p, Timeout: 3 * time.Second}
	start := time.Now()
	res := List(context.Background(), cfg, []string{"ok1", "hang", "ok2"})
	took := time.Since(start)
	if res[1].Err == nil || res[1].Err.Kind != kindTimeout {
		t.Errorf("hang: %+v", res[1].Err)
	}
	for _, i := range []int{0, 2} {
		if res[i].Err != nil || len(res[i].Entries) != 1 {
			t.Errorf("%s: %+v %v", res[i].Host, res[i].Err, res[i].Entries)
		}
	}
	// Not a timing assertion: far below the 60 s the fake sleeps.
	if took > 30*time.Second {
		t.Errorf("the hanging host held the listing for %v", took)
	}
}

// TestSSHArgv: what ssh receives, argument by argument: our options, "--",
// the host alone, then the remote command as one argument.
func TestSSHArgv(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ssh")
	testbin.WriteProgram(t, p, "#!/bin/sh\nfor a; do printf '%s\\n' \"$a\"; done > '"+dir+"/args'\necho '[]'\n")
	cfg := &Config{SSH: p, Command: "~/bin/statusls"}
	if r := List(context.Background(), cfg, []string{"user@dev-box"}); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "args"))
	want := "-T\n-o\nBatchMode=yes\n-o\nConnectTimeout=5\n-o\nControlMaster=no\n-o\nControlPath=none\n--\nuser@dev-box\n~/bin/statusls --json --all\n"
	if string(got) != want {
		t.Errorf("ssh got\n%s\nwant\n%s", got, want)
	}
}

// TestWaitRetries: a wait whose connection drops is asked again, and its
// answer is passed on.
func TestWaitRetries(t *testing.T) {
	testmain.SkipShort(t, "waits out the 1 s before a retry")
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "ssh")
	testbin.WriteProgram(t, p, `#!/bin/sh
if [ ! -e '`+dir+`/tried' ]; then
	touch '`+dir+`/tried'
	echo "Connection to devbox closed by remote host." >&2
	exit 255
fi
for a; do last="$a"; done
case "$last" in
*"wait --until-eof --any --state blocked --timeout "*) echo s9; exit 0 ;;
esac
echo "unexpected: $last" >&2
exit 1
`)
	var lost []*HostError
	r := Wait(context.Background(), &Config{SSH: p}, "devbox", []string{"--any", "--state", "blocked"}, time.Minute, func(he *HostError) { lost = append(lost, he) })
	if r.Err != nil || r.Code != 0 || string(r.Output) != "s9" {
		t.Fatalf("got %+v (%v)", r, r.Err)
	}
	if len(lost) != 1 || lost[0].Kind != kindSSH || !strings.Contains(lost[0].Msg, "closed by remote host") {
		t.Errorf("lost: %+v", lost)
	}
}
