//go:build !unix

package agentinstall

import "os"

// openNoFollow opens path for reading; ReadFile checks that what was
// opened is the regular file it looked at.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }
