//go:build windows

package statusfile_test

// setUmask does nothing: Windows has no umask.
func setUmask(int) func() { return func() {} }
