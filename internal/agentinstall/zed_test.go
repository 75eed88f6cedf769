package agentinstall

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestZedACPServers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if s, err := ZedACPServers(path); s != nil || err != nil {
		t.Fatalf("missing file: %v, %v", s, err)
	}
	os.WriteFile(path, []byte(`{
  // comments, as Zed allows
  "agent_servers": {
    "Gemini CLI": { "command": "statuspub", "args": ["acp", "--", "gemini", "--acp"] },
    "OpenCode": { "command": "/usr/local/bin/statuspub", "args": ["acp", "--agent", "oc", "--", "opencode", "acp"] },
    "Plain": { "command": "gemini", "args": ["--acp"] },
    "No command": { "command": "statuspub", "args": ["acp",], },
  },
}`), 0o600) // trailing commas, as Zed allows
	got, err := ZedACPServers(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []ACPServer{{"Gemini CLI", []string{"gemini", "--acp"}}, {"OpenCode", []string{"opencode", "acp"}}, {"No command", nil}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if p := ZedSettingsPath(func(k string) string { return map[string]string{"HOME": "/h"}[k] }); p != "/h/.config/zed/settings.json" {
		t.Fatalf("path %s", p)
	}
}

// Where Zed keeps settings.json, per system, as Zed's config_dir says.
func TestZedSettingsPath(t *testing.T) {
	env := map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x", "APPDATA": `C:\\Users\\u\\AppData\\Roaming`}
	getenv := func(k string) string { return env[k] }
	tests := []struct{ goos, flatpak, want string }{
		{"linux", "", "/x/zed/settings.json"},
		{"linux", "/f", "/f/zed/settings.json"},
		{"darwin", "", "/h/.config/zed/settings.json"},
		{"freebsd", "", "/h/.config/zed/settings.json"},
		{"windows", "", filepath.Join(env["APPDATA"], "Zed", "settings.json")},
	}
	for _, tt := range tests {
		env["FLATPAK_XDG_CONFIG_HOME"] = tt.flatpak
		if got := zedSettingsPath(tt.goos, getenv); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.goos, got, tt.want)
		}
	}
	env["XDG_CONFIG_HOME"] = "relative"
	if got := zedSettingsPath("linux", getenv); got != "/h/.config/zed/settings.json" {
		t.Errorf("a relative XDG_CONFIG_HOME: %s", got)
	}
}
