//go:build unix

package statusls

import "syscall"

// execSelf replaces the process with path, so that the helper's exit
// status, signals and streams are the command's own. It returns only when
// exec fails.
func execSelf(path string, argv, environ []string) {
	syscall.Exec(path, argv, environ)
}
