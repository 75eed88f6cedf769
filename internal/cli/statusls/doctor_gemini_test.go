package statusls

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Gemini CLI reads its settings.json with comments: doctor never calls such
// a file broken, and says whether the hooks are in it. A trailing comma,
// which Gemini CLI refuses too, is a problem.
func TestDoctorGeminiSettingsWithComments(t *testing.T) {
	tests := []struct {
		name, settings, want string
	}{
		{"comments, no hooks", "{\n  // my editor\n  \"general\": { \"vimMode\": true } /* vim */\n}\n",
			"  gemini: hooks not installed (~/.gemini/settings.json: missing SessionStart, "},
		{"comments and the hooks", "{\n  // mine\n  \"hooks\": {\n" + geminiHooks("statuspub gemini-hook") + "\n  }\n}\n",
			"  gemini: hooks installed (~/.gemini/settings.json)"},
		{"a trailing comma", "{\n  // my editor\n  \"general\": { \"vimMode\": true },\n}\n",
			"  gemini: PROBLEM: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newAgentHome(t)
			os.MkdirAll(filepath.Join(h.dir, ".gemini"), 0o700)
			os.WriteFile(filepath.Join(h.dir, ".gemini", "settings.json"), []byte(tt.settings), 0o600)
			out := h.doctor()
			doctorSays(t, out, tt.want)
			if strings.Contains(tt.want, "PROBLEM") && !strings.Contains(out, "trailing commas") {
				t.Errorf("doctor does not say why:\n%s", out)
			}
		})
	}
}

// geminiHooks is statuspub's hook on every event install registers, as
// members of "hooks", with a comment in each.
func geminiHooks(command string) string {
	var parts []string
	for _, ev := range []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "Notification", "AfterAgent", "SessionEnd"} {
		parts = append(parts, `    "`+ev+`": [ /* agentstatus */ {"hooks": [{"name": "agentstatus", "type": "command", "command": "`+command+`", "timeout": 5000}]}]`)
	}
	return strings.Join(parts, ",\n")
}
