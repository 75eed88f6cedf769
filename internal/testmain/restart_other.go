//go:build !unix

package testmain

import "errors"

// restart cannot replace the process without exec(2).
func restart(_, _ string) error { return errors.New("no exec(2) here") }
