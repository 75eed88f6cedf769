package agentinstall

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// HookProgram gives each install route's hooks a path that outlives the
// route's usual life: npm's global bin, the PATH entry with its links
// kept (Homebrew's bin, not its versioned Caskroom), and never npx's cache.
func TestHookProgram(t *testing.T) {
	d := t.TempDir()
	file := func(p string) string {
		t.Helper()
		p = filepath.Join(d, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, p string) string {
		t.Helper()
		p = filepath.Join(d, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
		return p
	}
	// npm install -g: the launcher in npm's global bin, the platform
	// package nested in agentstatus or beside it.
	file("g/lib/node_modules/agentstatus/bin/statuspub.js")
	gbin := link("../lib/node_modules/agentstatus/bin/statuspub.js", "g/bin/statuspub")
	nested := file("g/lib/node_modules/agentstatus/node_modules/@agentstatus/linux-x64/bin/statuspub")
	sibling := file("g/lib/node_modules/@agentstatus/linux-x64/bin/statuspub")
	// A global folder without the launcher, and one whose bin/statuspub
	// is another package's.
	nobin := file("h/lib/node_modules/agentstatus/node_modules/@agentstatus/linux-x64/bin/statuspub")
	file("o/lib/node_modules/other/statuspub.js")
	file("o/lib/node_modules/agentstatus/bin/statuspub.js")
	link("../lib/node_modules/other/statuspub.js", "o/bin/statuspub")
	otherbin := file("o/lib/node_modules/@agentstatus/linux-x64/bin/statuspub")
	npx := file("home/.npm/_npx/0123abcd/node_modules/@agentstatus/linux-x64/bin/statuspub")
	project := file("proj/node_modules/@agentstatus/darwin-arm64/bin/statuspub")
	// Homebrew: bin/statuspub links into the version's folder, which is
	// what /proc/self/exe names.
	cellar := file("brew/Caskroom/agentstatus/1.2.3/statuspub")
	brewbin := link("../Caskroom/agentstatus/1.2.3/statuspub", "brew/bin/statuspub")
	// An archive unpacked in ~/tools, reached through a link in ~/bin
	// that is not on PATH.
	tools := file("tools/statuspub")
	toolsLink := link(tools, "bin/statuspub")
	other := file("usr/bin/statuspub")

	path := func(p string) func(string) (string, error) {
		return func(name string) (string, error) {
			if p == "" || name != "statuspub" {
				return "", exec.ErrNotFound
			}
			return p, nil
		}
	}
	for _, tc := range []struct {
		name     string
		exe      string
		lookPath func(string) (string, error)
		want     string
		note     bool
		err      error
	}{
		{"npm -g, platform package nested", nested, path(""), gbin, false, nil},
		{"npm -g, platform package beside", sibling, path(gbin), gbin, false, nil},
		{"npm -g without the launcher", nobin, path(""), nobin, true, nil},
		{"npm -g, bin is another package's", otherbin, path(""), otherbin, true, nil},
		{"npx cache", npx, path(""), "", false, ErrNPXCache},
		{"a project's node_modules", project, path(""), project, true, nil},
		{"Homebrew: the link on PATH, not the version's folder", cellar, path(brewbin), brewbin, false, nil},
		{"on PATH as itself", other, path(other), other, false, nil},
		{"another statuspub on PATH", tools, path(other), tools, false, nil},
		{"not on PATH: links resolved", toolsLink, path(""), tools, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, note, err := HookProgram(tc.exe, tc.lookPath)
			if !errors.Is(err, tc.err) {
				t.Fatalf("HookProgram(%s): error %v, want %v", tc.exe, err, tc.err)
			}
			real := func(p string) string {
				if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
					return filepath.Join(r, filepath.Base(p))
				}
				return p
			}
			if real(got) != real(tc.want) || !filepath.IsAbs(got) && tc.want != "" {
				t.Errorf("HookProgram(%s) = %q, want %q", tc.exe, got, tc.want)
			}
			if (note != "") != tc.note {
				t.Errorf("HookProgram(%s): note %q, want one: %v", tc.exe, note, tc.note)
			}
			if note != "" && (strings.Contains(note, "\n") || !strings.Contains(note, "npm install -g agentstatus")) {
				t.Errorf("note %q: want one line that says how to install", note)
			}
		})
	}
}

// A relative path (os.Executable never gives one, but a caller may) is
// made absolute.
func TestHookProgramRelative(t *testing.T) {
	d := t.TempDir()
	t.Chdir(d)
	if err := os.WriteFile("statuspub", nil, 0o755); err != nil {
		t.Fatal(err)
	}
	got, _, err := HookProgram("statuspub", nil)
	if err != nil || !filepath.IsAbs(got) || filepath.Base(got) != "statuspub" {
		t.Errorf("HookProgram(statuspub) = %q, %v; want an absolute path", got, err)
	}
}
