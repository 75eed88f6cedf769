//go:build unix

package testmain

import (
	"os"
	"syscall"
)

// restart replaces the process with exe, started with the same arguments
// and GORACE set to gorace. It returns only if exec failed.
func restart(exe, gorace string) {
	os.Setenv("GORACE", gorace)
	syscall.Exec(exe, os.Args, os.Environ())
}
