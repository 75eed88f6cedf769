//go:build !windows

package agentinstall

import (
	"io/fs"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// replaceFile replaces path with data atomically, so that the agent reads
// either the old settings or the new ones, never a part: renameio writes a
// temporary file in the same directory, syncs it and renames it over path.
// The file keeps its permissions; a new one gets mode, whatever the umask.
// On failure the temporary file is removed and path is untouched.
func replaceFile(path string, data []byte, mode fs.FileMode) error {
	return renameio.WriteFile(path, data, mode,
		renameio.WithTempDir(filepath.Dir(path)), renameio.IgnoreUmask(), renameio.WithExistingPermissions())
}
