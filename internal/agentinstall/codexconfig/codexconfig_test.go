package codexconfig

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/agentinstall"
	"github.com/agentstatus/agentstatus/internal/goldentest"
)

// statuspubPath is the command the tests install, as install writes it for
// Codex: statuspub's absolute path.
const statuspubPath = "/opt/agentstatus/bin/statuspub"

// home makes a HOME holding files (path under HOME: fixture), with
// "HOOKS" in a fixture replaced by the path of the HOME's hooks.json.
func home(t *testing.T, files map[string]string) (string, func(string) string) {
	t.Helper()
	h := t.TempDir()
	for rel, src := range files {
		data, err := os.ReadFile(filepath.Join("testdata", src))
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.ReplaceAll(data, []byte("HOOKS"), []byte(filepath.Join(h, ".codex", "hooks.json")))
		p := filepath.Join(h, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return h, func(k string) string {
		if k == "HOME" {
			return h
		}
		return ""
	}
}

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldentest.Check(t, filepath.Join("testdata", "golden", name), got)
}

func opts(getenv func(string) string) agentinstall.Options {
	return agentinstall.Options{Agent: "codex", Getenv: getenv, Command: statuspubPath, CodexConfig: Plan}
}

// plan plans o; an error fails the test.
func plan(t *testing.T, o agentinstall.Options) []agentinstall.Change {
	t.Helper()
	cs, err := agentinstall.Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func install(t *testing.T, o agentinstall.Options) {
	t.Helper()
	for _, c := range plan(t, o) {
		if _, err := agentinstall.Apply(c, time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
	}
}

// noChange fails when planning o again would change a file.
func noChange(t *testing.T, o agentinstall.Options) {
	t.Helper()
	for _, c := range plan(t, o) {
		if c.Changed() {
			t.Errorf("a second run changes %s:\n%s", c.Path, c.Diff())
		}
	}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return data
}

// configHome makes a HOME whose .codex/config.toml is fixture (no file for
// ""), and returns the file's path and what it holds.
func configHome(t *testing.T, fixture string) (h, config string, before []byte, getenv func(string) string) {
	t.Helper()
	files := map[string]string{}
	if fixture != "" {
		files[".codex/config.toml"] = fixture
	}
	h, getenv = home(t, files)
	config = filepath.Join(h, ".codex", "config.toml")
	return h, config, read(t, config), getenv
}

// uninstall runs install with o's options and --uninstall.
func uninstall(t *testing.T, o agentinstall.Options) {
	t.Helper()
	o.Uninstall = true
	install(t, o)
}

// noteOnly fails unless planning o leaves config.toml as it is and says
// why in one note that mentions setting.
func noteOnly(t *testing.T, o agentinstall.Options, setting string) {
	t.Helper()
	if cs := plan(t, o); len(cs) != 2 || cs[1].Changed() || len(cs[1].Notes) != 1 || !strings.Contains(cs[1].Notes[0], setting) {
		t.Fatalf("%s on purpose: %+v", setting, cs)
	}
}

// A config.toml that does not parse is refused, saying where.
func TestRefuseUnparseable(t *testing.T) {
	_, p, before, getenv := configHome(t, "codex-config-malformed.toml")
	_, err := agentinstall.Plan(opts(getenv))
	var pe *agentinstall.ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Col != 10 || pe.Path != p {
		t.Fatalf("error %v, want a ParseError at 2:10", err)
	}
	if after := read(t, p); !bytes.Equal(before, after) {
		t.Error("the file changed")
	}
}

// Codex 0.171.0 runs hooks by default and warns, on every start, about the
// codex_hooks flag earlier installs wrote: a plain install leaves
// config.toml alone (no file when there was none).
func TestInstallWritesNoFeatureFlag(t *testing.T) {
	for _, fixture := range []string{"codex-config-comments.toml", "codex-config-nofeatures.toml", "codex-config-user-flag.toml", ""} {
		t.Run(fixture, func(t *testing.T) {
			_, p, before, getenv := configHome(t, fixture)
			install(t, opts(getenv))
			if after := read(t, p); !bytes.Equal(before, after) {
				t.Errorf("config.toml changed:\n%s", after)
			}
			if _, err := os.Stat(p); fixture == "" && err == nil {
				t.Error("config.toml created")
			}
			noChange(t, opts(getenv))
		})
	}
}

// An earlier install's own line (and the [features] table it appended) is
// removed; hooks.json loses StopFailure, gains SessionEnd, and its hooks
// get statuspub's path and the timeouts Codex accepts.
func TestUpgradeOldInstall(t *testing.T) {
	for _, fixture := range []string{"codex-config-old-install.toml", "codex-config-old-install-features.toml"} {
		t.Run(fixture, func(t *testing.T) {
			h, getenv := home(t, map[string]string{".codex/config.toml": fixture, ".codex/hooks.json": "hooks-old-install.json"})
			install(t, opts(getenv))
			got := read(t, filepath.Join(h, ".codex", "config.toml"))
			golden(t, "upgrade-"+fixture, got)
			if bytes.Contains(got, []byte("codex_hooks")) {
				t.Error("the deprecated flag is still there")
			}
			hooks := read(t, filepath.Join(h, ".codex", "hooks.json"))
			golden(t, "upgrade-hooks.json", hooks)
			noChange(t, opts(getenv))
		})
	}
}

// A flag the user turned off is reported, not changed.
func TestDisabledOnPurpose(t *testing.T) {
	_, p, before, getenv := configHome(t, "codex-config-disabled.toml")
	noteOnly(t, opts(getenv), "hooks = false")
	install(t, opts(getenv))
	if after := read(t, p); !bytes.Equal(before, after) {
		t.Error("a flag set on purpose was changed")
	}
}

// --trust records, for each of statuspub's hooks, the trusted_hash Codex's
// own review would: a table per hook, appended; an entry of the same key
// with another hash (an older hook there) is replaced, other keys' are
// kept. Uninstall forgets them.
func TestTrust(t *testing.T) {
	for _, fixture := range []string{"codex-config-comments.toml", "codex-config-trusted-other.toml", ""} {
		t.Run(fixture, func(t *testing.T) {
			h, p, before, getenv := configHome(t, fixture)
			o := opts(getenv)
			o.Trust = true
			install(t, o)
			got := read(t, p)
			golden(t, "trust-"+strings.TrimSuffix(cmpOr(fixture, "absent.toml"), ".toml")+".toml",
				bytes.ReplaceAll(got, []byte(h), []byte("$HOME")))
			hooksPath := filepath.Join(h, ".codex", "hooks.json")
			entries, err := agentinstall.CodexTrustEntries(hooksPath, read(t, hooksPath), "codex-hook")
			if err != nil || len(entries) != 8 {
				t.Fatalf("%d entries, %v", len(entries), err)
			}
			for _, e := range entries {
				if hash, ok := agentinstall.CodexTrustedHash(got, e.Key); !ok || hash != e.Hash {
					t.Errorf("%s: %q, want %s", e.Key, hash, e.Hash)
				}
			}
			if !bytes.Contains(got, []byte("/elsewhere/hooks.json")) && fixture == "codex-config-trusted-other.toml" {
				t.Error("another key's trust was lost")
			}
			noChange(t, o)
			// Without --trust, install leaves the trust as it is.
			noChange(t, opts(getenv))

			uninstall(t, opts(getenv))
			after := read(t, p)
			for _, e := range entries {
				if _, ok := agentinstall.CodexTrustedHash(after, e.Key); ok {
					t.Errorf("%s still trusted after uninstall", e.Key)
				}
			}
			if fixture == "codex-config-comments.toml" && !bytes.Equal(after, before) {
				t.Errorf("uninstall left:\n%s\nwant:\n%s", after, before)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// --trust is for the user's own configuration.
func TestTrustProjectRefused(t *testing.T) {
	_, getenv := home(t, nil)
	o := opts(getenv)
	o.Trust, o.Project = true, t.TempDir()
	if _, err := agentinstall.Plan(o); err == nil || !strings.Contains(err.Error(), "--trust") {
		t.Fatalf("error %v", err)
	}
}

// --no-daemon turns Codex's app-server daemon off, once; a value the user
// set is left and reported; uninstall removes the line.
func TestNoDaemon(t *testing.T) {
	for _, fixture := range []string{"codex-config-comments.toml", "codex-config-nofeatures.toml"} {
		t.Run(fixture, func(t *testing.T) {
			_, p, before, getenv := configHome(t, fixture)
			o := opts(getenv)
			o.NoDaemon = true
			install(t, o)
			got := read(t, p)
			golden(t, "no-daemon-"+fixture, got)
			noChange(t, o)
			uninstall(t, opts(getenv))
			if after := read(t, p); !bytes.Equal(after, before) {
				t.Errorf("uninstall left:\n%s", after)
			}
		})
	}
	_, _, _, getenv := configHome(t, "codex-config-daemon-on.toml")
	o := opts(getenv)
	o.NoDaemon = true
	noteOnly(t, o, "daemon_auto_start = true")
}
