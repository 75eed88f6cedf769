//go:build unix

package base

import "syscall"

// execSelf replaces the process with path. It returns only when exec
// fails.
func execSelf(path string, argv, environ []string) {
	syscall.Exec(path, argv, environ)
}
