package codexconfig

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/agentinstall"
)

var update = flag.Bool("update", false, "rewrite golden files")

func home(t *testing.T, files map[string]string) (string, func(string) string) {
	t.Helper()
	h := t.TempDir()
	for rel, src := range files {
		data, err := os.ReadFile(filepath.Join("testdata", src))
		if err != nil {
			t.Fatal(err)
		}
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

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -run %s -update to accept):\n%s", p, t.Name(), got)
	}
}

func install(t *testing.T, o agentinstall.Options) {
	t.Helper()
	cs, err := agentinstall.Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if _, err := agentinstall.Apply(c, time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
	}
}

// A config.toml that does not parse is refused, saying where.
func TestRefuseUnparseable(t *testing.T) {
	h, getenv := home(t, map[string]string{".codex/config.toml": "codex-config-malformed.toml"})
	p := filepath.Join(h, ".codex", "config.toml")
	before, _ := os.ReadFile(p)
	_, err := agentinstall.Plan(agentinstall.Options{Agent: "codex", Getenv: getenv, CodexFeature: PlanFeature})
	var pe *agentinstall.ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Col != 10 || pe.Path != p {
		t.Fatalf("error %v, want a ParseError at 2:10", err)
	}
	if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
		t.Error("the file changed")
	}
}

// Codex: hooks.json, and the feature flag in config.toml, inserted as one
// line so that comments stay; a flag turned off on purpose is reported,
// not changed.
func TestCodexConfig(t *testing.T) {
	for _, fixture := range []string{"codex-config-comments.toml", "codex-config-nofeatures.toml", ""} {
		t.Run(fixture, func(t *testing.T) {
			files := map[string]string{}
			if fixture != "" {
				files[".codex/config.toml"] = fixture
			}
			h, getenv := home(t, files)
			p := filepath.Join(h, ".codex", "config.toml")
			before, _ := os.ReadFile(p)
			install(t, agentinstall.Options{Agent: "codex", Getenv: getenv, CodexFeature: PlanFeature})
			got, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimSuffix(fixture, ".toml")
			if name == "" {
				name = "absent"
			}
			golden(t, name+".toml", got)
			for _, line := range strings.Split(string(before), "\n") {
				if !strings.Contains(string(got), line) {
					t.Errorf("line %q lost", line)
				}
			}
			cs, err := agentinstall.Plan(agentinstall.Options{Agent: "codex", Getenv: getenv, CodexFeature: PlanFeature})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				if c.Changed() {
					t.Errorf("second install changes %s", c.Path)
				}
			}
		})
	}
	h, getenv := home(t, map[string]string{".codex/config.toml": "codex-config-disabled.toml"})
	before, _ := os.ReadFile(filepath.Join(h, ".codex", "config.toml"))
	cs, err := agentinstall.Plan(agentinstall.Options{Agent: "codex", Getenv: getenv, CodexFeature: PlanFeature})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[1].Changed() || len(cs[1].Notes) != 1 || !strings.Contains(cs[1].Notes[0], "hooks = false") {
		t.Fatalf("disabled on purpose: %+v", cs)
	}
	install(t, agentinstall.Options{Agent: "codex", Getenv: getenv, CodexFeature: PlanFeature})
	if after, _ := os.ReadFile(filepath.Join(h, ".codex", "config.toml")); !bytes.Equal(before, after) {
		t.Error("a flag set on purpose was changed")
	}
}
