//go:build !unix || aix || solaris || illumos

package testbin

// sharedDir: no directory is shared between test binaries here (a running
// program cannot be replaced on Windows), so each builds into a fresh
// temporary directory.
func sharedDir(root, kind string) (dir string, unlock func(), ok bool) {
	return "", nil, false
}
