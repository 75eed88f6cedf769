package safefs

import (
	"io"
	"io/fs"
)

// Path returns the path the directory was opened with.
func (d *Dir) Path() string { return d.path }

// Info describes the opened directory.
func (d *Dir) Info() fs.FileInfo { return d.info }

// Close closes the directory.
func (d *Dir) Close() error { return d.f.Close() }

// entries lists the directory: names and types, in no particular order.
func (d *Dir) entries() ([]fs.DirEntry, error) {
	if _, err := d.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return d.f.ReadDir(-1)
}
