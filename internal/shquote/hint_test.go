package shquote

import (
	"os"
	"os/exec"
	"testing"
)

// A hint pasted into a shell with its quotes runs no part of the command
// and redirects nothing, even when the command holds a quoted word.
func TestHintPastedWhole(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, host := range []string{"plain", "a>b", "x(y", "u@h~1", "a<b"} {
		dir := t.TempDir()
		hint := Hint("ssh -o BatchMode=yes " + Quote(host) + " true")
		cmd := exec.Command("sh", "-c", hint)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+dir) // no ssh to run
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 127 {
			t.Errorf("%q pasted: %v, want command not found (127)", hint, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("%q pasted created %s", hint, entries[0].Name())
		}
	}
}
