package agentinstall

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Copilot CLI and Qwen Code: installed where they read hooks, merged
// into what is there (comments kept in Qwen Code's settings), idempotent,
// and gone after uninstall.
func TestInstallCopilotQwen(t *testing.T) {
	runInstallCases(t, []installCase{
		{"qwen", ".qwen/settings.json", ""},
		{"qwen", ".qwen/settings.json", "qwen-comments.json"},
		{"copilot", ".copilot/hooks/agentstatus.json", ""},
		{"copilot", ".copilot/hooks/agentstatus.json", "copilot-other-hooks.json"},
	}, keptLines, sameWithoutComments)
}

// keptLines checks that every line of before is still in got: keys, hooks
// of others and comments.
func keptLines(t *testing.T, before, got []byte) {
	t.Helper()
	for _, line := range strings.Split(string(before), "\n") {
		if s := strings.TrimSpace(line); s != "" && s != "}" && s != "]" && !bytes.Contains(got, []byte(strings.TrimSuffix(s, ","))) {
			t.Errorf("lost %q", s)
		}
	}
}

// sameWithoutComments checks what uninstall left: next to nothing of a
// fresh install, else the value that was there.
func sameWithoutComments(t *testing.T, fixture, path string, before, after []byte, err error) {
	t.Helper()
	if fixture == "" && !errors.Is(err, os.ErrNotExist) && len(bytes.TrimSpace(after)) > 2 {
		t.Errorf("after uninstall of a fresh install: %q", after)
	}
	if fixture != "" {
		stripped := func(b []byte) any {
			doc, err := parseSettings(path, b, jsonComments)
			if err != nil {
				t.Fatal(err)
			}
			return jsonValue(t, doc.root.encode())
		}
		if !reflect.DeepEqual(stripped(after), stripped(before)) {
			t.Errorf("after uninstall:\n%s\nwant the equivalent of:\n%s", after, before)
		}
	}
}

func TestCopilotQwenLocations(t *testing.T) {
	h, getenv := home(t, nil)
	proj := t.TempDir()
	for agent, want := range map[string]string{
		"copilot": filepath.Join(proj, ".github", "hooks", "agentstatus.json"),
		"qwen":    filepath.Join(proj, ".qwen", "settings.json"),
	} {
		cs, err := Plan(Options{Agent: agent, Project: proj, Getenv: getenv})
		if err != nil || cs[0].Path != want {
			t.Errorf("%s --project: %v %v", agent, cs, err)
		}
	}
	env := func(k string) string {
		return map[string]string{"HOME": h, "COPILOT_HOME": "/opt/copilot", "QWEN_HOME": "/opt/qwen"}[k]
	}
	if cs, err := Plan(Options{Agent: "copilot", Getenv: env}); err != nil || cs[0].Path != "/opt/copilot/hooks/agentstatus.json" {
		t.Errorf("COPILOT_HOME: %v %v", cs, err)
	}
	if cs, err := Plan(Options{Agent: "qwen", Getenv: env}); err != nil || cs[0].Path != "/opt/qwen/settings.json" {
		t.Errorf("QWEN_HOME: %v %v", cs, err)
	}
}

// Refused, and left as they are: a link, a read-only file, a hooks file
// with comments (Copilot CLI reads plain JSON), and hooks of another type.
func TestCopilotQwenRefuse(t *testing.T) {
	h, getenv := home(t, map[string]string{"elsewhere/hooks.json": "copilot-other-hooks.json"})
	os.MkdirAll(filepath.Join(h, ".copilot", "hooks"), 0o700)
	if err := os.Symlink(filepath.Join(h, "elsewhere", "hooks.json"), filepath.Join(h, ".copilot", "hooks", "agentstatus.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := Plan(Options{Agent: "copilot", Getenv: getenv}); !errors.Is(err, ErrSymlink) {
		t.Errorf("symlink: %v", err)
	}
	h, getenv = home(t, map[string]string{".qwen/settings.json": "qwen-comments.json"})
	p := filepath.Join(h, ".qwen", "settings.json")
	os.Chmod(p, 0o444)
	if _, err := Plan(Options{Agent: "qwen", Getenv: getenv}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only: %v", err)
	}
	for name, content := range map[string]string{
		"comments":         "{\n  // mine\n  \"version\": 1\n}\n",
		"hooks not object": `{"version":1,"hooks":[]}`,
		"event not array":  `{"version":1,"hooks":{"Stop":{}}}`,
		"not an object":    `[1]`,
	} {
		h, getenv := home(t, map[string]string{".copilot/hooks/agentstatus.json": content})
		if _, err := Plan(Options{Agent: "copilot", Getenv: getenv}); err == nil {
			t.Errorf("%s: no error", name)
		}
		if data, _ := os.ReadFile(filepath.Join(h, ".copilot", "hooks", "agentstatus.json")); string(data) != content {
			t.Errorf("%s: the file changed", name)
		}
	}
}

// Uninstall leaves a hooks file that holds only the user's own entries.
func TestCopilotUninstallKeepsOthers(t *testing.T) {
	h, getenv := home(t, nil)
	install(t, Options{Agent: "copilot", Getenv: getenv})
	path := filepath.Join(h, ".copilot", "hooks", "agentstatus.json")
	data, _ := os.ReadFile(path)
	data = bytes.Replace(data, []byte(`"Stop": [`), []byte(`"Stop": [{"type": "command", "bash": "mine"}, `), 1)
	os.WriteFile(path, data, 0o600)
	install(t, Options{Agent: "copilot", Getenv: getenv, Uninstall: true})
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(got, []byte(`"mine"`)) || bytes.Contains(got, []byte("copilot-hook")) {
		t.Errorf("after uninstall: %v\n%s", err, got)
	}
}
