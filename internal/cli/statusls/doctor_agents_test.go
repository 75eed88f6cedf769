package statusls

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/agentinstall"
	"github.com/agentstatus/agentstatus/internal/cli/base"
)

// doctor lists the agents found (by their configuration directory) and
// whether statuspub's hooks are installed; it says nothing of agents that
// are not there.
func TestDoctorAgents(t *testing.T) {
	h := newAgentHome(t)
	home := h.dir
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"model":"opus"}`), 0o600)
	os.MkdirAll(filepath.Join(home, ".config", "opencode", "plugins"), 0o700)
	got := h.doctor()
	doctorSays(t, got,
		"\nagents:\n",
		"  claude: hooks not installed (~/.claude/settings.json: missing SessionStart, ",
		"  opencode: hooks not installed (~/.config/opencode/plugins/agentstatus.js: missing the plugin)",
		"run 'statuspub install claude' to publish claude's state",
	)
	if strings.Contains(got, "codex") || strings.Contains(got, "gemini") {
		t.Errorf("doctor reports agents that are not there:\n%s", got)
	}
	os.WriteFile(filepath.Join(home, ".config", "opencode", "plugins", "agentstatus.js"), []byte("// agentstatus: an OpenCode plugin that publishes OpenCode's state\n"), 0o644)
	if got := h.doctor(); !strings.Contains(got, "  opencode: hooks installed (~/.config/opencode/plugins/agentstatus.js)") {
		t.Errorf("after install:\n%s", got)
	}

	// --json: the same, as data; a settings file that does not parse is
	// a problem of that agent's, not the status directory's.
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte("{\n  \"model\": \"opus\",\n}\n"), 0o600)
	out := h.doctor("--json")
	var rep struct {
		Agents []struct {
			Agent, Path, Status, Detail string
			Installed                   bool
			Missing                     []string
		}
		Hints []string
		OK    bool
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
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

// Codex runs hooks from the user's configuration only once the user has
// trusted them (/hooks in Codex): doctor says so, and how to trust them,
// until config.toml holds the trust of every statuspub hook.
func TestDoctorCodexUntrusted(t *testing.T) {
	h := newAgentHome(t)
	home := h.dir
	dir := filepath.Join(home, ".codex")
	os.MkdirAll(dir, 0o700)
	// The statuspub the hooks start exists, or doctor would report it gone.
	prog := filepath.Join(t.TempDir(), "statuspub")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	hooks := `{"hooks":{` + strings.Join(func() []string {
		var evs []string
		for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop", "Interrupt", "SessionEnd"} {
			t := 5
			if ev == "Interrupt" || ev == "SessionEnd" {
				t = 3
			}
			evs = append(evs, fmt.Sprintf(`%q:[{"hooks":[{"type":"command","command":%q,"timeout":%d}]}]`, ev, prog+" codex-hook", t))
		}
		return evs
	}(), ",") + `}}`
	os.WriteFile(filepath.Join(dir, "hooks.json"), []byte(hooks), 0o600)
	got := h.doctor()
	doctorSays(t, got,
		"  codex: hooks installed but not trusted, so codex does not run them (~/.codex/hooks.json: SessionStart, UserPromptSubmit, ",
		"codex runs statuspub's hooks only once you trust them: in Codex type /hooks and press t, or run 'statuspub install codex --trust'",
	)
	var rep struct {
		Agents []struct {
			Agent, Status string
			Installed     bool
			Untrusted     []string
		}
	}
	if err := json.Unmarshal([]byte(h.doctor("--json")), &rep); err != nil || len(rep.Agents) != 1 {
		t.Fatalf("doctor --json: %v %+v", err, rep)
	}
	if a := rep.Agents[0]; a.Status != "untrusted" || !a.Installed || len(a.Untrusted) != 8 {
		t.Errorf("codex: %+v", a)
	}
	// The trust Codex's review records (the hashes of these very hooks).
	var config strings.Builder
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop", "Interrupt", "SessionEnd"} {
		label := strings.ToLower(ev[:1]) + ev[1:]
		label = regexp.MustCompile(`[A-Z]`).ReplaceAllStringFunc(label, func(s string) string { return "_" + strings.ToLower(s) })
		tm := 5
		if ev == "Interrupt" || ev == "SessionEnd" {
			tm = 3
		}
		id := fmt.Sprintf(`{"event_name":%q,"hooks":[{"async":false,"command":%q,"timeout":%d,"type":"command"}]}`, label, prog+" codex-hook", tm)
		sum := sha256.Sum256([]byte(id))
		fmt.Fprintf(&config, "[hooks.state.\"%s:%s:0:0\"]\ntrusted_hash = \"sha256:%x\"\n\n", filepath.Join(dir, "hooks.json"), label, sum)
	}
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte(config.String()), 0o600)
	if got := h.doctor(); !strings.Contains(got, "  codex: hooks installed (~/.codex/hooks.json)") {
		t.Errorf("trusted:\n%s", got)
	}
}

// doctor reports hooks that start a statuspub that is no longer there
// (an archive deleted, a package removed, npx's cache emptied), for the
// agents with JSON settings and for OpenCode's plugin alike.
func TestDoctorAgentsGone(t *testing.T) {
	h := newAgentHome(t)
	prog := filepath.Join(t.TempDir(), "statuspub")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"claude", "opencode"} {
		changes, err := agentinstall.Plan(agentinstall.Options{Agent: agent, Command: prog, Getenv: h.getenv})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range changes {
			if _, err := agentinstall.Apply(c, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := h.doctor(); !strings.Contains(got, "  claude: hooks installed (") || !strings.Contains(got, "  opencode: hooks installed (") {
		t.Fatalf("with the statuspub there:\n%s", got)
	}
	os.Remove(prog)
	got := h.doctor()
	doctorSays(t, got,
		"  claude: PROBLEM: the hooks start "+prog+", which no longer exists (~/.claude/settings.json)",
		"  opencode: PROBLEM: the hooks start "+prog+", which no longer exists (~/.config/opencode/plugins/agentstatus.js)",
		"run 'statuspub install claude' with the statuspub you use now, so that claude's hooks start it",
	)
	var rep struct {
		Agents []struct {
			Agent  string   `json:"agent"`
			Status string   `json:"status"`
			Gone   []string `json:"gone"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(h.doctor("--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Agents) != 2 {
		t.Fatalf("--json: %+v", rep.Agents)
	}
	for _, a := range rep.Agents {
		if a.Status != "gone" || len(a.Gone) != 1 || a.Gone[0] != prog {
			t.Errorf("--json: %+v, want status gone of %s", a, prog)
		}
	}
}

// agentHome is a home directory for doctor's report on the agents: HOME is
// the only variable doctor sees, and PATH holds no agent program, so the
// report is of the files a test puts under dir alone.
type agentHome struct {
	dir string
}

func newAgentHome(t *testing.T) agentHome {
	t.Setenv("PATH", t.TempDir())
	return agentHome{t.TempDir()}
}

func (h agentHome) getenv(k string) string {
	if k == "HOME" {
		return h.dir
	}
	return ""
}

// doctor runs statusls doctor with args and returns what it printed.
func (h agentHome) doctor(args ...string) string {
	var out, errOut bytes.Buffer
	Run(append([]string{"doctor", "--config-home", filepath.Join(h.dir, "cfg")}, args...), base.Env{Stdout: &out, Stderr: &errOut, Getenv: h.getenv})
	return out.String()
}

// doctorSays fails the test for each of wants that doctor's output got
// lacks.
func doctorSays(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, got)
		}
	}
}
