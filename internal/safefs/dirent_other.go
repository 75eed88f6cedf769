//go:build !linux

package safefs

// List lists the directory: every name but "." and "..", with its type, in
// no particular order.
func (d *Dir) List() ([]DirEntry, error) {
	des, err := d.entries()
	if err != nil {
		return nil, err
	}
	out := make([]DirEntry, len(des))
	for i, de := range des {
		out[i] = DirEntry{Name: de.Name(), Type: de.Type()}
	}
	return out, nil
}
