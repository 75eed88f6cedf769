//go:build !windows

package statusfile

import (
	"io/fs"

	"github.com/agentstatus/agentstatus/perm"
	"github.com/google/renameio/v2"
)

// writeFile checks the trust rules and atomically replaces dir/name with
// data through a dot-prefixed temporary file in dir itself, mode 0600 whatever
// the umask. It returns the identity of the file written.
func writeFile(home, dir, name string, data []byte) (fs.FileInfo, error) {
	root, err := openForWrite(home, dir, name)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	pf, err := renameio.NewPendingFile(name, renameio.WithRoot(root), renameio.WithStaticPermissions(perm.FileMode))
	if err != nil {
		return nil, err
	}
	defer pf.Cleanup()
	if _, err := pf.Write(data); err != nil {
		return nil, err
	}
	fi, err := pf.Stat()
	if err != nil {
		return nil, err
	}
	// Syncs the file, then renames it over the old one.
	if err := pf.CloseAtomicallyReplace(); err != nil {
		return nil, err
	}
	return fi, nil
}
