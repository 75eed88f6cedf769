package statuspub

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/internal/cli/base"
)

func runInstall(t *testing.T, home string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	code := Run(append([]string{"install"}, args...), base.Env{Stdout: &out, Stderr: &errOut, Getenv: getenv})
	return code, out.String(), errOut.String()
}

func TestInstallCommand(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	code, out, stderr := runInstall(t, home, "claude", "--dry-run")
	if code != base.ExitOK || stderr != "" || !strings.HasPrefix(out, "--- /dev/null\n+++ "+settings+"\n@@ ") || !strings.Contains(out, `+            "command": "statuspub claude-hook",`) {
		t.Fatalf("--dry-run: exit %d, stderr %q\n%s", code, stderr, out)
	}
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		t.Fatal("--dry-run wrote the file")
	}
	if code, out, _ := runInstall(t, home, "--dry-run", "claude"); code != base.ExitOK || out == "" {
		t.Errorf("flags before the agent: exit %d", code)
	}
	if code, out, stderr := runInstall(t, home, "claude"); code != base.ExitOK || out != "wrote: "+settings+"\n" || stderr != "" {
		t.Fatalf("install: exit %d, %q %q", code, out, stderr)
	}
	if code, out, _ := runInstall(t, home, "claude"); code != base.ExitOK || out != "unchanged: "+settings+"\n" {
		t.Errorf("again: exit %d, %q", code, out)
	}
	if code, out, _ := runInstall(t, home, "claude", "--uninstall"); code != base.ExitOK || !strings.HasPrefix(out, "wrote: "+settings+" (backup: "+settings+".agentstatus-backup-") {
		t.Errorf("uninstall: exit %d, %q", code, out)
	}
	// A refusal is one line and exit 1.
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte("{\n  \"a\": 1,\n}\n"), 0o600)
	code, _, stderr = runInstall(t, home, "claude")
	if code != base.ExitError || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "statuspub: install: "+settings+":3:1: ") {
		t.Errorf("malformed: exit %d, %q", code, stderr)
	}
	for _, args := range [][]string{{}, {"cursor"}, {"claude", "extra"}, {"claude", "--bogus"}, {"--bogus", "claude"}} {
		if code, _, stderr := runInstall(t, home, args...); code != base.ExitUsage || !strings.HasPrefix(stderr, "statuspub: install: ") {
			t.Errorf("%q: exit %d, %q", args, code, stderr)
		}
	}
	if _, _, stderr := runInstall(t, home, "cladue"); !strings.Contains(stderr, "did you mean claude?") {
		t.Errorf("a misspelt agent: %q", stderr)
	}
}

// --project writes into the working directory's .codex/.
func TestInstallProject(t *testing.T) {
	proj := t.TempDir()
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	os.Chdir(proj)
	code, out, stderr := runInstall(t, t.TempDir(), "codex", "--project")
	if code != base.ExitOK || !strings.Contains(out, filepath.Join(proj, ".codex", "hooks.json")) || !strings.Contains(stderr, "/hooks") {
		t.Errorf("exit %d, %q, %q", code, out, stderr)
	}
}

// Codex: the hooks name statuspub by its absolute path (Codex's hooks do
// not see the user's PATH); no feature flag is written; one line says how
// to trust the hooks until they are; --trust records the trust instead.
func TestInstallCodex(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	const exe = "/opt/agentstatus/bin/statuspub"
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		getenv := func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}
		code := Run(append([]string{"install"}, args...), base.Env{Stdout: &out, Stderr: &errOut, Getenv: getenv, Executable: exe})
		return code, out.String(), errOut.String()
	}
	const trustLine = "statuspub: Codex runs these hooks only once you trust them: start codex, type /hooks and press t (or run 'statuspub install codex --trust')\n"
	const daemonNote = "statuspub: note: with Codex's app-server daemon (its default) a session stays listed about 60 s after you quit Codex; 'codex --no-daemon' or 'statuspub install codex --no-daemon' makes it go at once\n"
	code, out, stderr := run("codex")
	hooks := filepath.Join(home, ".codex", "hooks.json")
	if code != base.ExitOK || out != "wrote: "+hooks+"\n" || stderr != trustLine+daemonNote {
		t.Fatalf("install: exit %d, %q, %q", code, out, stderr)
	}
	data, _ := os.ReadFile(hooks)
	if !bytes.Contains(data, []byte(`"command": "`+exe+` codex-hook"`)) || bytes.Contains(data, []byte("StopFailure")) || !bytes.Contains(data, []byte("SessionEnd")) {
		t.Errorf("hooks.json:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex", "config.toml")); !os.IsNotExist(err) {
		t.Errorf("config.toml written: %v", err)
	}
	// Still untrusted: said again.
	if _, _, stderr := run("codex"); !strings.HasPrefix(stderr, trustLine) {
		t.Errorf("again: %q", stderr)
	}
	code, out, stderr = run("codex", "--trust")
	config := filepath.Join(home, ".codex", "config.toml")
	if code != base.ExitOK || out != "unchanged: "+hooks+"\nwrote: "+config+"\n" || stderr != daemonNote {
		t.Fatalf("--trust: exit %d, %q, %q", code, out, stderr)
	}
	if _, _, stderr := run("codex"); stderr != daemonNote {
		t.Errorf("trusted: %q", stderr)
	}
	if code, _, stderr := run("codex", "--no-daemon"); code != base.ExitOK || stderr != "" {
		t.Errorf("--no-daemon: exit %d, %q", code, stderr)
	}
	for _, agent := range []string{"claude", "gemini", "opencode"} {
		for _, flag := range []string{"--trust", "--no-daemon"} {
			if code, _, stderr := run(agent, flag); code != base.ExitUsage || !strings.Contains(stderr, "are for codex") {
				t.Errorf("%s %s: exit %d, %q", agent, flag, code, stderr)
			}
		}
	}
}

// The hooks name the installed statuspub by an absolute path that lasts:
// npm's global bin for npm install -g; a statuspub run from npx's cache
// is refused in one line, unless to uninstall.
func TestInstallHookProgram(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d := t.TempDir()
	mk := func(p string) string {
		p = filepath.Join(d, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	npx := mk("npm-cache/_npx/5e1f/node_modules/@agentstatus/linux-x64/bin/statuspub")
	launcher := mk("prefix/lib/node_modules/agentstatus/bin/statuspub.js")
	global := filepath.Join(d, "prefix", "bin", "statuspub")
	os.MkdirAll(filepath.Dir(global), 0o755)
	if err := os.Symlink(launcher, global); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	native := mk("prefix/lib/node_modules/agentstatus/node_modules/@agentstatus/linux-x64/bin/statuspub")
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	run := func(exe string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := Run(append([]string{"install"}, args...), base.Env{Stdout: &out, Stderr: &errOut, Getenv: getenv, Executable: exe})
		return code, out.String(), errOut.String()
	}
	settings := filepath.Join(home, ".claude", "settings.json")
	code, out, stderr := run(npx, "claude")
	if code != base.ExitError || out != "" || stderr != "statuspub: install: this statuspub runs from npx's temporary cache, which npm empties when it likes: install it first (npm install -g agentstatus), then run install again\n" {
		t.Errorf("from npx: exit %d, %q, %q", code, out, stderr)
	}
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		t.Errorf("from npx: %s written", settings)
	}
	if code, out, stderr := run(native, "claude"); code != base.ExitOK || stderr != "" || out != "wrote: "+settings+"\n" {
		t.Fatalf("npm -g: exit %d, %q, %q", code, out, stderr)
	}
	data, _ := os.ReadFile(settings)
	if want, _ := json.Marshal(global + " claude-hook"); !bytes.Contains(data, want) {
		t.Errorf("npm -g: the hooks do not start %s:\n%s", global, data)
	}
	if code, out, stderr := run(npx, "claude", "--uninstall"); code != base.ExitOK || !strings.HasPrefix(out, "wrote: "+settings) {
		t.Errorf("uninstall from npx: exit %d, %q, %q", code, out, stderr)
	}
	if data, _ := os.ReadFile(settings); bytes.Contains(data, []byte("claude-hook")) {
		t.Errorf("uninstall from npx left the hooks:\n%s", data)
	}
}

// install zed AGENT: the entry of Zed's agent_servers (under
// $XDG_CONFIG_HOME) runs the agent through statuspub acp by statuspub's
// absolute path; the diff is printed, a second run says unchanged, a
// broken file is refused untouched, and --uninstall gives the file back.
func TestInstallZedCommand(t *testing.T) {
	t.Parallel()
	home, xdg := t.TempDir(), t.TempDir()
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "opencode"), []byte("#!/bin/sh\n"), 0o755)
	const exe = "/opt/agentstatus/bin/statuspub"
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": xdg, "PATH": bin}
		code := Run(append([]string{"install"}, args...), base.Env{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }, Executable: exe})
		return code, out.String(), errOut.String()
	}
	settings := filepath.Join(xdg, "zed", "settings.json")
	orig := "// mine\n{\n  \"vim_mode\": true,\n}\n"
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte(orig), 0o600)

	code, out, stderr := run("zed", "opencode", "--dry-run")
	if code != base.ExitOK || stderr != "" || !strings.Contains(out, "+++ "+settings+"\n") || !strings.Contains(out, `+      "command": "`+exe+`",`) {
		t.Fatalf("--dry-run: exit %d, %q\n%s", code, stderr, out)
	}
	if data, _ := os.ReadFile(settings); string(data) != orig {
		t.Fatal("--dry-run wrote the file")
	}
	code, out, stderr = run("zed", "opencode")
	if code != base.ExitOK || stderr != "" || !strings.Contains(out, "\n+  \"agent_servers\": {\n") || !strings.Contains(out, "wrote: "+settings+" (backup: ") {
		t.Fatalf("install: exit %d, %q\n%s", code, stderr, out)
	}
	if code, out, _ := run("zed", "opencode"); code != base.ExitOK || out != "unchanged: "+settings+"\n" {
		t.Errorf("again: exit %d, %q", code, out)
	}
	if code, out, _ := run("zed", "opencode", "--uninstall"); code != base.ExitOK || !strings.Contains(out, "\n-  \"agent_servers\": {\n") {
		t.Errorf("uninstall: exit %d, %q", code, out)
	}
	if data, _ := os.ReadFile(settings); string(data) != orig {
		t.Errorf("uninstall gave %q, want %q", data, orig)
	}
	// A missing agent is said; a broken file is refused, untouched.
	if code, _, stderr := run("zed", "gemini", "--dry-run"); code != base.ExitOK || !strings.Contains(stderr, "statuspub: note: gemini is not found in PATH") {
		t.Errorf("no gemini: exit %d, %q", code, stderr)
	}
	broken := "{\n  \"a\": 1\n  \"b\": 2\n}\n"
	os.WriteFile(settings, []byte(broken), 0o600)
	if code, _, stderr := run("zed", "opencode"); code != base.ExitError || !strings.HasPrefix(stderr, "statuspub: install: "+settings+":3:3: ") {
		t.Errorf("broken: exit %d, %q", code, stderr)
	}
	if data, _ := os.ReadFile(settings); string(data) != broken {
		t.Error("the broken file changed")
	}
	for _, args := range [][]string{{"zed"}, {"zed", "copilot"}, {"zed", "gemini", "x"}, {"zed", "gemini", "--project"}, {"zed", "codex", "--trust"}} {
		if code, _, stderr := run(args...); code != base.ExitUsage || !strings.HasPrefix(stderr, "statuspub: install: ") {
			t.Errorf("%q: exit %d, %q", args, code, stderr)
		}
	}
	if _, _, stderr := run("zed", "gemnii"); !strings.Contains(stderr, "did you mean gemini?") {
		t.Errorf("a misspelt agent: %q", stderr)
	}
}

// The usage errors of install and install zed name the agents each takes.
func TestWhichAgent(t *testing.T) {
	t.Parallel()
	zed := " for Zed"
	for _, c := range []struct {
		args   []string
		agents []string
		what   string
		want   string
	}{
		{nil, []string{"claude", "codex", "gemini", "opencode", "copilot", "qwen"}, "", "which agent? (claude, codex, gemini, opencode, copilot or qwen)"},
		{nil, []string{"gemini", "opencode", "qwen", "claude", "codex"}, zed, "which agent for Zed? (gemini, opencode, qwen, claude or codex)"},
		{[]string{"qwen", "extra"}, []string{"qwen"}, "", `unexpected argument "extra"`},
		{[]string{"cursor"}, []string{"claude", "qwen"}, "", `unknown agent "cursor" (claude or qwen)`},
		{[]string{"copilot"}, []string{"gemini", "opencode"}, zed, `unknown agent "copilot" for Zed (gemini or opencode)`},
		{[]string{"geminy"}, []string{"gemini", "opencode"}, zed, `unknown agent "geminy" for Zed; did you mean gemini?`},
		{[]string{"qwen"}, []string{"gemini", "qwen"}, zed, ""},
	} {
		if got := whichAgent(c.args, c.agents, c.what); got != c.want {
			t.Errorf("whichAgent(%q, %q, %q) = %q, want %q", c.args, c.agents, c.what, got, c.want)
		}
	}
}
