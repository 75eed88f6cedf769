package perm

import (
	"errors"
	"io/fs"
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

// RemoveOwnFile removes name from root if it is still the regular file
// described by written (as returned by Stat on the file that was written),
// and reports whether it did. A file replaced by someone else is left alone.
func RemoveOwnFile(root *os.Root, name string, written fs.FileInfo) (bool, error) {
	fi, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() || !os.SameFile(fi, written) {
		return false, nil
	}
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, nil
}
