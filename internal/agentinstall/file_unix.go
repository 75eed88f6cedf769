//go:build unix

package agentinstall

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/google/renameio/v2"
)

// openNoFollow opens path for reading, failing on a symbolic link and
// never blocking on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// replaceFile replaces path with data atomically, so that the agent reads
// either the old settings or the new ones, never a part: renameio writes a
// temporary file in the same directory, syncs it and renames it over path.
// The file keeps its permissions; a new one gets mode, whatever the umask.
// On failure the temporary file is removed and path is untouched.
func replaceFile(path string, data []byte, mode fs.FileMode) error {
	return renameio.WriteFile(path, data, mode,
		renameio.WithTempDir(filepath.Dir(path)), renameio.IgnoreUmask(), renameio.WithExistingPermissions())
}
