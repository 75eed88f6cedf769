//go:build !linux

package safefs

import "io"

// List lists the directory: every name but "." and "..", with its type, in
// no particular order.
func (d *Dir) List() ([]DirEntry, error) {
	if _, err := d.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	des, err := d.f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make([]DirEntry, len(des))
	for i, de := range des {
		out[i] = DirEntry{Name: de.Name(), Type: de.Type()}
	}
	return out, nil
}
