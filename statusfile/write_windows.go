//go:build windows

package statusfile

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/agentstatus/agentstatus/internal/safefs"
)

// writeFile is the Windows write path: the descriptor-relative calls of the Unix path do not exist
// there. It writes a dot-prefixed temporary file in the status directory
// (created exclusively), syncs it, and renames it over the old file with
// os.Rename (MoveFileEx with MOVEFILE_REPLACE_EXISTING). A reader that holds
// the old file open without FILE_SHARE_DELETE makes the rename fail with
// "access denied": it is retried a few times, then reported, and the next
// heartbeat tries again. Readers never see a partial file.
//
// It first runs the trust checks of SPEC.md P2–P5, creating a missing
// config home and status directory.
func writeFile(home, dir, name string, data []byte) (fs.FileInfo, error) {
	if err := safefs.EnsureConfigHome(home); err != nil {
		return nil, err
	}
	// OpenStatusRoot checks the status directory; only a missing one is
	// created (and checked) first.
	root, err := safefs.OpenStatusRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err = safefs.EnsureStatusDir(dir); err == nil {
			root, err = safefs.OpenStatusRoot(dir)
		}
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if err := safefs.CheckStatusFileIn(root, name); err != nil {
		return nil, err
	}
	var f *os.File
	var tmp string
	for i := 0; ; i++ {
		tmp = safefs.TempName(name, os.Getpid())
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, safefs.FileMode)
		if err == nil || !errors.Is(err, fs.ErrExist) || i > 100 {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	_, err = f.Write(data)
	if err = cmp.Or(err, f.Sync(), f.Close()); err == nil {
		for i := 0; ; i++ {
			err = root.Rename(tmp, name)
			if err == nil || i == 4 {
				break
			}
			time.Sleep(time.Duration(i+1) * 5 * time.Millisecond)
		}
	}
	if err != nil {
		root.Remove(tmp)
		return nil, err
	}
	// The identity of a file on Windows is read through its path: read it
	// from the destination.
	return root.Lstat(name)
}

// removeFile removes dir/name if it is still the file written.
func removeFile(dir, name string, written fs.FileInfo, _ []byte) error {
	root, err := safefs.OpenStatusRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	_, err = safefs.RemoveOwnFile(root, name, written)
	return err
}

// removeSessionFile removes dir/name after the trust checks.
func removeSessionFile(dir, name string) error {
	root, err := safefs.OpenStatusRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer root.Close()
	if err := safefs.CheckStatusFileIn(root, name); err != nil {
		return err
	}
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// cleanTemps does nothing on Windows: a writer's liveness is not checked
// there.
func cleanTemps(dir, name string) error { return nil }
