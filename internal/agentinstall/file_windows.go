package agentinstall

import (
	"cmp"
	"io/fs"
	"os"
	"path/filepath"
)

// openNoFollow opens path for reading; ReadFile checks that what was
// opened is the regular file it looked at.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

// replaceFile replaces path with data atomically, so that the agent reads
// either the old settings or the new ones, never a part: a temporary file
// in the same directory, written, given mode, synced and renamed over path
// (os.Rename replaces an existing file on Windows). renameio, which does
// this on the other systems, has no WriteFile on Windows. On failure the
// temporary file is removed and path is untouched.
func replaceFile(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".agentstatus-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err = cmp.Or(err, f.Chmod(mode), f.Sync(), f.Close()); err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
