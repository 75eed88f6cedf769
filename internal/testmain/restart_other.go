//go:build !unix

package testmain

// restart cannot replace the process without exec(2).
func restart(_, _ string) error { return errNoExec }
