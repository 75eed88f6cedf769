package statusconform

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/internal/cli/base"
)

func TestHooksCommand(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), args, base.Env{Stdout: &out, Stderr: &errOut})
		return code, out.String(), errOut.String()
	}
	for _, args := range [][]string{
		{"hooks", "--", "true"},
		{"hooks", "--agent", "opencode", "--", "true"},
		{"hooks", "--agent", "claude"},
		{"hooks", "--agent", "claude", "--timeout", "0s", "--", "true"},
		{"hooks", "--agent", "claude", "--run", "nothing/*", "--", "true"},
	} {
		if code, _, stderr := run(args...); code != base.ExitUsage || !strings.HasPrefix(stderr, "statusconform: hooks: ") {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
		}
	}
	code, out, _ := run("hooks", "--agent", "codex", "--list")
	if code != base.ExitOK || !strings.Contains(out, "hooks/codex/interrupt\t") || strings.Contains(out, "claude/") {
		t.Errorf("--list: exit %d\n%s", code, out)
	}
	// An adapter that writes nothing fails every trace; one that exits 2
	// (which would block the agent) too.
	for _, cmd := range [][]string{{"sh", "-c", "cat >/dev/null"}, {"sh", "-c", "cat >/dev/null; exit 2"}} {
		args := append([]string{"hooks", "--agent", "gemini", "--run", "hooks/gemini/tool-permission", "--"}, cmd...)
		code, out, _ := run(args...)
		if code != base.ExitError || !strings.Contains(out, "FAIL hooks/gemini/tool-permission") || !strings.Contains(out, "0 passed, 1 failed") {
			t.Errorf("%q: exit %d\n%s", cmd, code, out)
		}
	}
}
