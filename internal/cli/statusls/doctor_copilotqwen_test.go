package statusls

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doctor reports Copilot CLI (its hooks file of statuspub's own) and Qwen
// Code (settings.json, read with comments) as the other agents.
func TestDoctorCopilotQwen(t *testing.T) {
	h := newAgentHome(t)
	home, doctor := h.dir, h.doctor
	os.MkdirAll(filepath.Join(home, ".copilot"), 0o700)
	os.MkdirAll(filepath.Join(home, ".qwen"), 0o700)
	// Qwen Code reads comments: not a problem, only hooks missing.
	os.WriteFile(filepath.Join(home, ".qwen", "settings.json"), []byte("{\n  // mine\n  \"ui\": {}\n}\n"), 0o600)
	got := doctor()
	doctorSays(t, got,
		"  copilot: hooks not installed (~/.copilot/hooks/agentstatus.json: missing SessionStart, ",
		"  qwen: hooks not installed (~/.qwen/settings.json: missing SessionStart, ",
		"run 'statuspub install copilot' to publish copilot's state",
		"run 'statuspub install qwen' to publish qwen's state",
	)
	var hooks strings.Builder
	hooks.WriteString(`{"version":1,"hooks":{`)
	for i, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "notification", "Stop", "ErrorOccurred", "SessionEnd"} {
		if i > 0 {
			hooks.WriteString(",")
		}
		hooks.WriteString(`"` + ev + `":[{"type":"command","bash":"statuspub copilot-hook"}]`)
	}
	hooks.WriteString("}}")
	os.MkdirAll(filepath.Join(home, ".copilot", "hooks"), 0o700)
	os.WriteFile(filepath.Join(home, ".copilot", "hooks", "agentstatus.json"), []byte(hooks.String()), 0o600)
	if got := doctor(); !strings.Contains(got, "  copilot: hooks installed (~/.copilot/hooks/agentstatus.json)") {
		t.Errorf("after install:\n%s", got)
	}
	os.WriteFile(filepath.Join(home, ".copilot", "hooks", "agentstatus.json"), []byte("{\n  // Copilot CLI reads plain JSON\n}\n"), 0o600)
	if got := doctor(); !strings.Contains(got, "  copilot: PROBLEM: ") {
		t.Errorf("a hooks file with comments:\n%s", got)
	}
}
