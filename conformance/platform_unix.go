//go:build unix

package conformance

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

const unixLike = true

func isRoot() bool { return os.Geteuid() == 0 }

func lchown(p string, uid, gid int) error { return os.Lchown(p, uid, gid) }

func mkfifo(p string, mode fs.FileMode) error {
	if err := unix.Mkfifo(p, uint32(mode.Perm())); err != nil {
		return &fs.PathError{Op: "mkfifo", Path: p, Err: err}
	}
	return os.Chmod(p, mode)
}

// mksocket leaves a Unix domain socket at p. Socket addresses are short
// (about 100 bytes), so it binds in a short temporary directory and renames
// the socket into place.
func mksocket(p string, mode fs.FileMode) error {
	tmp, err := os.MkdirTemp("", "sk")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	addr := filepath.Join(tmp, "s")
	if len(p) < 100 {
		addr = p
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return err
	}
	err = unix.Bind(fd, &unix.SockaddrUnix{Name: addr})
	unix.Close(fd)
	if err != nil {
		return &fs.PathError{Op: "bind", Path: addr, Err: err}
	}
	if addr != p {
		if err := os.Rename(addr, p); err != nil {
			return skipf("cannot move a socket into place: %v", err)
		}
	}
	return os.Chmod(p, mode)
}

// mkzero makes a character device that reads like /dev/zero: endless bytes.
func mkzero(p string, mode fs.FileMode) error {
	var st unix.Stat_t
	if err := unix.Stat("/dev/zero", &st); err != nil {
		return skipf("no /dev/zero to copy: %v", err)
	}
	if err := unix.Mknod(p, unix.S_IFCHR|uint32(mode.Perm()), int(st.Rdev)); err != nil {
		return skipf("cannot create a device node here (mknod: %v)", err)
	}
	return os.Chmod(p, mode)
}
