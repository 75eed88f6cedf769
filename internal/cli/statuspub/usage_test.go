package statuspub

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstatus/agentstatus/internal/cli/base"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The usage text is a golden file: a change to it shows in review.
func TestUsageGolden(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := Run([]string{"--help"}, base.Env{Stdout: &out, Stderr: &errOut}); code != base.ExitOK || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	golden := filepath.Join("testdata", "usage.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("usage differs from %s (go test -run UsageGolden -update to accept):\n%s", golden, out.String())
	}
	// Every subcommand's --help prints that subcommand's usage, with
	// examples, and so does 'help CMD'.
	for _, cmd := range []string{"serve", "run", "set", "clear", "claude-hook", "codex-notify"} {
		var o, h bytes.Buffer
		if code := Run([]string{cmd, "--help"}, base.Env{Stdout: &o, Stderr: &errOut}); code != base.ExitOK {
			t.Errorf("%s --help: exit %d", cmd, code)
		}
		if !bytes.HasPrefix(o.Bytes(), []byte("statuspub "+cmd+": ")) || !bytes.Contains(o.Bytes(), []byte("\nUsage:\n  statuspub "+cmd)) || !bytes.Contains(o.Bytes(), []byte("\nExamples:\n")) {
			t.Errorf("%s --help:\n%s", cmd, o.String())
		}
		if code := Run([]string{"help", cmd}, base.Env{Stdout: &h, Stderr: &errOut}); code != base.ExitOK || !bytes.Equal(h.Bytes(), o.Bytes()) {
			t.Errorf("help %s: exit %d, differs from %s --help", cmd, code, cmd)
		}
	}
}
