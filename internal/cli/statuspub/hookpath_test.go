package statuspub

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/internal/cli/base"
)

// statuspub, the program every agent starts on every hook event, links
// nothing that only install codex needs: the TOML parser's package
// initialisation reads /etc/localtime in every process that links it
// (bench/hook-init.sh measures the start-up). statuspub-install links it.
func TestHookPathLinksNoTOML(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	const mod = "github.com/agentstatus/agentstatus/"
	onlyInstall := []string{"github.com/BurntSushi/toml", mod + "internal/agentinstall/codexconfig", "regexp"}
	pub := deps(mod + "cmd/statuspub")
	for _, p := range onlyInstall {
		if slices.Contains(pub, p) {
			t.Errorf("cmd/statuspub links %s, which only install codex needs: link it into cmd/statuspub-install only", p)
		}
	}
	if !slices.Contains(deps(mod+"cmd/statuspub-install"), onlyInstall[0]) {
		t.Errorf("cmd/statuspub-install does not link %s", onlyInstall[0])
	}
}

// statuspub without config.toml's editor re-executes statuspub-install
// for install codex; a copy of it installed under that name says so
// rather than starting itself again. Usage errors come first, from
// statuspub itself.
func TestInstallCodexNeedsHelper(t *testing.T) {
	// Not parallel: it changes codexTOML, which install codex reads.
	saved := codexTOML
	codexTOML = nil
	t.Cleanup(func() { codexTOML = saved })
	getenv := func(k string) string {
		if k == installHelperEnv {
			return "/usr/bin/statuspub"
		}
		return ""
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"install", "codex"}, base.ExitError, "statuspub: install: this statuspub-install cannot edit Codex's config.toml\n"},
		{[]string{"install", "codex", "--nope"}, base.ExitUsage, "statuspub: install: unknown flag --nope"},
		{[]string{"install", "claude", "--trust"}, base.ExitUsage, "statuspub: install: --trust and --no-daemon are for codex"},
	} {
		var out, errOut bytes.Buffer
		code := Run(tc.args, base.Env{Stdout: &out, Stderr: &errOut, Getenv: getenv})
		if code != tc.code || !strings.HasPrefix(errOut.String(), tc.stderr) || out.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", tc.args, code, out.String(), errOut.String())
		}
	}
}
