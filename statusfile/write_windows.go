//go:build windows

package statusfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/agentstatus/agentstatus/perm"
)

// writeFile is the Windows write path: renameio's atomic API does not exist
// there. It writes a dot-prefixed temporary file in the status directory
// (created exclusively), syncs it, and renames it over the old file with
// os.Rename (MoveFileEx with MOVEFILE_REPLACE_EXISTING). A reader that holds
// the old file open without FILE_SHARE_DELETE makes the rename fail with
// "access denied": it is retried a few times, then reported, and the next
// heartbeat tries again. Readers never see a partial file.
func writeFile(home, dir, name string, data []byte) (fs.FileInfo, error) {
	root, err := openForWrite(home, dir, name)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var f *os.File
	var tmp string
	for i := 0; ; i++ {
		tmp = "." + name + strconv.FormatUint(rand.Uint64(), 10)
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm.FileMode)
		if err == nil || !errors.Is(err, fs.ErrExist) || i > 100 {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	for i := 0; ; i++ {
		err = root.Rename(tmp, name)
		if err == nil || i == 4 {
			break
		}
		time.Sleep(time.Duration(i+1) * 5 * time.Millisecond)
	}
	if err != nil {
		return nil, err
	}
	ok = true
	// The identity of a file on Windows is read through its path: read it
	// from the destination.
	return root.Lstat(name)
}
