//go:build unix

package conformance

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

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
	if err := mknod(unix.Mknod, p, unix.S_IFCHR|uint32(mode.Perm()), uint64(st.Rdev)); err != nil {
		return skipf("cannot create a device node here (mknod: %v)", err)
	}
	return os.Chmod(p, mode)
}

// mknod calls unix.Mknod, whose device argument is an int on most systems
// but a uint64 on FreeBSD (where device numbers are 64 bits wide): the type
// parameter takes whichever the platform's Mknod has, so that one file
// builds everywhere.
func mknod[Dev int | uint64](fn func(path string, mode uint32, dev Dev) error, path string, mode uint32, dev uint64) error {
	return fn(path, mode, Dev(dev))
}

func signalProcess(p *os.Process, name string) error {
	switch name {
	case "TERM":
		return p.Signal(unix.SIGTERM)
	case "INT":
		return p.Signal(unix.SIGINT)
	}
	return os.ErrInvalid
}

// processAlive reports whether a process with this pid exists (it may
// belong to another account).
func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}

func fileOwner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

func fileLinks(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
