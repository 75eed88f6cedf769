//go:build unix

package testmain

import (
	"os"
	"syscall"
)

// restart replaces the process with exe, started with the same arguments
// and GORACE set to gorace. It returns only if exec failed.
func restart(exe, gorace string) error {
	env := append(os.Environ(), "GORACE="+gorace) // the last GORACE wins
	return syscall.Exec(exe, os.Args, env)
}
