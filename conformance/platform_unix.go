//go:build unix

package conformance

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

const unixLike = true

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

func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group of a started command.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return os.ErrProcessDone
	}
	return err
}

func signalOf(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}

// The umask is a property of the whole process: a child inherits the one
// in force when it is forked. Every command the harness starts goes through
// startCommand, which holds umaskMu, so a check that sets a umask for its
// child never leaks it into another check's child. The harness's own files
// are created with explicit modes and do not depend on it.
var umaskMu sync.Mutex

// startCommand starts cmd with the given umask (or the current one when
// umask is negative).
func startCommand(cmd *exec.Cmd, umask int) error {
	umaskMu.Lock()
	defer umaskMu.Unlock()
	if umask >= 0 {
		old := syscall.Umask(umask)
		defer syscall.Umask(old)
	}
	return cmd.Start()
}
