//go:build unix

package agentinstall

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading, failing on a symbolic link and
// never blocking on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
