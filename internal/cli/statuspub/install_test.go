package statuspub

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	code := Run(append([]string{"install"}, args...), Env{Stdout: &out, Stderr: &errOut, Getenv: getenv})
	return code, out.String(), errOut.String()
}

func TestInstallCommand(t *testing.T) {
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	code, out, stderr := runInstall(t, home, "claude", "--dry-run")
	if code != ExitOK || stderr != "" || !strings.HasPrefix(out, "--- /dev/null\n+++ "+settings+"\n@@ ") || !strings.Contains(out, `+            "command": "statuspub claude-hook",`) {
		t.Fatalf("--dry-run: exit %d, stderr %q\n%s", code, stderr, out)
	}
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		t.Fatal("--dry-run wrote the file")
	}
	if code, out, _ := runInstall(t, home, "--dry-run", "claude"); code != ExitOK || out == "" {
		t.Errorf("flags before the agent: exit %d", code)
	}
	if code, out, stderr := runInstall(t, home, "claude"); code != ExitOK || out != "wrote: "+settings+"\n" || stderr != "" {
		t.Fatalf("install: exit %d, %q %q", code, out, stderr)
	}
	if code, out, _ := runInstall(t, home, "claude"); code != ExitOK || out != "unchanged: "+settings+"\n" {
		t.Errorf("again: exit %d, %q", code, out)
	}
	if code, out, _ := runInstall(t, home, "claude", "--uninstall"); code != ExitOK || !strings.HasPrefix(out, "wrote: "+settings+" (backup: "+settings+".agentstatus-backup-") {
		t.Errorf("uninstall: exit %d, %q", code, out)
	}
	// A refusal is one line and exit 1.
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte("{\n  \"a\": 1,\n}\n"), 0o600)
	code, _, stderr = runInstall(t, home, "claude")
	if code != ExitError || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "statuspub: install: "+settings+":3:1: ") {
		t.Errorf("malformed: exit %d, %q", code, stderr)
	}
	for _, args := range [][]string{{}, {"cursor"}, {"claude", "extra"}, {"claude", "--bogus"}, {"--bogus", "claude"}} {
		if code, _, stderr := runInstall(t, home, args...); code != ExitUsage || !strings.HasPrefix(stderr, "statuspub: install: ") {
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
	if code != ExitOK || !strings.Contains(out, filepath.Join(proj, ".codex", "hooks.json")) || !strings.Contains(stderr, "/hooks") {
		t.Errorf("exit %d, %q, %q", code, out, stderr)
	}
}
