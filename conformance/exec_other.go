//go:build !unix

package conformance

import (
	"os"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

func signalOf(*os.ProcessState) string { return "" }

func startCommand(cmd *exec.Cmd, umask int) error {
	if umask >= 0 {
		return skipf("no umask on this system")
	}
	return cmd.Start()
}
