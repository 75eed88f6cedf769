//go:build unix

package safefs

import (
	"errors"
	"io"
	"io/fs"
	"time"

	"golang.org/x/sys/unix"
)

// ErrLockTimeout is returned when a lock file stays locked for longer than
// the caller may wait (see [FlockUntil]).
var ErrLockTimeout = errors.New("timed out waiting for the session's lock")

// A Lock is a lock file held by this process.
type Lock struct {
	d    *Dir
	name string
	fd   int
}

// Fd returns the lock file's descriptor, valid until the lock is released.
func (l *Lock) Fd() int { return l.fd }

// Release closes the lock file, which releases the lock.
func (l *Lock) Release() {
	if l != nil && l.fd >= 0 {
		unix.Close(l.fd)
		l.fd = -1
	}
}

// ReleaseAndRemove removes the lock file's name, then releases it. Only a
// holder may remove a lock file: processes waiting for it notice that its
// name is gone and start again with a new one.
func (l *Lock) ReleaseAndRemove() {
	if l != nil && l.fd >= 0 {
		unix.Unlinkat(l.d.fd, l.name, 0)
		l.Release()
	}
}

// openLock opens the lock file name in the directory, creating it (mode
// 0600 whatever the umask) when create; without, a missing file is -1. It
// refuses anything but a regular file of the current account, and never
// follows a link.
func (d *Dir) openLock(name string, create bool) (int, error) {
	const flags = unix.O_RDWR | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	for {
		fd, err := unix.Openat(d.fd, name, flags, 0)
		if err == unix.ENOENT && create {
			fd, err = unix.Openat(d.fd, name, flags|unix.O_CREAT|unix.O_EXCL, uint32(FileMode))
			if err == unix.EEXIST {
				continue // created meanwhile: open that one
			}
			if err == nil {
				if err := unix.Fchmod(fd, uint32(FileMode)); err != nil {
					unix.Close(fd)
					return -1, &fs.PathError{Op: "chmod", Path: d.pathOf(name), Err: err}
				}
			}
		}
		switch err {
		case nil:
		case unix.EINTR:
			continue
		case unix.ENOENT:
			return -1, nil
		case unix.ELOOP, unix.EMLINK:
			return -1, refuse("lock file", d.pathOf(name), ErrSymlink, "")
		default:
			return -1, &fs.PathError{Op: "open", Path: d.pathOf(name), Err: err}
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return -1, &fs.PathError{Op: "fstat", Path: d.pathOf(name), Err: err}
		}
		switch {
		case st.Mode&unix.S_IFMT != unix.S_IFREG:
			unix.Close(fd)
			return -1, refuse("lock file", d.pathOf(name), ErrNotRegular, "")
		case int(st.Uid) != d.euid:
			unix.Close(fd)
			return -1, refuse("lock file", d.pathOf(name), ErrNotOwned, "owner uid %d, current uid %d", st.Uid, d.euid)
		}
		return fd, nil
	}
}

// LockFile opens the lock file name in the directory (see openLock) and
// takes it with take, until the name still leads to the file locked: a
// lock on a file that was unlinked meanwhile protects nothing. Without
// create, a missing file is a Lock that holds nothing. It returns nil, nil
// when take fails with EWOULDBLOCK: another process holds the lock. The
// descriptor is closed when take fails, except after [ErrLockTimeout]
// (see [FlockUntil]).
func (d *Dir) LockFile(name string, create bool, take func(fd int) error) (*Lock, error) {
	for {
		fd, err := d.openLock(name, create)
		if err != nil {
			return nil, err
		}
		if fd < 0 {
			return &Lock{fd: -1}, nil
		}
		if err := take(fd); err != nil {
			if !errors.Is(err, ErrLockTimeout) { // else fd is FlockUntil's
				unix.Close(fd)
			}
			if err == unix.EWOULDBLOCK {
				return nil, nil
			}
			return nil, err
		}
		// Is name still the file locked?
		var st unix.Stat_t
		named, err := d.Lstat(name)
		if err == nil && unix.Fstat(fd, &st) == nil && named.dev == uint64(st.Dev) && named.ino == uint64(st.Ino) {
			return &Lock{d: d, name: name, fd: fd}, nil
		}
		unix.Close(fd)
	}
}

// TryFlock takes an exclusive flock(2) on the lock file name in the
// directory without waiting and without creating the file; TryRecordLock
// takes a POSIX record lock (see [RecordLock]), creating the file. Both
// return nil, nil when another process holds the lock (see [Dir.LockFile]).
func (d *Dir) TryFlock(name string) (*Lock, error) { return d.tryLock(name, false, "flock", Flock) }

func (d *Dir) TryRecordLock(name string) (*Lock, error) {
	return d.tryLock(name, true, "fcntl", RecordLock)
}

func (d *Dir) tryLock(name string, create bool, op string, lock func(fd int, wait bool) error) (*Lock, error) {
	return d.LockFile(name, create, func(fd int) error {
		err := lock(fd, false)
		if err != nil && err != unix.EWOULDBLOCK {
			err = &fs.PathError{Op: op, Path: d.pathOf(name), Err: err}
		}
		return err
	})
}

// FlockUntil takes an exclusive flock on fd, waiting until deadline. On
// timeout the wait goes on in the background and fd is closed when it
// ends, so the caller must not use or close fd. Exactly one side owns fd:
// the caller once FlockUntil returned nil or another error, the waiting
// goroutine after ErrLockTimeout.
func FlockUntil(fd int, deadline time.Time) error {
	if err := Flock(fd, false); err != unix.EWOULDBLOCK {
		return err
	}
	done, abandoned := make(chan error), make(chan struct{})
	go func() {
		err := Flock(fd, true)
		select {
		case done <- err:
		case <-abandoned:
			unix.Close(fd) // too late: nobody waits for this lock any more
		}
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Until(deadline)):
		select {
		case err := <-done:
			return err // acquired (or failed) just now after all
		default:
			close(abandoned)
			return ErrLockTimeout
		}
	}
}

// RecordLock takes an exclusive POSIX record lock (fcntl) on the whole of
// fd, again when interrupted; without wait it fails with EWOULDBLOCK when
// another process holds it. Such a lock belongs to the process, not to the
// open file: closing any descriptor of the file drops it.
func RecordLock(fd int, wait bool) error {
	cmd := unix.F_SETLK
	if wait {
		cmd = unix.F_SETLKW
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	for {
		switch err := unix.FcntlFlock(uintptr(fd), cmd, &lk); err {
		case unix.EINTR:
		case unix.EAGAIN, unix.EACCES:
			return unix.EWOULDBLOCK
		default:
			return err
		}
	}
}

// RecordLockHolder returns the pid of the process that holds a POSIX
// record lock (see [RecordLock]) on the file name in the directory: 0 when
// none does or there is no such file, -1 when one does whose pid this
// process cannot see (another pid namespace). It must not be asked by a
// process that holds such a lock on the file itself: closing the
// descriptor it opens would drop that lock.
func (d *Dir) RecordLockHolder(name string) (int, error) {
	fd, err := d.openLock(name, false)
	if fd < 0 {
		return 0, err
	}
	defer unix.Close(fd)
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if err := unix.FcntlFlock(uintptr(fd), unix.F_GETLK, &lk); err != nil {
		return 0, &fs.PathError{Op: "fcntl", Path: d.pathOf(name), Err: err}
	}
	switch {
	case lk.Type == unix.F_UNLCK:
		return 0, nil
	case lk.Pid <= 0:
		return -1, nil
	}
	return int(lk.Pid), nil
}
