//go:build !windows

package promtext

import (
	"io/fs"
	"os"

	"github.com/agentstatus/agentstatus/perm"
	"github.com/google/renameio/v2"
)

func othersWritable(m fs.FileMode) bool { return m.Perm()&0o002 != 0 }

// writeIn writes name in dir through an os.Root, after checking that the
// directory it opened is the one checked (fi) and still passes.
func writeIn(dir string, fi fs.FileInfo, name string, data []byte) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	now, err := root.Stat(".")
	if err != nil {
		return err
	}
	if !os.SameFile(fi, now) {
		return &perm.Error{What: TextfileDir, Path: dir, Err: perm.ErrChanged}
	}
	if err := checkTextfileDir(dir, now); err != nil {
		return err
	}
	f, err := renameio.NewPendingFile(name, renameio.WithRoot(root), renameio.WithStaticPermissions(0o644))
	if err != nil {
		return err
	}
	defer f.Cleanup()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.CloseAtomicallyReplace()
}
