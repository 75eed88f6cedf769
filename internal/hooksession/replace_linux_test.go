//go:build linux

package hooksession

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A process that serves several clients keeps every session's record.
func TestSingleClient(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"-c", "sleep 30", "tui"}, true},
		{[]string{"-c", "sleep 30", "app-server", "--managed-daemon"}, false},
	} {
		cmd := exec.Command("sh", tt.args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Start returns once the child is forked, maybe before its exec:
		// until then its command line is this test's.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cmd.Process.Pid)); strings.Contains(string(b), "sleep 30") {
				break
			}
		}
		got := singleClient(cmd.Process.Pid)
		cmd.Process.Kill()
		cmd.Wait()
		if got != tt.want {
			t.Errorf("%q: single client %v, want %v", tt.args, got, tt.want)
		}
	}
	if singleClient(0) {
		t.Error("pid 0 is a single client")
	}
}
