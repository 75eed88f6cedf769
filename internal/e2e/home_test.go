//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// newHome makes a new user's HOME: a temporary directory holding the
// project folder proj.
func newHome(t *testing.T) (home, proj string) {
	t.Helper()
	home = t.TempDir()
	proj = filepath.Join(home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	return home, proj
}

// writeHome writes files into home by their paths under it (each 0600,
// its folders 0700), as the agent's first run and trust dialog leave them.
func writeHome(t *testing.T, home string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		path := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// userEnv is the environment the user's terminal gives an agent run in
// home, and extra.
func userEnv(home string, extra ...string) []string {
	return append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8"}, extra...)
}

// install runs `statuspub install ARGS` as the user with env, as the README
// tells them to, and returns what it printed; an error fails t.
func install(t *testing.T, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("statuspub", append([]string{"install"}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("statuspub install %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}
