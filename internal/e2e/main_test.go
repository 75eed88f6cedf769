//go:build linux

// Package e2e runs the real agents (Claude Code, Codex, Gemini CLI,
// OpenCode, GitHub Copilot CLI, Qwen Code), pinned and installed from the npm registry, against a scripted
// model on 127.0.0.1, drives them through tmux, and checks that the status
// they publish through the toolkit agrees with what their screen shows
// (SPEC.md §13.2, README "Agents").
//
// The tests run only with AGENTSTATUS_E2E=1, as root: the test binary
// re-executes itself in a new network namespace with only loopback up, so
// the model, tmux, the agents and their hooks reach nothing but
// 127.0.0.1. The agents are installed before that, into
// $AGENTSTATUS_E2E_CACHE (else ~/.cache/agentstatus-e2e), which later runs
// reuse. Without root, unshare or npm the tests skip, unless
// AGENTSTATUS_REQUIRE_TOOLS=1.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/internal/testmain"
)

// inNamespace is set in the environment of the re-executed test binary.
const inNamespace = "AGENTSTATUS_E2E_NETNS"

// pinned are the agents' npm packages and versions, by agent name.
var pinned = map[string]npmPackage{
	"claude":   {"@anthropic-ai/claude-code", "2.1.332", "claude"},
	"codex":    {"@openai/codex", "0.171.0", "codex"},
	"gemini":   {"@google/gemini-cli", "0.61.0", "gemini"},
	"opencode": {"opencode-ai", "1.18.33", "opencode"},
	"copilot":  {"@github/copilot", "1.0.102", "copilot"},
	"qwen":     {"@qwen-code/qwen-code", "0.24.4", "qwen"},
}

type npmPackage struct{ name, version, bin string }

// skipWhy is why the tests skip (or fail, with AGENTSTATUS_REQUIRE_TOOLS=1);
// "" when they run.
var skipWhy string

// binDir holds statuspub and statusls, first in $PATH.
var binDir string

func TestMain(m *testing.M) {
	testmain.SkipRaceExitSleep()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	switch {
	case os.Getenv("AGENTSTATUS_E2E") != "1":
		skipWhy = "the real-agent tests run with AGENTSTATUS_E2E=1 (as root; see .ci/run)"
		return m.Run()
	case os.Getenv(inNamespace) == "1":
		return inside(m)
	}
	// Outside the namespace: install the agents (the registry is
	// reachable only here), then run the tests again inside one.
	if why := prepare(); why != "" {
		skipWhy = why
		return m.Run()
	}
	exe, err := os.Executable()
	if err != nil {
		skipWhy = err.Error()
		return m.Run()
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), inNamespace+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		skipWhy = "cannot start the tests in a network namespace of their own: " + err.Error()
		return m.Run()
	}
	return 0
}

// prepare checks what the tests need outside the namespace and installs
// the pinned agents. It returns why the tests cannot run, or "".
func prepare() string {
	if os.Geteuid() != 0 {
		return "the real-agent tests need root, for a network namespace of their own"
	}
	for _, tool := range []string{"tmux", "ip", "npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			return tool + " is not installed"
		}
	}
	for _, p := range pinned {
		if _, err := p.install(); err != nil {
			return err.Error()
		}
	}
	// What OpenCode would npm-install into its config folder at every
	// start, offline waiting 71 s for npm before it loads a plugin.
	if err := prepareOpenCode(); err != nil {
		return err.Error()
	}
	return ""
}

// cacheDir is where the agents are installed, one directory a version.
func cacheDir() string {
	if d := os.Getenv("AGENTSTATUS_E2E_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "agentstatus-e2e")
}

// dir is where p is installed.
func (p npmPackage) dir() string {
	return filepath.Join(cacheDir(), strings.NewReplacer("/", "_", "@", "_").Replace(p.name+"@"+p.version))
}

// path is p's command.
func (p npmPackage) path() string {
	return filepath.Join(p.dir(), "node_modules", ".bin", p.bin)
}

// install installs p into the cache unless it is there, and returns its
// command.
func (p npmPackage) install() (string, error) {
	if _, err := os.Stat(p.path()); err == nil {
		return p.path(), nil
	}
	if err := os.MkdirAll(p.dir(), 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", p.dir(), p.name+"@"+p.version)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("npm install %s@%s: %v\n%s", p.name, p.version, err, out)
	}
	return p.path(), nil
}

// inside runs the tests in the namespace: loopback up, the commands built.
func inside(m *testing.M) int {
	if out, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		skipWhy = fmt.Sprintf("ip link set lo up: %v: %s", err, out)
		return m.Run()
	}
	// $AGENTSTATUS_E2E_BIN runs other commands (an older version's, for
	// bench/e2e-report.sh's "before").
	dir := os.Getenv("AGENTSTATUS_E2E_BIN")
	if dir == "" {
		var err error
		if dir, err = testbin.Build(); err != nil {
			skipWhy = "building the commands: " + err.Error()
			return m.Run()
		}
		defer testbin.Cleanup()
	}
	binDir = dir
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return m.Run()
}

// needE2E skips t unless the harness runs; with AGENTSTATUS_REQUIRE_TOOLS=1
// a harness that cannot run fails instead.
func needE2E(t *testing.T) {
	t.Helper()
	if skipWhy == "" {
		return
	}
	if os.Getenv("AGENTSTATUS_E2E") == "1" && os.Getenv("AGENTSTATUS_REQUIRE_TOOLS") == "1" {
		t.Fatal(skipWhy)
	}
	t.Skip(skipWhy)
}
