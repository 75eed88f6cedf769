//go:build linux

package safefs

import (
	"bytes"
	"encoding/binary"
	"io/fs"

	"golang.org/x/sys/unix"
)

// direntBufSize is the buffer getdents64 fills: a few hundred status file
// names per call.
const direntBufSize = 64 << 10

// List lists the directory: every name but "." and "..", with its type, in
// no particular order. It reads the directory with getdents64 straight
// into strings, without the per-entry allocations of [os.File.ReadDir];
// entries whose type the file system does not report are described with
// fstatat, without following links.
func (d *Dir) List() ([]DirEntry, error) {
	if _, err := unix.Seek(d.fd, 0, 0); err != nil {
		return nil, &fs.PathError{Op: "seek", Path: d.path, Err: err}
	}
	buf := make([]byte, direntBufSize)
	var out []DirEntry
	for {
		n, err := unix.Getdents(d.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "getdents", Path: d.path, Err: err}
		}
		if n <= 0 {
			break
		}
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			typ := b[18]
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			// A DT_ type is its S_IFMT type shifted down; DT_UNKNOWN
			// (and any type modeOf does not know): ask.
			e := DirEntry{Name: string(name), Type: modeOf(uint32(typ) << 12).Type()}
			if e.Type&fs.ModeIrregular != 0 {
				var st unix.Stat_t
				if err := unix.Fstatat(d.fd, e.Name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					if err == unix.ENOENT {
						continue // gone meanwhile
					}
					return nil, &fs.PathError{Op: "lstat", Path: d.pathOf(e.Name), Err: err}
				}
				e.Type = modeOf(uint32(st.Mode)).Type()
			}
			out = append(out, e)
		}
	}
	return out, nil
}
