//go:build unix

package reader

import (
	osexec "os/exec"
	"testing"
)

// exec runs a short-lived child and returns its pid once it has exited and
// been reaped.
func exec(t *testing.T) int {
	t.Helper()
	cmd := osexec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	return cmd.Process.Pid
}
