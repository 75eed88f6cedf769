package agentinstall

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// zedHome is a temporary HOME whose Zed settings.json is the fixture
// testdata/zed/FILE ("" for none), with the programs progs in a PATH of
// its own, and getenv for it.
func zedHome(t *testing.T, file string, progs ...string) (settings string, getenv func(string) string) {
	t.Helper()
	h := t.TempDir()
	bin := filepath.Join(h, "bin")
	os.MkdirAll(bin, 0o755)
	for _, p := range progs {
		if err := os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settings = filepath.Join(h, ".config", "zed", "settings.json")
	if file != "" {
		data, err := os.ReadFile(filepath.Join("testdata", "zed", file))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(settings), 0o700)
		if err := os.WriteFile(settings, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": h, "PATH": bin}
	return settings, func(k string) string { return env[k] }
}

// zedInstall plans and applies install zed (or uninstall), and returns
// the diff of settings.json with HOME as ~.
func zedInstall(t *testing.T, o Options) (diff string, notes []string) {
	t.Helper()
	o.Zed, o.Command = true, "/opt/agentstatus/bin/statuspub"
	cs, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if filepath.Base(c.Path) == "settings.json" {
			diff += strings.ReplaceAll(c.Diff(), o.Getenv("HOME"), "~")
			notes = append(notes, c.Notes...)
		}
		if _, err := Apply(c, now); err != nil {
			t.Fatal(err)
		}
	}
	return diff, notes
}

// install zed AGENT: the diff it prints is the golden file's; a second
// install changes nothing; uninstall gives back the very bytes (or no
// file when there was none) and removes the restore file; every other
// key, comment and trailing comma stays.
func TestInstallZed(t *testing.T) {
	tests := []struct {
		name, file, agent string
		progs             []string
		entry             string // the key of the entry wrapped
		runs              string // what it runs after "--"
		note              string // in a note, when not ""
	}{
		{"realistic-gemini", "realistic.json", "gemini", []string{"gemini"}, "gemini", "gemini --acp", ""},
		{"realistic-claude-code-acp", "realistic.json", "claude", []string{"claude-code-acp"}, "claude", "claude-code-acp", ""},
		{"realistic-claude-agent-acp", "realistic.json", "claude", []string{"claude-code-acp", "claude-agent-acp"}, "claude", "claude-agent-acp", ""},
		{"env-gemini", "entry-with-env.json", "gemini", nil, "gemini", "/opt/gemini/bin/gemini --acp --model gemini-2.5-pro", "/opt/gemini/bin/gemini is not found"},
		{"env-opencode", "entry-with-env.json", "opencode", []string{"opencode"}, "OpenCode", "opencode acp", ""},
		{"empty-qwen", "empty.json", "qwen", nil, "qwen", "qwen --acp", "qwen is not found in PATH"},
		{"missing-codex", "", "codex", []string{"codex-acp"}, "codex", "codex-acp", ""},
		{"builtin-gemini", "builtin-no-command.json", "gemini", []string{"gemini"}, "gemini", "gemini --acp", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settings, getenv := zedHome(t, tt.file, tt.progs...)
			orig, origErr := os.ReadFile(settings)
			o := Options{Agent: tt.agent, Getenv: getenv}
			diff, notes := zedInstall(t, o)
			if tt.note == "" && len(notes) > 0 || tt.note != "" && !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
				t.Errorf("notes %q, want %q", notes, tt.note)
			}
			got, err := os.ReadFile(settings)
			if err != nil {
				t.Fatal(err)
			}
			servers, err := ZedACPServers(settings)
			if err != nil {
				t.Fatalf("the installed file does not parse as Zed's: %v\n%s", err, got)
			}
			i := slices.IndexFunc(servers, func(s ACPServer) bool { return s.Name == tt.entry })
			if i < 0 || strings.Join(servers[i].Command, " ") != tt.runs {
				t.Errorf("servers %+v, want %s running %s", servers, tt.entry, tt.runs)
			}
			for _, c := range comments(orig) {
				if !bytes.Contains(got, c) {
					t.Errorf("the comment %q went", c)
				}
			}
			if cs, err := Plan(Options{Agent: tt.agent, Getenv: getenv, Zed: true, Command: "/opt/agentstatus/bin/statuspub"}); err != nil || len(cs) != 1 || cs[0].Changed() {
				t.Errorf("a second install: %v %+v", err, cs)
			}
			back, _ := zedInstall(t, Options{Agent: tt.agent, Getenv: getenv, Uninstall: true})
			golden(t, "zed-"+tt.name+".diff", []byte(diff+back))
			after, err := os.ReadFile(settings)
			if origErr != nil {
				if !errors.Is(err, os.ErrNotExist) {
					t.Errorf("uninstall left %q, want no file", after)
				}
			} else if !bytes.Equal(after, orig) {
				t.Errorf("uninstall gave\n%s\nwant\n%s", after, orig)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(settings), RestoreFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the restore file stays: %v", err)
			}
		})
	}
}

// Two agents installed, uninstalled in the other order, give the file
// back; an entry edited after install gets its command from what follows
// "--", keeping the edit.
func TestInstallZedTwoAndEdited(t *testing.T) {
	settings, getenv := zedHome(t, "realistic.json", "gemini", "opencode")
	orig, _ := os.ReadFile(settings)
	zedInstall(t, Options{Agent: "gemini", Getenv: getenv})
	zedInstall(t, Options{Agent: "opencode", Getenv: getenv})
	zedInstall(t, Options{Agent: "gemini", Getenv: getenv, Uninstall: true})
	zedInstall(t, Options{Agent: "opencode", Getenv: getenv, Uninstall: true})
	if after, _ := os.ReadFile(settings); !bytes.Equal(after, orig) {
		t.Errorf("uninstall gave\n%s\nwant\n%s", after, orig)
	}

	zedInstall(t, Options{Agent: "gemini", Getenv: getenv})
	data, _ := os.ReadFile(settings)
	edited := bytes.Replace(data, []byte(`"--acp"`), []byte(`"--acp", "--yolo"`), 1)
	if bytes.Equal(edited, data) {
		t.Fatalf("no --acp in\n%s", data)
	}
	os.WriteFile(settings, edited, 0o644)
	zedInstall(t, Options{Agent: "gemini", Getenv: getenv, Uninstall: true})
	servers, err := ZedACPServers(settings)
	if err != nil || len(servers) != 0 {
		t.Fatalf("still wrapped: %+v %v", servers, err)
	}
	doc, err := parseZed(settings, mustRead(t, settings))
	if err != nil {
		t.Fatal(err)
	}
	e := doc.root.get("agent_servers").get("gemini")
	if cmd, _ := e.get("command").stringValue(); cmd != "gemini" || !slices.Equal(stringsOf(e.get("args")), []string{"--acp", "--yolo"}) {
		t.Errorf("the edited entry: %s", e.src)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// What install zed refuses, leaving the file as it was.
func TestInstallZedRefuses(t *testing.T) {
	tests := []struct {
		name, file, agent, want string
		o                       Options
	}{
		{"broken", "broken.json", "gemini", "settings.json:4:3: ", Options{}},
		{"no adapter", "realistic.json", "claude", "no ACP adapter for claude-code found in PATH (claude-agent-acp, claude-code-acp): install one (npm install -g @zed-industries/claude-agent-acp)", Options{}},
		{"unknown agent", "realistic.json", "copilot", ErrZedAgent.Error(), Options{}},
		{"project", "realistic.json", "gemini", "not a project's", Options{Project: "."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settings, getenv := zedHome(t, tt.file, "gemini")
			orig := mustRead(t, settings)
			o := tt.o
			o.Agent, o.Getenv, o.Zed = tt.agent, getenv, true
			for _, u := range []bool{false, true} {
				o.Uninstall = u
				_, err := Plan(o)
				if u && tt.name == "no adapter" {
					continue // nothing to uninstall: no error
				}
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("uninstall %v: %v, want %q", u, err, tt.want)
				}
			}
			if got := mustRead(t, settings); !bytes.Equal(got, orig) {
				t.Error("the file changed")
			}
		})
	}
}

// Zed accepts a comma after the last member or element; the parser for
// Zed's settings does too, and no other comma more.
func TestParseSettingsAsZed(t *testing.T) {
	tests := []struct {
		name, data string
		ok         bool
	}{
		{"trailing comma", `{"a":1,}`, true},
		{"trailing comma in an array", `{"a":[1,]}`, true},
		{"trailing commas nested", "{\"a\":{\"b\":[1,2,],},\n}", true},
		{"trailing comma before a comment", "{\"a\":1, // c\n}", true},
		{"trailing comma after a comment", "{\"a\":1 /* c */ ,}", true},
		{"comma in a string before a brace", `{"a":",}"}`, true},
		{"comments", "// top\n{\"a\"/* c */:1}", true},
		{"two commas", `{"a":1,,}`, false},
		{"a comma alone in an object", `{,}`, false},
		{"a comma alone in an array", `[,]`, false},
		{"a leading comma", `[,1]`, false},
		{"a comma after a colon", `{"a":,}`, false},
		{"a comma after the document", `{"a":1},`, false},
		{"a missing comma", `{"a":1 "b":2}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parseSettings("f", []byte(tt.data), zedJSON)
			if (err == nil) != tt.ok {
				t.Fatalf("parse: %v, want ok %v", err, tt.ok)
			}
			if err == nil && !bytes.Equal(doc.encode(), []byte(tt.data)) {
				t.Errorf("unedited: %q", doc.encode())
			}
			if _, err := parseSettings("f", []byte(tt.data), jsonComments); err == nil && strings.Contains(tt.name, "trailing") {
				t.Error("Gemini CLI's syntax took a trailing comma")
			}
		})
	}
}

// Members added to and removed from containers that end in a trailing
// comma: the comma stays a trailing comma, and removing what was added
// gives the text back.
func TestEditTrailingComma(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"object on lines", "{\n  \"a\": 1,\n}", "{\n  \"a\": 1,\n  \"n\": \"x\",\n}"},
		{"object on one line", `{"a": 1,}`, `{"a": 1, "n": "x",}`},
		{"comment after the comma", "{\n  \"a\": 1, // c\n}", "{\n  \"a\": 1, // c\n  \"n\": \"x\",\n}"},
		{"comma on the bracket's line", "{\n  \"a\": 1\n  ,}", "{\n  \"a\": 1\n  , \"n\": \"x\",}"},
		{"no trailing comma", "{\n  \"a\": 1\n}", "{\n  \"a\": 1,\n  \"n\": \"x\"\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parseSettings("f", []byte(tt.data), zedJSON)
			if err != nil {
				t.Fatal(err)
			}
			doc.root.set("n", str("x"))
			got := doc.encode()
			if string(got) != tt.want {
				t.Fatalf("added: %q, want %q", got, tt.want)
			}
			doc, err = parseSettings("f", got, zedJSON)
			if err != nil {
				t.Fatalf("the result does not parse: %v", err)
			}
			doc.root.del("n")
			back := doc.encode()
			if _, err := parseSettings("f", back, zedJSON); err != nil {
				t.Fatalf("removed: %q does not parse: %v", back, err)
			}
			if strings.Contains(tt.name, "lines") || tt.name == "comment after the comma" || tt.name == "no trailing comma" {
				if string(back) != tt.data {
					t.Errorf("removed: %q, want %q", back, tt.data)
				}
			}
		})
	}
}

// The user's own claude entry names its adapter: one not found is a
// note, not a refusal (install did not choose it).
func TestInstallZedOwnAdapter(t *testing.T) {
	settings, getenv := zedHome(t, "")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte(`{"agent_servers": {"claude": {"command": "/opt/acp/claude-code-acp", "env": {"A": "1"}}}}`), 0o600)
	_, notes := zedInstall(t, Options{Agent: "claude", Getenv: getenv})
	if len(notes) != 1 || !strings.Contains(notes[0], "/opt/acp/claude-code-acp is not found") {
		t.Errorf("notes %q", notes)
	}
	servers, _ := ZedACPServers(settings)
	if len(servers) != 1 || strings.Join(servers[0].Command, " ") != "/opt/acp/claude-code-acp" {
		t.Errorf("servers %+v", servers)
	}
}
