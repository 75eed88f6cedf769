package agentinstall

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The hashes Codex 0.171.0's /hooks review wrote ("t", trust all) for a
// hooks.json holding statuspub's hooks (as install wrote them before) and
// a logging hook on every event: every handler's computed entry is the one
// Codex recorded. StopFailure is no event of 0.171.0: it records nothing.
func TestCodexHookHashMatchesCodex(t *testing.T) {
	hooks, err := os.ReadFile(filepath.Join("testdata", "codex-trust", "hooks-0.171.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	config, err := os.ReadFile(filepath.Join("testdata", "codex-trust", "config-0.171.0.toml"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := codexHandlers("/tmp/cx/home/.codex/hooks.json", hooks, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		got, ok := CodexTrustedHash(config, e.Key)
		if e.Event == "StopFailure" {
			if ok {
				t.Errorf("%s: Codex recorded %s", e.Key, got)
			}
			continue
		}
		n++
		if !ok || got != e.Hash {
			t.Errorf("%s: computed %s, Codex recorded %q (%v)", e.Key, e.Hash, got, ok)
		}
	}
	if n != 19 {
		t.Errorf("%d handlers checked, want the 19 Codex trusted", n)
	}
	ours, err := CodexTrustEntries("/tmp/cx/home/.codex/hooks.json", hooks, "codex-hook")
	if err != nil || len(ours) != 8 {
		t.Fatalf("statuspub's entries: %d, %v", len(ours), err)
	}
}

func TestCodexHookHash(t *testing.T) {
	tests := []struct {
		event, matcher, command string
		timeout                 int
		want                    string
	}{
		// Recorded from Codex 0.171.0 (testdata/codex-trust).
		{"PreToolUse", "*", "statuspub codex-hook", 5, "sha256:29b03a0bac9e2b0b5097279c6d98a645c120084dd691b4bd2d0e372cbe83397a"},
		{"UserPromptSubmit", "", "statuspub codex-hook", 5, "sha256:bf9618d7ea3a944e94027b0dc58b49791722ead2d55baca4a76bcbbbccd92f30"},
		// Codex clamps Interrupt's timeout (5 in that file) to 3 s.
		{"Interrupt", "", "statuspub codex-hook", 3, "sha256:7b8d4cf1e0d0aec43c60aa367652a1fcc613b13b89ec3c41bebbca6f3921608b"},
		// A matcher on an event that takes none is not part of the hash.
		{"Stop", "*", "/tmp/cx/loghook.sh", 5, "sha256:11522707e65a0c70e77fbbbd89cb2a17b4f218c8bd7357cf7579e334ca6e21be"},
	}
	for _, tt := range tests {
		if got := CodexHookHash(tt.event, tt.matcher, tt.command, tt.timeout); got != tt.want {
			t.Errorf("%s %q %q %d: %s, want %s", tt.event, tt.matcher, tt.command, tt.timeout, got, tt.want)
		}
	}
}

func TestCodexTimeout(t *testing.T) {
	tests := []struct {
		event string
		t     int
		has   bool
		want  int
	}{
		{"PreToolUse", 5, true, 5}, {"PreToolUse", 0, false, 600}, {"PreToolUse", 0, true, 1},
		{"Interrupt", 5, true, 3}, {"SessionEnd", 0, false, 1}, {"SessionEnd", 2, true, 2},
	}
	for _, tt := range tests {
		if got := codexTimeout(tt.event, tt.t, tt.has); got != tt.want {
			t.Errorf("%s %d %v: %d, want %d", tt.event, tt.t, tt.has, got, tt.want)
		}
	}
}

func TestCodexTrustedHash(t *testing.T) {
	const key = "/h/.codex/hooks.json:stop:0:0"
	tests := []struct {
		name, config, want string
		ok                 bool
	}{
		{"absent", "model = \"x\"\n", "", false},
		{"Codex's layout", "[hooks.state]\n\n[hooks.state.\"" + key + "\"]\ntrusted_hash = \"sha256:ab\"\n", "sha256:ab", true},
		{"comment and blanks", "[hooks.state.\"" + key + "\"]  # mine\n  trusted_hash=\"sha256:cd\" # ok\n", "sha256:cd", true},
		{"another key's table", "[hooks.state.\"" + key + "x\"]\ntrusted_hash = \"sha256:ab\"\n", "", false},
		{"a later table", "[hooks.state.\"" + key + "\"]\nenabled = true\n[other]\ntrusted_hash = \"sha256:ab\"\n", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := CodexTrustedHash([]byte(tt.config), key)
			if got != tt.want || ok != tt.ok {
				t.Errorf("%q %v, want %q %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestCodexStateHeader(t *testing.T) {
	if got := CodexStateHeader(`/a "b"\c:stop:0:0`); got != `[hooks.state."/a \"b\"\\c:stop:0:0"]` {
		t.Errorf("%s", got)
	}
}

// doctor's view: Codex hooks installed but not trusted are listed, until
// config.toml holds the entries Codex's review writes.
func TestCheckCodexUntrusted(t *testing.T) {
	h := t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" {
			return h
		}
		return ""
	}
	cs, err := Plan(Options{Agent: "codex", Getenv: getenv, Command: "/opt/bin/statuspub"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if _, err := Apply(c, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	codex := func() Status {
		for _, st := range Check(getenv) {
			if st.Agent == "codex" {
				return st
			}
		}
		t.Fatal("no codex status")
		return Status{}
	}
	st := codex()
	if !st.Installed || len(st.Untrusted) != 8 {
		t.Fatalf("installed %v, untrusted %v, want all 8", st.Installed, st.Untrusted)
	}
	hooksPath := filepath.Join(h, ".codex", "hooks.json")
	data, _ := os.ReadFile(hooksPath)
	entries, _ := CodexTrustEntries(hooksPath, data, "codex-hook")
	var config strings.Builder
	for i, e := range entries {
		hash := e.Hash
		if i == 0 {
			hash = "sha256:00" // an older hook's
		}
		fmt.Fprintf(&config, "%s\ntrusted_hash = %q\n\n", CodexStateHeader(e.Key), hash)
	}
	if err := os.WriteFile(filepath.Join(h, ".codex", "config.toml"), []byte(config.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if st := codex(); len(st.Untrusted) != 1 || st.Untrusted[0] != entries[0].Event {
		t.Fatalf("untrusted %v, want [%s]", st.Untrusted, entries[0].Event)
	}
}
