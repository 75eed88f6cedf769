package examples_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstatus/agentstatus/internal/agentinstall"
)

// The settings examples are exactly what `statuspub install AGENT` writes
// into an empty configuration, so what the README shows is what users get.
func TestSettingsExamplesAreWhatInstallWrites(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	for agent, example := range map[string]string{
		"claude": filepath.Join("claude-code", "settings.json"),
		"codex":  filepath.Join("codex", "hooks.json"),
		"gemini": filepath.Join("gemini", "settings.json"),
	} {
		cs, err := agentinstall.Plan(agentinstall.Options{Agent: agent, Command: "statuspub", Getenv: getenv})
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(example)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(cs[0].New, want) {
			t.Errorf("%s differs from what statuspub install %s writes:\n%s", example, agent, cs[0].New)
		}
	}
}
