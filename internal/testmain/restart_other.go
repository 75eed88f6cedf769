//go:build !unix

package testmain

import "os"

// restart cannot replace the process without exec(2): the subprocesses at
// least get gorace.
func restart(_, gorace string) { os.Setenv("GORACE", gorace) }
