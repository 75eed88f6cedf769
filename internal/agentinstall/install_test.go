package agentinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/examples/opencode"
	"github.com/agentstatus/agentstatus/internal/goldentest"
	"github.com/agentstatus/agentstatus/internal/shquote"
)

var now = time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)

// home makes a HOME for one test; files maps a path under it to a fixture
// in testdata (or literal content when it does not name one).
func home(t *testing.T, files map[string]string) (string, func(string) string) {
	t.Helper()
	h := t.TempDir()
	for rel, src := range files {
		data, err := os.ReadFile(filepath.Join("testdata", src))
		if err != nil {
			data = []byte(src)
		}
		p := filepath.Join(h, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
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

// install runs Plan and Apply, and returns the changes.
func install(t *testing.T, o Options) []Change {
	t.Helper()
	cs, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if _, err := Apply(c, now); err != nil {
			t.Fatal(err)
		}
	}
	return cs
}

func jsonValue(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// installCase installs agent's hooks into file under a HOME where file is
// fixture (none for "").
type installCase struct {
	agent, file, fixture string
}

// runInstallCases installs every case, and checks that the result is its
// golden file, that Check agrees before, after install and after
// uninstall, and that a second install changes nothing. kept checks, for a
// case with a fixture, that the installed file still has what was there;
// restored, what uninstall left.
func runInstallCases(t *testing.T, tests []installCase, kept func(t *testing.T, before, got []byte),
	restored func(t *testing.T, fixture, path string, before, after []byte, err error)) {
	t.Helper()
	for _, tt := range tests {
		name := tt.agent + "-" + strings.TrimSuffix(tt.fixture, ".json")
		if tt.fixture == "" {
			name += "absent"
		}
		t.Run(name, func(t *testing.T) {
			files := map[string]string{}
			if tt.fixture != "" {
				files[tt.file] = tt.fixture
			}
			h, getenv := home(t, files)
			path := filepath.Join(h, tt.file)
			before, _ := os.ReadFile(path)
			if st := find(Check(getenv), tt.agent); st.Installed || st.Err != nil {
				t.Errorf("Check before install: %+v", st)
			}
			o := Options{Agent: tt.agent, Getenv: getenv}
			install(t, o)
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".json", got)
			if tt.fixture != "" {
				kept(t, before, got)
			}
			if st := find(Check(getenv), tt.agent); !st.Installed || st.Err != nil || st.Path != path {
				t.Errorf("Check after install: %+v", st)
			}
			// Idempotent.
			cs, err := Plan(o)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				if c.Changed() || c.Diff() != "" {
					t.Errorf("second install changes %s:\n%s", c.Path, c.Diff())
				}
			}
			o.Uninstall = true
			install(t, o)
			after, err := os.ReadFile(path)
			restored(t, tt.fixture, path, before, after, err)
			if st := find(Check(getenv), tt.agent); st.Installed {
				t.Errorf("Check after uninstall: %+v", st)
			}
		})
	}
}

// Install into each JSON agent's settings: absent, empty, and with other
// tools' hooks and settings. Every key stays, in its order; the result is
// a golden file; a second install changes nothing; uninstall gives back
// what was there; Check agrees at every stage.
func TestInstallJSON(t *testing.T) {
	runInstallCases(t, []installCase{
		{"claude", ".claude/settings.json", ""},
		{"claude", ".claude/settings.json", "empty.json"},
		{"claude", ".claude/settings.json", "claude-other-hooks.json"},
		{"gemini", ".gemini/settings.json", ""},
		{"gemini", ".gemini/settings.json", "gemini-other-hooks.json"},
		{"codex", ".codex/hooks.json", ""},
		{"codex", ".codex/hooks.json", "codex-hooks-other.json"},
	}, keptKeys, sameJSON)
}

// keptKeys checks that every key of before, and every hook group of
// another tool, is still in got.
func keptKeys(t *testing.T, before, got []byte) {
	t.Helper()
	old := jsonValue(t, before).(map[string]any)
	now := jsonValue(t, got).(map[string]any)
	for k, v := range old {
		if k == "hooks" {
			for ev, groups := range v.(map[string]any) {
				for _, g := range groups.([]any) {
					if !containsValue(now["hooks"].(map[string]any)[ev].([]any), g) {
						t.Errorf("hooks.%s lost %v", ev, g)
					}
				}
			}
			continue
		}
		if !reflect.DeepEqual(now[k], v) {
			t.Errorf("key %s changed: %v -> %v", k, v, now[k])
		}
	}
}

// sameJSON checks that uninstall gave back what was there.
func sameJSON(t *testing.T, _, _ string, before, after []byte, _ error) {
	t.Helper()
	if !reflect.DeepEqual(jsonValue(t, after), jsonValue(t, before)) {
		t.Errorf("after uninstall:\n%s\nwant the equivalent of:\n%s", after, before)
	}
}

func containsValue(list []any, v any) bool {
	for _, x := range list {
		if reflect.DeepEqual(x, v) {
			return true
		}
	}
	return false
}

func find(sts []Status, agent string) Status {
	for _, s := range sts {
		if s.Agent == agent {
			return s
		}
	}
	return Status{}
}

// A file that does not parse is refused, saying where; nothing is written.
func TestRefuseUnparseable(t *testing.T) {
	tests := []struct {
		agent, file, fixture string
		line, col            int
	}{
		{"claude", ".claude/settings.json", "malformed.json", 6, 5},
		// Claude Code's settings are plain JSON: comments are refused.
		{"claude", ".claude/settings.json", "gemini-comments.json", 2, 3},
		// Gemini CLI reads comments, but refuses a trailing comma too.
		{"gemini", ".gemini/settings.json", "gemini-trailing-comma.json", 4, 1},
		{"claude", ".claude/settings.json", "[1, 2]", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			h, getenv := home(t, map[string]string{tt.file: tt.fixture})
			before, _ := os.ReadFile(filepath.Join(h, tt.file))
			_, err := Plan(Options{Agent: tt.agent, Getenv: getenv})
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != tt.line || pe.Col != tt.col || pe.Path != filepath.Join(h, tt.file) {
				t.Fatalf("error %v, want a ParseError at %d:%d", err, tt.line, tt.col)
			}
			if !strings.Contains(err.Error(), tt.file+":") {
				t.Errorf("error %q does not name the file", err)
			}
			after, _ := os.ReadFile(filepath.Join(h, tt.file))
			if !bytes.Equal(before, after) {
				t.Error("the file changed")
			}
			if tt.fixture == "gemini-comments.json" && !strings.Contains(err.Error(), "comments") {
				t.Errorf("error %q does not say why", err)
			}
			if tt.fixture == "gemini-trailing-comma.json" && (!strings.Contains(err.Error(), "trailing commas") || strings.Contains(err.Error(), "comments are not JSON")) {
				t.Errorf("error %q does not say why", err)
			}
		})
	}
}

// A symlinked settings file, and a read-only one, are refused; their
// content (and the link's target) stay.
func TestRefuseSymlinkAndReadOnly(t *testing.T) {
	h, getenv := home(t, map[string]string{"elsewhere/settings.json": "claude-other-hooks.json"})
	target := filepath.Join(h, "elsewhere", "settings.json")
	os.MkdirAll(filepath.Join(h, ".claude"), 0o700)
	if err := os.Symlink(target, filepath.Join(h, ".claude", "settings.json")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(target)
	if _, err := Plan(Options{Agent: "claude", Getenv: getenv}); !errors.Is(err, ErrSymlink) {
		t.Errorf("symlink: %v", err)
	}
	if after, _ := os.ReadFile(target); !bytes.Equal(before, after) {
		t.Error("the link's target changed")
	}

	h, getenv = home(t, map[string]string{".gemini/settings.json": "gemini-other-hooks.json"})
	p := filepath.Join(h, ".gemini", "settings.json")
	os.Chmod(p, 0o444)
	before, _ = os.ReadFile(p)
	if _, err := Plan(Options{Agent: "gemini", Getenv: getenv}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only: %v", err)
	}
	if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
		t.Error("the read-only file changed")
	}
}

// Apply keeps a backup of the old file, with its mode, and keeps the mode.
func TestApplyBackup(t *testing.T) {
	h, getenv := home(t, map[string]string{".claude/settings.json": "claude-other-hooks.json"})
	p := filepath.Join(h, ".claude", "settings.json")
	os.Chmod(p, 0o640)
	before, _ := os.ReadFile(p)
	cs, err := Plan(Options{Agent: "claude", Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	backup, err := Apply(cs[0], now)
	if err != nil {
		t.Fatal(err)
	}
	if backup != p+".agentstatus-backup-20261201T050000Z" {
		t.Errorf("backup %s", backup)
	}
	if got, _ := os.ReadFile(backup); !bytes.Equal(got, before) {
		t.Error("the backup differs from the old file")
	}
	for _, f := range []string{p, backup} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v, %v", f, fi.Mode(), err)
		}
	}
	// The new file replaced the old one through a temporary file that is
	// gone.
	if names := dirNames(t, filepath.Dir(p)); !slices.Equal(names, []string{"settings.json", "settings.json.agentstatus-backup-20261201T050000Z"}) {
		t.Errorf("files after Apply: %q", names)
	}
	// A file changed between Plan and Apply is not overwritten.
	cs, _ = Plan(Options{Agent: "claude", Getenv: getenv, Uninstall: true})
	os.WriteFile(p, []byte(`{"changed":true}`), 0o640)
	if _, err := Apply(cs[0], now.Add(time.Second)); err == nil || !strings.Contains(err.Error(), "changed while") {
		t.Errorf("Apply over a changed file: %v", err)
	}
}

// The dry run's diff is a unified diff that turns the old file into the
// new one.
func TestDiff(t *testing.T) {
	_, getenv := home(t, map[string]string{".gemini/settings.json": "gemini-other-hooks.json"})
	cs, err := Plan(Options{Agent: "gemini", Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	d := cs[0].Diff()
	d = d[strings.Index(d, "\n@@"):] // the header names a temporary path
	golden(t, "gemini-other-hooks.diff", []byte(d))
	if got := unifiedDiff("x", "x", []byte("a\nb\n"), []byte("a\nb\n")); got != "" {
		t.Errorf("no change: %q", got)
	}
	if got := unifiedDiff("x", "x", nil, []byte("a\n")); got != "--- x\n+++ x\n@@ -0,0 +1,1 @@\n+a\n" {
		t.Errorf("new file: %q", got)
	}
}

// --project writes under the project; CODEX_HOME and XDG_CONFIG_HOME are
// honoured.
func TestLocations(t *testing.T) {
	h, getenv := home(t, nil)
	proj := t.TempDir()
	for agent, want := range map[string]string{
		"claude": filepath.Join(proj, ".claude", "settings.json"), "codex": filepath.Join(proj, ".codex", "hooks.json"),
		"gemini": filepath.Join(proj, ".gemini", "settings.json"), "opencode": filepath.Join(proj, ".opencode", "plugins", "agentstatus.js"),
	} {
		cs, err := Plan(Options{Agent: agent, Project: proj, Getenv: getenv})
		if err != nil || cs[0].Path != want {
			t.Errorf("%s --project: %v %v", agent, cs, err)
		}
	}
	env := func(k string) string {
		switch k {
		case "HOME":
			return h
		case "CODEX_HOME":
			return "/opt/codex"
		case "XDG_CONFIG_HOME":
			return "/xdg"
		}
		return ""
	}
	if cs, err := Plan(Options{Agent: "codex", Getenv: env}); err != nil || cs[0].Path != "/opt/codex/hooks.json" {
		t.Errorf("CODEX_HOME: %v %v", cs, err)
	}
	if cs, err := Plan(Options{Agent: "opencode", Getenv: env}); err != nil || cs[0].Path != "/xdg/opencode/plugins/agentstatus.js" {
		t.Errorf("XDG_CONFIG_HOME: %v %v", cs, err)
	}
	if _, err := Plan(Options{Agent: "cursor", Getenv: env}); !errors.Is(err, ErrAgent) {
		t.Errorf("unknown agent: %v", err)
	}
}

// OpenCode: the plugin file is written, updated only when it is ours, and
// removed by uninstall.
func TestOpenCodePlugin(t *testing.T) {
	h, getenv := home(t, nil)
	p := filepath.Join(h, ".config", "opencode", "plugins", "agentstatus.js")
	install(t, Options{Agent: "opencode", Getenv: getenv})
	if got, _ := os.ReadFile(p); !bytes.Equal(got, opencode.Plugin) {
		t.Error("plugin not written")
	}
	if st := find(Check(getenv), "opencode"); !st.Installed || st.Found == "" {
		t.Errorf("Check: %+v", st)
	}
	// statuspub off PATH: the plugin names it.
	install(t, Options{Agent: "opencode", Getenv: getenv, Command: "/opt/agent status/statuspub"})
	if got, _ := os.ReadFile(p); !bytes.Contains(got, []byte(`process.env.AGENTSTATUS_STATUSPUB || "/opt/agent status/statuspub";`)) ||
		bytes.Count(got, []byte("\n")) != bytes.Count(opencode.Plugin, []byte("\n")) {
		t.Errorf("plugin with a path:\n%s", got)
	}
	if cs, _ := Plan(Options{Agent: "opencode", Getenv: getenv, Command: "/opt/agent status/statuspub"}); cs[0].Changed() {
		t.Error("a second install changes the plugin")
	}
	install(t, Options{Agent: "opencode", Getenv: getenv, Uninstall: true})
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("uninstall left the plugin: %v", err)
	}
	// OpenCode loads what is in plugins/: the backups are kept in the
	// folder above it.
	if names := dirNames(t, filepath.Dir(p)); len(names) != 0 {
		t.Errorf("plugins/ after uninstall: %q", names)
	}
	os.WriteFile(p, []byte("export const Mine = async () => ({})\n"), 0o644)
	if _, err := Plan(Options{Agent: "opencode", Getenv: getenv}); !errors.Is(err, ErrNotOurs) {
		t.Errorf("someone else's file: %v", err)
	}
}

// Check finds agents by their configuration directory, and says what is
// missing.
func TestCheck(t *testing.T) {
	_, getenv := home(t, map[string]string{
		".claude/settings.json": `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/usr/local/bin/statuspub claude-hook"}]}]}}`,
		".gemini/settings.json": "gemini-comments.json",
	})
	t.Setenv("PATH", t.TempDir())
	sts := Check(getenv)
	c := find(sts, "claude")
	if c.Found == "" || c.Installed || len(c.Missing) != len(mustSpec("claude").events)-1 {
		t.Errorf("claude: %+v", c)
	}
	// Gemini CLI reads a settings.json with comments: doctor must not call
	// it broken, only say what is missing.
	if g := find(sts, "gemini"); g.Found == "" || g.Err != nil || len(g.Missing) != len(mustSpec("gemini").events) {
		t.Errorf("gemini: %+v", g)
	}
	if x := find(sts, "codex"); x.Found != "" {
		t.Errorf("codex found: %+v", x)
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"statuspub":                   "statuspub",
		"/home/u/go/bin/statuspub":    "/home/u/go/bin/statuspub",
		"/opt/agent status/statuspub": "'/opt/agent status/statuspub'",
		"/opt/it's/statuspub":         `'/opt/it'\''s/statuspub'`,
	} {
		got := shquote.Quote(in)
		if got != want {
			t.Errorf("shquote.Quote(%q) = %q, want %q", in, got, want)
		}
		if out, err := exec.Command("sh", "-c", "printf %s "+got).Output(); err != nil || string(out) != in {
			t.Errorf("sh reads %q as %q (%v)", got, out, err)
		}
		if !isOurs(got+" claude-hook", "claude-hook") {
			t.Errorf("isOurs does not recognise %q", got+" claude-hook")
		}
	}
}

func TestIsOurs(t *testing.T) {
	for cmd, want := range map[string]bool{
		"statuspub claude-hook":                         true,
		"/home/u/go/bin/statuspub claude-hook --strict": true,
		`"/opt/x y/statuspub" claude-hook`:              true,
		`'/opt/x y/statuspub' claude-hook --strict`:     true,
		`'/opt/x y/statuspub claude-hook`:               false,
		"statuspub codex-hook":                          false,
		"mystatuspub claude-hook":                       false,
		"statuspub":                                     false,
	} {
		if got := isOurs(cmd, "claude-hook"); got != want {
			t.Errorf("isOurs(%q) = %v", cmd, got)
		}
	}
}

// FuzzShellWord: whatever the path, the quoted command is recognised as
// statuspub's again.
func FuzzShellWord(f *testing.F) {
	for _, s := range []string{"/usr/bin", "/opt/a b", `/it's`, `/a"b\c`, "/tab\there", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dir string) {
		if strings.ContainsAny(dir, "\x00\n") {
			return
		}
		cmd := shquote.Quote(dir+"/statuspub") + " claude-hook"
		if !isOurs(cmd, "claude-hook") || isOurs(cmd, "codex-hook") {
			t.Fatalf("%q", cmd)
		}
	})
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// A replacement that fails leaves the old file as it was and no temporary
// file behind: here the rename fails, the path being a directory.
func TestReplaceFileFails(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "settings.json")
	os.MkdirAll(filepath.Join(target, "inside"), 0o700)
	if err := replaceFile(target, []byte("{}\n"), 0o600); err == nil {
		t.Fatal("replacing a directory succeeded")
	}
	if fi, err := os.Stat(target); err != nil || !fi.IsDir() {
		t.Errorf("the target changed: %v %v", fi, err)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"settings.json"}) {
		t.Errorf("files after a failed replacement: %q", names)
	}
	if err := replaceFile(filepath.Join(dir, "new.json"), []byte("{}\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "new.json")); err != nil || string(data) != "{}\n" {
		t.Errorf("new.json: %q %v", data, err)
	}
}

// OpenCode loads every *.js in plugins/ as a plugin: the backups of the
// plugin that an update or an uninstall makes go into the folder above
// plugins/, globally and in a project.
func TestOpenCodeBackup(t *testing.T) {
	for _, tc := range []struct {
		name    string
		project bool
		dir     string // the folder that holds plugins/, under the home
	}{
		{"global", false, ".config/opencode"},
		{"project", true, "proj/.opencode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, getenv := home(t, nil)
			o := Options{Agent: "opencode", Getenv: getenv}
			if tc.project {
				o.Project = filepath.Join(h, "proj")
			}
			dir := filepath.Join(h, filepath.FromSlash(tc.dir))
			plugins := filepath.Join(dir, "plugins")
			apply := func(o Options, at time.Time) string {
				t.Helper()
				cs, err := Plan(o)
				if err != nil {
					t.Fatal(err)
				}
				old := cs[0].Old
				backup, err := Apply(cs[0], at)
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(backup); backup != "" && !bytes.Equal(got, old) {
					t.Errorf("backup %s differs from the old plugin", backup)
				}
				return backup
			}
			if b := apply(o, now); b != "" {
				t.Errorf("a first install made a backup: %s", b)
			}
			o.Command = "/opt/agentstatus/statuspub"
			if b := apply(o, now); b != filepath.Join(dir, "agentstatus.js.agentstatus-backup-20261201T050000Z") {
				t.Errorf("update's backup: %s", b)
			}
			if names := dirNames(t, plugins); !slices.Equal(names, []string{"agentstatus.js"}) {
				t.Errorf("plugins/ after an update: %q", names)
			}
			o.Uninstall = true
			if b := apply(o, now.Add(time.Second)); b != filepath.Join(dir, "agentstatus.js.agentstatus-backup-20261201T050001Z") {
				t.Errorf("uninstall's backup: %s", b)
			}
			if names := dirNames(t, plugins); len(names) != 0 {
				t.Errorf("plugins/ after uninstall: %q", names)
			}
		})
	}
}

func mustSpec(agent string) hookSpec {
	spec, ok := specFor(agent)
	if !ok {
		panic("no hookSpec for " + agent)
	}
	return spec
}
