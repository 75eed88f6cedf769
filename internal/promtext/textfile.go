package promtext

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentstatus/agentstatus/perm"
)

// TextfileName is the file statusls metrics --textfile DIR writes in DIR.
const TextfileName = "agentstatus.prom"

// TextfileDir is what a refused textfile directory is called in a
// *perm.Error.
const TextfileDir = "textfile directory"

// ErrOthersWritable is the rule a textfile directory breaks when accounts
// other than its owner and group may write into it: one of them could put
// its own metrics in our file's place between two writes.
var ErrOthersWritable = errors.New("writable by others")

// WriteTextfile replaces the file at path with data atomically, for
// node_exporter's textfile collector: data goes to a temporary file in the
// same directory (a dot-file, which the collector does not read), which is
// synced and renamed over path, so that a reader sees the old file or the
// new one, never a part (on a local file system: rename is not atomic on
// every network file system). The file's mode is 0644 whatever the umask,
// since node_exporter may run as another account.
//
// The directory must exist. It is refused with a *perm.Error (What is
// [TextfileDir]) when it is a symbolic link (perm.ErrSymlink), not a
// directory (perm.ErrNotDir) or writable by others ([ErrOthersWritable]);
// a directory writable by its group is fine, as a node_exporter textfile
// directory shared with a group usually is. The directory is checked on
// the descriptor the file is written through.
func WriteTextfile(path string, data []byte) error {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	dir = filepath.Clean(dir)
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if err := checkTextfileDir(dir, fi); err != nil {
		return err
	}
	return writeIn(dir, fi, name, data)
}

func checkTextfileDir(dir string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return &perm.Error{What: TextfileDir, Path: dir, Err: perm.ErrSymlink}
	case !m.IsDir():
		return &perm.Error{What: TextfileDir, Path: dir, Err: perm.ErrNotDir}
	case othersWritable(m):
		return &perm.Error{What: TextfileDir, Path: dir, Err: ErrOthersWritable, Detail: "mode " + octal(m)}
	}
	return nil
}

func octal(m fs.FileMode) string {
	v := uint32(m.Perm())
	if m&fs.ModeSticky != 0 {
		v |= 0o1000
	}
	b := []byte{'0', '0', '0', '0'}
	for i := 3; i >= 0; i-- {
		b[i] = byte('0' + v&7)
		v >>= 3
	}
	return string(b)
}
