//go:build unix

package safefs

import (
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sysStat returns the owner, link count and permission bits of a file
// described by Lstat or Stat.
func sysStat(fi fs.FileInfo) (uid int, nlink uint64, perm fs.FileMode) {
	uid, nlink = -1, 1
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		uid, nlink = int(st.Uid), uint64(st.Nlink)
	}
	return uid, nlink, fi.Mode().Perm()
}

// Dir is a status directory opened for reading. Files are opened relative to
// its descriptor, so a directory renamed or replaced meanwhile cannot
// redirect them.
type Dir struct {
	f    *os.File
	fd   int
	path string
	info fs.FileInfo
	euid int // the current account, asked once
}

// OpenDir opens a status directory for reading without following a symbolic
// link. It does not check ownership or mode: see [Dir.Check].
func OpenDir(path string) (*Dir, error) {
	return openDir(unix.AT_FDCWD, path, StatusDir, path, false)
}

// openDir opens name relative to dirfd as a directory without following
// a link; with create, a missing one is created first (mode 0700). A
// directory this call created gets mode 0700 on its descriptor, whatever
// the umask; an existing one is never changed. what and path name the
// directory in errors.
func openDir(dirfd int, name, what, path string, create bool) (*Dir, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	created := false
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err == unix.EINTR {
			continue
		}
		if err == unix.ENOENT && create && !created {
			if err := unix.Mkdirat(dirfd, name, uint32(DirMode)); err != nil && err != unix.EEXIST {
				return nil, &fs.PathError{Op: "mkdir", Path: path, Err: err}
			} else if err == nil {
				created = true
			}
			continue
		}
		switch err {
		case nil:
		case unix.ELOOP, unix.EMLINK:
			return nil, refuse(what, path, ErrSymlink, "")
		case unix.ENOTDIR:
			var st unix.Stat_t
			if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				return nil, refuse(what, path, ErrSymlink, "")
			}
			return nil, refuse(what, path, ErrNotDir, "")
		default:
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		if created {
			// Ours, just created: set the mode the umask may have
			// narrowed. (Checked on this descriptor right after.)
			var st unix.Stat_t
			if unix.Fstat(fd, &st) == nil && int(st.Uid) == os.Geteuid() {
				unix.Fchmod(fd, uint32(DirMode))
			}
		}
		f := os.NewFile(uintptr(fd), path)
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		return &Dir{f: f, fd: fd, path: path, info: info, euid: os.Geteuid()}, nil
	}
}

// FileStat is what a reader learns of an opened status file.
type FileStat struct {
	Size    int64
	Mode    fs.FileMode
	UID     int
	ModTime time.Time
	dev     uint64
	ino     uint64
	nlink   uint64
	// A sum of the content read or written, when known: removals compare
	// it (see [Dir.Remove]).
	sum    uint64
	summed bool
}

// ReadFile opens name inside the directory with O_NOFOLLOW and O_NONBLOCK,
// checks with fstat that it is a regular file owned by the current account
// and no larger than max bytes, and reads it into buf (grown if needed). It
// never follows a symbolic link (ErrSymlink), never blocks on a FIFO or
// device (ErrNotRegular), and never reads more than max+1 bytes (ErrTooLarge).
// A file that vanished is reported as fs.ErrNotExist.
func (d *Dir) ReadFile(name string, buf []byte, max int) ([]byte, FileStat, error) {
	// The path is only for errors: made when one is returned.
	path := func() string { return d.pathOf(name) }
	var fst FileStat
	fd, err := openat(d.fd, name)
	if err != nil {
		switch err {
		case unix.ELOOP, unix.EMLINK:
			return buf[:0], fst, refuse(StatusFile, path(), ErrSymlink, "")
		case unix.ENXIO, unix.EOPNOTSUPP: // a socket
			return buf[:0], fst, refuse(StatusFile, path(), ErrNotRegular, "socket")
		}
		return buf[:0], fst, &fs.PathError{Op: "open", Path: path(), Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return buf[:0], fst, &fs.PathError{Op: "fstat", Path: path(), Err: err}
	}
	fst = statOf(&st)
	if !fst.Mode.IsRegular() {
		return buf[:0], fst, refuse(StatusFile, path(), ErrNotRegular, "%s", TypeName(fst.Mode))
	}
	if me := d.euid; fst.UID != me {
		return buf[:0], fst, refuse(StatusFile, path(), ErrNotOwned, "owner uid %d, current uid %d", fst.UID, me)
	}
	if st.Size > int64(max) {
		return buf[:0], fst, refuse(StatusFile, path(), ErrTooLarge, "%d bytes, limit %d", st.Size, max)
	}
	// The size may change under us: read at most max+1 bytes.
	if want := min(int(st.Size)+512, max+1); cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	buf = buf[:0]
	for {
		// A read that stops short of the space offered, at the size
		// fstat gave, is at the end of the file: skip the read that
		// would return 0. (A file that grows meanwhile is read as it was
		// at fstat; a file that shrinks takes the usual second read.)
		if len(buf) > 0 && len(buf) == int(st.Size) && len(buf) < cap(buf) {
			break
		}
		if len(buf) == cap(buf) {
			if len(buf) > max {
				break
			}
			grown := make([]byte, len(buf), min(2*cap(buf)+512, max+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if n > 0 {
			buf = buf[:len(buf)+n]
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return buf[:0], fst, &fs.PathError{Op: "read", Path: path(), Err: err}
		}
		if n == 0 {
			break
		}
	}
	if len(buf) > max {
		return buf[:0], fst, refuse(StatusFile, path(), ErrTooLarge, "more than %d bytes", max)
	}
	fst.setSum(buf)
	return buf, fst, nil
}

func statOf(st *unix.Stat_t) FileStat {
	return FileStat{
		Size:    st.Size,
		Mode:    modeOf(uint32(st.Mode)),
		UID:     int(st.Uid),
		ModTime: time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)),
		dev:     uint64(st.Dev),
		ino:     uint64(st.Ino),
		nlink:   uint64(st.Nlink),
	}
}

func openat(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// Lstat describes name inside the directory without following a link.
func (d *Dir) Lstat(name string) (FileStat, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return FileStat{}, &fs.PathError{Op: "lstat", Path: d.pathOf(name), Err: err}
	}
	return statOf(&st), nil
}

func (d *Dir) pathOf(name string) string { return d.path + string(os.PathSeparator) + name }

// Fd returns the directory's descriptor, valid until Close, for
// operations relative to it (locks, task lists).
func (d *Dir) Fd() int { return d.fd }

func modeOf(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFREG:
	default:
		mode |= fs.ModeIrregular
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
