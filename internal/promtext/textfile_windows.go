package promtext

import (
	"io/fs"
	"os"
	"path/filepath"
)

// On Windows there are no mode bits to check: the directory inherits its
// ACL.
func othersWritable(fs.FileMode) bool { return false }

// writeIn writes a temporary file in dir and renames it over name
// (MoveFileEx replaces an existing file).
func writeIn(dir string, _ fs.FileInfo, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}
