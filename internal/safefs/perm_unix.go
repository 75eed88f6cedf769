//go:build unix

package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// owner returns the owner of a file described by Lstat or Stat.
func owner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

func nlink(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// checkDir applies the rules shared by the config home and the status
// directory: a real directory, owned by us, without the forbidden bits.
func checkDir(what, path string, fi fs.FileInfo, forbidden fs.FileMode, sentinel error) error {
	if linkOrReparse(fi) {
		return refuse(what, path, ErrSymlink, "")
	}
	if !fi.IsDir() {
		return refuse(what, path, ErrNotDir, "")
	}
	if uid, me := owner(fi), os.Geteuid(); uid != me {
		return refuse(what, path, ErrNotOwned, "owner uid %d, current uid %d", uid, me)
	}
	if perm := fi.Mode().Perm(); perm&forbidden != 0 {
		return refuse(what, path, sentinel, "mode %04o", perm)
	}
	return nil
}

// CheckConfigHome checks an existing config home: not a symbolic link, a
// directory, owned by the current account, and not writable by group or
// others. Directories above it are trusted.
func CheckConfigHome(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return checkDir(ConfigHome, path, fi, 0o022, ErrWritable)
}

// CheckStatusDir checks an existing status directory: not a symbolic link, a
// directory, owned by the current account, and without any group or other
// permission bit.
func CheckStatusDir(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return checkDir(StatusDir, path, fi, 0o077, ErrAccessible)
}

// EnsureConfigHome creates a missing config home (mode 0700, with missing
// parents) and checks it with [CheckConfigHome]. It never changes the mode of
// a directory it did not create.
func EnsureConfigHome(path string) error {
	return ensure(path, true, CheckConfigHome)
}

// EnsureStatusDir creates a missing status directory (mode 0700 whatever the
// umask) and checks it with [CheckStatusDir]. It never changes the mode of a
// directory it did not create.
func EnsureStatusDir(path string) error {
	return ensure(path, false, CheckStatusDir)
}

// ensure checks path, and only when it is missing creates it and checks
// again: one lstat when it exists, as it does at every heartbeat.
func ensure(path string, parents bool, check func(string) error) error {
	err := check(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := mkdirPrivate(path, parents); err != nil {
		return err
	}
	return check(path)
}

// mkdirPrivate creates the missing directory path with mode 0700.
func mkdirPrivate(path string, parents bool) error {
	if parents {
		if err := os.MkdirAll(filepath.Dir(path), DirMode); err != nil {
			return err
		}
	}
	if err := os.Mkdir(path, DirMode); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil // created by someone else meanwhile: check it
		}
		return err
	}
	// Ours, just created: set the mode the umask may have narrowed.
	return os.Chmod(path, DirMode)
}

// CheckStatusFileIn checks the status file name inside root before it is
// replaced: when it exists it must be a regular file with one link, owned by
// the current account. A missing file is fine.
func CheckStatusFileIn(root *os.Root, name string) error {
	fi, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return checkFile(filepath.Join(root.Name(), name), fi)
}

func checkFile(path string, fi fs.FileInfo) error {
	switch {
	case linkOrReparse(fi):
		return refuse(StatusFile, path, ErrSymlink, "")
	case !fi.Mode().IsRegular():
		return refuse(StatusFile, path, ErrNotRegular, "%s", TypeName(fi.Mode()))
	case nlink(fi) > 1:
		return refuse(StatusFile, path, ErrLinks, "%d links", nlink(fi))
	}
	if uid, me := owner(fi), os.Geteuid(); uid != me {
		return refuse(StatusFile, path, ErrNotOwned, "owner uid %d, current uid %d", uid, me)
	}
	return nil
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
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		switch err {
		case unix.ELOOP, unix.EMLINK:
			return nil, refuse(StatusDir, path, ErrSymlink, "")
		case unix.ENOTDIR:
			if fi, lerr := os.Lstat(path); lerr == nil && linkOrReparse(fi) {
				return nil, refuse(StatusDir, path, ErrSymlink, "")
			}
			return nil, refuse(StatusDir, path, ErrNotDir, "")
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Dir{f: f, fd: fd, path: path, info: info, euid: os.Geteuid()}, nil
}

// Check applies the reader's rules to the opened directory: owned by the
// current account and not writable by group or others (files there could
// be forged). Readable by others is allowed here; [CheckStatusDir] is the
// stricter publisher rule.
func (d *Dir) Check() error {
	return checkDir(StatusDir, d.path, d.info, 0o022, ErrWritable)
}

// FileStat is what a reader learns of an opened status file.
type FileStat struct {
	Size    int64
	Mode    fs.FileMode
	UID     int
	ModTime time.Time
	dev     uint64
	ino     uint64
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
	path := func() string { return d.path + string(os.PathSeparator) + name }
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
	if cap(buf) < max+1 {
		want := int(st.Size) + 512
		if want > max+1 {
			want = max + 1
		}
		if cap(buf) < want {
			buf = make([]byte, 0, want)
		}
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
		return FileStat{}, &fs.PathError{Op: "lstat", Path: d.path + string(os.PathSeparator) + name, Err: err}
	}
	return statOf(&st), nil
}

// Remove removes name from the directory, but only if it is still the
// file described by want, as [Dir.ReadFile] returned it: the same regular
// file (device and inode) with the same size and content. A file replaced
// meanwhile, even by one that reuses the inode, is left alone or put back
// (see removeIfSame). It reports whether it removed anything.
func (d *Dir) Remove(name string, want FileStat) (bool, error) {
	return removeIfSame(d.fd, d.path, name, want)
}

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

// checkStatusDir applies the publisher's rules to a status directory
// described by Lstat.
func checkStatusDir(path string, fi fs.FileInfo) error {
	return checkDir(StatusDir, path, fi, 0o077, ErrAccessible)
}
