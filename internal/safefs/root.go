package safefs

import (
	"os"
)

// OpenStatusRoot checks the status directory and opens it as an [os.Root],
// verifying that the directory opened is the one that was checked.
func OpenStatusRoot(path string) (*os.Root, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := checkStatusDir(path, fi); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	rfi, err := root.Stat(".")
	if err != nil {
		root.Close()
		return nil, err
	}
	if !os.SameFile(fi, rfi) {
		root.Close()
		return nil, refuse(StatusDir, path, ErrChanged, "")
	}
	return root, nil
}
