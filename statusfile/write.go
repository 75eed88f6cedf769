package statusfile

import (
	"errors"
	"io/fs"
	"os"

	"github.com/agentstatus/agentstatus/perm"
)

// openForWrite runs the trust checks of SPEC.md P2–P5 (creating a missing
// config home and status directory) and returns the status directory as a
// root the platform's writeFile writes name into.
func openForWrite(home, dir, name string) (*os.Root, error) {
	if err := perm.EnsureConfigHome(home); err != nil {
		return nil, err
	}
	// OpenStatusRoot checks the status directory; only a missing one is
	// created (and checked) first.
	root, err := perm.OpenStatusRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err = perm.EnsureStatusDir(dir); err == nil {
			root, err = perm.OpenStatusRoot(dir)
		}
	}
	if err != nil {
		return nil, err
	}
	if err := perm.CheckStatusFileIn(root, name); err != nil {
		root.Close()
		return nil, err
	}
	return root, nil
}

// removeFile removes dir/name if it is still the file written.
func removeFile(dir, name string, written fs.FileInfo) error {
	root, err := perm.OpenStatusRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	_, err = perm.RemoveOwnFile(root, name, written)
	return err
}
