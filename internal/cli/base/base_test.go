package base

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestSuggest(t *testing.T) {
	for _, tc := range []struct {
		in   string
		cand []string
		want string
	}{
		{"idel", States, "idle"},
		{"Blocked", States, "blocked"},
		{"blokced", States, "blocked"},
		{"wrking", States, "working"},
		{"sleeping", States, ""},
		{"wach", []string{"watch", "wait", "doctor"}, "watch"},
		{"doc", []string{"watch", "wait", "doctor"}, "doctor"},
		{"x", []string{"watch", "wait"}, ""},
		{"", []string{"a"}, ""},
	} {
		if got := Suggest(tc.in, tc.cand); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseStates(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"idle", "[idle]", ""},
		{"working, blocked", "[working blocked]", ""},
		{"other:reviewing", "[reviewing]", ""},
		{"idel", "", `unknown state "idel"; did you mean idle?`},
		{"Blocked", "", "did you mean blocked?"},
		{"reviewing", "", "other:reviewing"},
		{"other:idle", "", "is a known state"},
		{"other:", "", "names no state"},
		{",", "", "no state given"},
	} {
		got, err := ParseStates(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseStates(%q) = %v, %v; want error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != tc.want {
			t.Errorf("ParseStates(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	if d, err := ParseDuration("1m30s"); err != nil || d != 90*time.Second {
		t.Errorf("1m30s: %v, %v", d, err)
	}
	if _, err := ParseDuration("10"); err == nil || !strings.Contains(err.Error(), "add a unit, e.g. 10s") {
		t.Errorf("10: %v", err)
	}
	if _, err := ParseDuration("soon"); err == nil || !strings.Contains(err.Error(), "not a duration") {
		t.Errorf("soon: %v", err)
	}
}

func TestMessage(t *testing.T) {
	err := fmt.Errorf("publish /x: %w", errors.New("status directory is group- or world-accessible\nreally\r\nso"))
	if got, want := Message(err), "publish /x: status directory is group- or world-accessible really so"; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
}

// testProgram has a default command, a subcommand with flags, and a hook.
func testProgram(out, errb *bytes.Buffer, got *[]string) *Program {
	p := &Program{Name: "prog", Summary: "prog does things", Env: &Env{Stdout: out, Stderr: errb}}
	p.Default = &Command{Usage: "[flags]", Setup: func(fs *FlagSet) Runner {
		var dir string
		fs.String(&dir, "dir", "", "DIR", "the directory")
		return func(args []string) int { *got = append([]string{"list", dir}, args...); return 0 }
	}}
	p.Commands = []*Command{
		{Name: "watch", Summary: "follow", Usage: "watch [flags]", Examples: "prog watch --on blocked", Setup: func(fs *FlagSet) Runner {
			var dir, on string
			var quiet bool
			var timeout time.Duration
			fs.String(&dir, "dir", "", "DIR", "the directory")
			fs.String(&on, "on", "", "STATE", "on which state")
			fs.Shorthand(fs.Bool(&quiet, "quiet", false, "say less"), "q")
			fs.Duration(&timeout, "timeout", 0, "D", "give up after D")
			return func(args []string) int {
				if on == "nothing" {
					return p.ReportUsage("watch: --on %s is no state", on)
				}
				*got = append([]string{"watch", dir, on, fmt.Sprint(quiet), timeout.String()}, args...)
				return 0
			}
		}},
		{Name: "hook", Summary: "a hook", Usage: "hook", Hook: true, Setup: func(fs *FlagSet) Runner {
			var pid int
			var strict bool
			fs.Int(&pid, "pid", 0, "PID", "a pid")
			fs.Bool(&strict, "strict", false, "exit 1 on failure")
			return func(args []string) int {
				if len(args) > 0 {
					fmt.Fprintln(p.Env.Stderr, "prog: hook: unexpected argument")
					return ExitUsage
				}
				if pid < 0 {
					return p.ReportUsage("hook: --pid %d is negative", pid)
				}
				return 0
			}
		}},
		{Name: "panic", Summary: "a hook that panics", Usage: "panic", Hook: true, Hidden: true, Setup: func(fs *FlagSet) Runner {
			var strict bool
			fs.Bool(&strict, "strict", false, "exit 1 on failure")
			return func(args []string) int { panic("boom\nsecond line") }
		}},
	}
	return p
}

func TestProgramRun(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		got    string
		stderr string // a substring; "" means empty
		stdout string // a substring; "" means empty
	}{
		{args: []string{"--dir", "D", "watch"}, got: "[watch D  false 0s]"},
		{args: []string{"watch", "--dir=D", "x", "--on", "blocked", "-q"}, got: "[watch D blocked true 0s x]"},
		{args: []string{"-dir", "D", "watch", "--", "--on"}, got: "[watch D  false 0s --on]"},
		{args: []string{"--dir", "D"}, got: "[list D]"},
		{args: []string{"wach"}, code: 2, stderr: `prog: unknown command "wach"; did you mean watch?`},
		{args: []string{"watch", "--bogus"}, code: 2, stderr: "prog: watch: unknown flag --bogus\nprog: hint: run 'prog watch --help' for usage\n"},
		{args: []string{"watch", "--on", "nothing"}, code: 2, stderr: "prog: watch: --on nothing is no state\nprog: hint: run 'prog watch --help' for usage\n"},
		{args: []string{"hook", "--pid", "-1"}, code: 0, stderr: "prog: hook: --pid -1 is negative\n"},
		{args: []string{"hook", "--pid", "-1", "--strict"}, code: 1, stderr: "prog: hook: --pid -1 is negative\n"},
		{args: []string{"watch", "--tiemout", "1s"}, code: 2, stderr: "did you mean --timeout?"},
		{args: []string{"watch", "--timeout", "10"}, code: 2, stderr: `prog: watch: --timeout: "10" has no unit; add a unit, e.g. 10s`},
		{args: []string{"watch", "--on"}, code: 2, stderr: "--on needs a value"},
		{args: []string{"watch", "--help"}, stdout: "prog watch: follow\n\nUsage:\n  prog watch [flags]\n"},
		{args: []string{"help", "watch"}, stdout: "prog watch: follow\n\nUsage:\n  prog watch [flags]\n"},
		{args: []string{"help", "wtch"}, code: 2, stderr: "did you mean watch?"},
		{args: []string{"--version"}, stdout: "prog "},
		{args: []string{"hook", "--pid"}, code: 0, stderr: "prog: hook: --pid needs a value (--pid PID)\n"},
		{args: []string{"hook", "--pid", "x"}, code: 0, stderr: "prog: hook: --pid: \"x\" is not a whole number\n"},
		{args: []string{"hook", "--bogus"}, code: 0, stderr: "prog: hook: unknown flag --bogus\n"},
		{args: []string{"hook", "--bogus", "--strict"}, code: 1, stderr: "prog: hook: unknown flag --bogus\n"},
		{args: []string{"hook", "extra"}, code: 0, stderr: "prog: hook: unexpected argument\n"},
		{args: []string{"hook", "extra", "--strict"}, code: 1, stderr: "prog: hook: unexpected argument\n"},
		{args: []string{"panic"}, code: 0, stderr: "prog: panic: internal error: boom second line\n"},
		{args: []string{"panic", "--strict"}, code: 1, stderr: "prog: panic: internal error: boom second line\n"},
		{args: []string{"completion", "bash"}, stdout: "complete -o default -F _prog_complete prog"},
		{args: []string{"completion", "bsh"}, code: 2, stderr: "did you mean bash?"},
		{args: []string{"__complete", "w"}, stdout: "watch\n"},
		{args: []string{"__complete", "watch", "--t"}, stdout: "--timeout\n"},
		{args: []string{"__complete", "--dir", "x", ""}, stdout: "completion\nhelp\nhook\nwatch\n"},
	} {
		var out, errb bytes.Buffer
		var got []string
		code := testProgram(&out, &errb, &got).Run(tc.args)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.args, code, tc.code, errb.String())
		}
		if tc.got != "" && fmt.Sprint(got) != tc.got {
			t.Errorf("%q: ran %v, want %s", tc.args, got, tc.got)
		}
		if tc.stderr == "" && errb.Len() > 0 || !strings.Contains(errb.String(), tc.stderr) {
			t.Errorf("%q: stderr %q, want %q", tc.args, errb.String(), tc.stderr)
		}
		if tc.stdout == "" && out.Len() > 0 || !strings.Contains(out.String(), tc.stdout) {
			t.Errorf("%q: stdout %q, want %q", tc.args, out.String(), tc.stdout)
		}
	}
}

// FuzzHookNeverExits2: whatever the command line, a program with a hook
// command never panics, and any command line that names the hook exits
// 0 or 1.
func FuzzHookNeverExits2(f *testing.F) {
	for _, seed := range []string{
		"hook --pid", "hook extra", "hook --bogus", "--bogus hook", "--pid hook", "hook --strict --pid x",
		"watch --on", "--dir D watch", "help hook", "__complete hook --p", "-q hook", "hook -- --pid",
		"hook --pid=", "hook -hq", "completion", "--json hook",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, " ")
		var out, errb bytes.Buffer
		var got []string
		code := testProgram(&out, &errb, &got).Run(args)
		for _, a := range args {
			if a == "--" {
				break
			}
			if a == "hook" && code != 0 && code != 1 {
				t.Fatalf("%q: exit %d (stderr %q)", args, code, errb.String())
			}
		}
	})
}
