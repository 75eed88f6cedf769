package statusls

import (
	"bytes"
	"encoding/json"
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

	// --json: the same, as data; a settings file that does not parse is
	// a problem of that agent's, not the status directory's.
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte("{\n  \"model\": \"opus\",\n}\n"), 0o600)
	out.Reset()
	Run([]string{"doctor", "--json", "--config-home", filepath.Join(home, "cfg")}, Env{Stdout: &out, Stderr: &errOut, Getenv: getenv})
	var rep struct {
		Agents []struct {
			Agent, Path, Status, Detail string
			Installed                   bool
			Missing                     []string
		}
		Hints []string
		OK    bool
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out.String())
	}
	if len(rep.Agents) != 2 {
		t.Fatalf("doctor --json agents: %+v", rep.Agents)
	}
	claude, opencode := rep.Agents[0], rep.Agents[1]
	if claude.Agent != "claude" || claude.Status != "problem" || claude.Installed || !strings.Contains(claude.Detail, filepath.Join(home, ".claude", "settings.json")+":3:") {
		t.Errorf("claude: %+v", claude)
	}
	if opencode.Agent != "opencode" || opencode.Status != "installed" || !opencode.Installed || len(opencode.Missing) != 0 ||
		opencode.Path != filepath.Join(home, ".config", "opencode", "plugins", "agentstatus.js") {
		t.Errorf("opencode: %+v", opencode)
	}
	if !rep.OK {
		t.Error("an agent's settings made doctor fail")
	}
}
