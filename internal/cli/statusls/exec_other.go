//go:build !unix

package statusls

import "os/exec"

// execSupported says whether watch --exec works here. It runs commands with
// /bin/sh -c, which this platform lacks; cmd /c parses its command line by
// rules of its own, which would make --exec a different interface here.
const execSupported = false

func ownProcessGroup(*exec.Cmd) {}
