package statusls

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doctor lists the agents found (by their configuration directory) and
// whether statuspub's hooks are installed; it says nothing of agents that
// are not there.
func TestDoctorAgents(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"model":"opus"}`), 0o600)
	os.MkdirAll(filepath.Join(home, ".config", "opencode", "plugins"), 0o700)
	t.Setenv("PATH", t.TempDir()) // no agent program on PATH
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	var out, errOut bytes.Buffer
	Run([]string{"doctor", "--config-home", filepath.Join(home, "cfg")}, Env{Stdout: &out, Stderr: &errOut, Getenv: getenv})
	got := out.String()
	for _, want := range []string{
		"\nagents:\n",
		"  claude: hooks not installed (~/.claude/settings.json: missing SessionStart, ",
		"  opencode: hooks not installed (~/.config/opencode/plugins/agentstatus.js: missing the plugin)",
		"run 'statuspub install claude' to publish claude's state",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "codex") || strings.Contains(got, "gemini") {
		t.Errorf("doctor reports agents that are not there:\n%s", got)
	}
	os.WriteFile(filepath.Join(home, ".config", "opencode", "plugins", "agentstatus.js"), []byte("// agentstatus: an OpenCode plugin that publishes OpenCode's state\n"), 0o644)
	out.Reset()
	Run([]string{"doctor", "--config-home", filepath.Join(home, "cfg")}, Env{Stdout: &out, Stderr: &errOut, Getenv: getenv})
	if !strings.Contains(out.String(), "  opencode: hooks installed (~/.config/opencode/plugins/agentstatus.js)") {
		t.Errorf("after install:\n%s", out.String())
	}
}
