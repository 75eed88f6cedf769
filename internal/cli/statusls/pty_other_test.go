//go:build unix && !linux

package statusls_test

import (
	"os"
	"testing"
)

// openPTY is written for Linux only.
func openPTY(t *testing.T, cols int) (*os.File, string) {
	t.Skip("pseudo-terminal helper written for Linux")
	return nil, ""
}
