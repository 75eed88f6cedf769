//go:build !unix

package base

// execSelf cannot replace the process here: the helper runs as a child.
func execSelf(path string, argv, environ []string) {}
