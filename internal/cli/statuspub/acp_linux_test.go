package statuspub_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/testmain"
)

// acpAgent is a shell agent that answers session/new with session S1 and
// every prompt with end_turn.
const acpAgent = `while IFS= read -r l; do
  case "$l" in
   *'"session/new"'*) echo '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S1"}}';;
   *'"session/prompt"'*) echo '{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}';;
  esac
done`

// statuspub acp publishes through heartbeat owners that outlive it: a
// kill of the whole process tree (the editor's SIGKILL of its process
// group) leaves no record behind.
func TestACPKillOfTheProcessTree(t *testing.T) {
	testmain.SkipShort(t, "waits for the owner's liveness check to see the killed tree")
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, "agent-status")
	cmd := exec.Command(bin, "acp", "--config-home", home, "--", "sh", "-c", acpAgent)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/src","mcpServers":[]}}`+"\n")
	if l, _ := bufio.NewReader(stdout).ReadString('\n'); !strings.Contains(l, `"S1"`) {
		t.Fatalf("agent said %q", l)
	}
	waitFor(t, "the record", 10*time.Second, func() bool {
		rec, ok := record(t, dir, "acp:S1")
		return ok && rec.State == "idle" && rec.Cwd == "/src" && rec.Agent == "sh" && rec.PID == cmd.Process.Pid
	})
	waitOneOwner(t, dir, "acp:S1")
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	killed := time.Now()
	cmd.Wait()
	// The owner checks its process every second (SPEC.md H4).
	waitRecordGone(t, "the record removed after the kill", 3*time.Second, dir, "acp:S1")
	t.Logf("record removed %v after the kill", time.Since(killed).Round(time.Millisecond))
	waitNoOwner(t, dir)
}

func TestACPExitStatus(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, tc := range []struct {
		argv []string
		want int
	}{
		{[]string{"sh", "-c", "exit 7"}, 7},
		{[]string{"no-such-agent-statuspub-acp"}, 127},
		{[]string{"/"}, 126},
	} {
		cmd := exec.Command(bin, append([]string{"acp", "--config-home", home, "--"}, tc.argv...)...)
		out, _ := cmd.CombinedOutput()
		if got := cmd.ProcessState.ExitCode(); got != tc.want {
			t.Errorf("%q: exit %d, want %d (%s)", tc.argv, got, tc.want, out)
		}
	}
	cmd := exec.Command(bin, "acp")
	if out, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "no command given") {
		t.Errorf("acp without a command: exit %d, %s", cmd.ProcessState.ExitCode(), out)
	}
}
