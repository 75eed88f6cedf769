//go:build !unix

package conformance

import (
	"io/fs"
	"os"
	"os/exec"
)

const unixLike = false

func mkfifo(string, fs.FileMode) error { return skipf("no FIFOs on Windows") }

func mksocket(string, fs.FileMode) error { return skipf("no Unix sockets in this harness on Windows") }

func mkzero(string, fs.FileMode) error { return skipf("no device nodes on Windows") }

func processAlive(int) bool { return false }

func fileOwner(fs.FileInfo) int { return -1 }

func fileLinks(fs.FileInfo) uint64 { return 1 }

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
