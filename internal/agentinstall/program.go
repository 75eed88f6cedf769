package agentinstall

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrNPXCache is returned by [HookProgram] for a program that runs from
// npx's cache (~/.npm/_npx/...), which npm empties when it likes: hooks
// written with its path would stop working.
var ErrNPXCache = errors.New("agentinstall: the program runs from npx's temporary cache")

// HookProgram returns the absolute path that an agent's hooks should
// start the program exe (the running program's path, as os.Executable
// gives it) by, so that they go on working as long as the program stays
// installed the way it is:
//
//   - installed by npm install -g (exe is in the package
//     @agentstatus/<os>-<cpu> under PREFIX/lib/node_modules): npm's global
//     bin, PREFIX/bin/NAME, which npm keeps across updates;
//   - on PATH under its own name (an archive in ~/bin, the .deb's
//     /usr/bin, Homebrew's bin, go install's GOBIN): that PATH entry, made
//     absolute but with its links kept, because Homebrew's link points
//     into a folder of the version, which the next upgrade removes;
//   - otherwise: exe, its links resolved.
//
// It returns [ErrNPXCache] for a program that runs from npx's cache, and
// a note for one from a project's node_modules, which goes with the
// project. lookPath is exec.LookPath.
func HookProgram(exe string, lookPath func(string) (string, error)) (path, note string, err error) {
	abs, err := filepath.Abs(exe)
	if err != nil {
		return "", "", err
	}
	name := filepath.Base(abs)
	parts := strings.Split(filepath.ToSlash(abs), "/")
	if slices.Contains(parts, "_npx") {
		return "", "", ErrNPXCache
	}
	if i := npmPackage(parts); i >= 0 {
		if bin := npmGlobalBin(parts, name); bin != "" {
			return bin, "", nil
		}
		if p := onPath(abs, name, lookPath); p != "" {
			return p, "", nil
		}
		return abs, "hooks start " + abs + ", in a project's node_modules, which goes with it: 'npm install -g agentstatus' gives them a path that stays", nil
	}
	if p := onPath(abs, name, lookPath); p != "" {
		return p, "", nil
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, "", nil
	}
	return abs, "", nil
}

// npmPackage returns the index of "node_modules" in the path parts of a
// binary of one of the platform packages (.../node_modules/@agentstatus/
// <os>-<cpu>/bin/NAME), or -1.
func npmPackage(parts []string) int {
	for i := len(parts) - 5; i >= 0; i-- {
		if parts[i] == "node_modules" && parts[i+1] == "@agentstatus" && parts[i+3] == "bin" {
			return i
		}
	}
	return -1
}

// npmGlobalBin returns PREFIX/bin/name when the binary at parts is in
// npm's global folder PREFIX/lib/node_modules and PREFIX/bin/name is the
// agentstatus package's launcher, else "".
func npmGlobalBin(parts []string, name string) string {
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] != "lib" || parts[i+1] != "node_modules" {
			continue
		}
		prefix := filepath.FromSlash(strings.Join(parts[:i], "/"))
		if prefix == "" {
			prefix = string(filepath.Separator)
		}
		bin := filepath.Join(prefix, "bin", name)
		target, err := filepath.EvalSymlinks(bin)
		if err != nil {
			return ""
		}
		pkg, err := filepath.EvalSymlinks(filepath.Join(prefix, "lib", "node_modules", "agentstatus"))
		if err != nil || !strings.HasPrefix(target, pkg+string(filepath.Separator)) {
			return ""
		}
		return bin
	}
	return ""
}

// onPath returns the absolute path of name on PATH, when that is the file
// abs, else "".
func onPath(abs, name string, lookPath func(string) (string, error)) string {
	if lookPath == nil {
		return ""
	}
	p, err := lookPath(name)
	if err != nil {
		return ""
	}
	if p, err = filepath.Abs(p); err != nil {
		return ""
	}
	a, err1 := os.Stat(p)
	b, err2 := os.Stat(abs)
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		return ""
	}
	return p
}
