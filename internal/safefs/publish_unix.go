//go:build unix

package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/agentstatus/agentstatus/internal/testhook"
	"golang.org/x/sys/unix"
)

// PubDir is a status directory opened for publishing. The config home was
// opened without following a link and checked on its descriptor (SPEC.md
// P2); the status directory was opened through that descriptor, again
// without following a link, and checked on its own descriptor (P4). Every
// file operation goes through the status directory's descriptor: no path
// is looked up twice, so a directory renamed or replaced by a link after
// the check cannot redirect a write.
type PubDir struct {
	f    *os.File
	fd   int
	path string // the status directory, for messages
}

// OpenPublishDir opens the status directory dir, whose parent is the
// config home, for a publisher. With create, a missing config home (and
// its missing parents, which are trusted) and a missing status directory
// are created, mode 0700 whatever the umask (P3); without, a missing one
// is fs.ErrNotExist.
func OpenPublishDir(dir string, create bool) (*PubDir, error) {
	dir = filepath.Clean(dir)
	home, base := filepath.Dir(dir), filepath.Base(dir)
	if create {
		if err := os.MkdirAll(filepath.Dir(home), DirMode); err != nil {
			return nil, err
		}
	}
	hfd, err := openDirAt(unix.AT_FDCWD, home, ConfigHome, home, create)
	if err != nil {
		return nil, err
	}
	hf := os.NewFile(uintptr(hfd), home)
	defer hf.Close()
	fi, err := hf.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkDir(ConfigHome, home, fi, 0o022, ErrWritable); err != nil {
		return nil, err
	}
	testhook.At(testhook.PublishHomeOpened, home)
	dfd, err := openDirAt(hfd, base, StatusDir, dir, create)
	if err != nil {
		return nil, err
	}
	df := os.NewFile(uintptr(dfd), dir)
	fi, err = df.Stat()
	if err != nil {
		df.Close()
		return nil, err
	}
	if err := checkDir(StatusDir, dir, fi, 0o077, ErrAccessible); err != nil {
		df.Close()
		return nil, err
	}
	return &PubDir{f: df, fd: dfd, path: dir}, nil
}

// openDirAt opens name relative to dirfd as a directory without following
// a link; with create, a missing one is created first (mode 0700). A
// directory this call created gets mode 0700 on its descriptor, whatever
// the umask; an existing one is never changed.
func openDirAt(dirfd int, name, what, path string, create bool) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	created := false
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err == unix.EINTR {
			continue
		}
		if err == unix.ENOENT && create && !created {
			if err := unix.Mkdirat(dirfd, name, uint32(DirMode)); err != nil && err != unix.EEXIST {
				return -1, &fs.PathError{Op: "mkdir", Path: path, Err: err}
			} else if err == nil {
				created = true
			}
			continue
		}
		if err != nil {
			switch err {
			case unix.ELOOP, unix.EMLINK:
				return -1, refuse(what, path, ErrSymlink, "")
			case unix.ENOTDIR:
				var st unix.Stat_t
				if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
					return -1, refuse(what, path, ErrSymlink, "")
				}
				return -1, refuse(what, path, ErrNotDir, "")
			}
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		if created {
			// Ours, just created: set the mode the umask may have
			// narrowed. (Checked on this descriptor right after.)
			var st unix.Stat_t
			if unix.Fstat(fd, &st) == nil && int(st.Uid) == os.Geteuid() {
				unix.Fchmod(fd, uint32(DirMode))
			}
		}
		return fd, nil
	}
}

// Path returns the status directory's path, as given.
func (d *PubDir) Path() string { return d.path }

// Close closes the directory.
func (d *PubDir) Close() error { return d.f.Close() }

// Fd returns the directory's descriptor, valid until Close, for
// operations relative to it (locks, task lists).
func (d *PubDir) Fd() int { return d.fd }

func (d *PubDir) pathOf(name string) string { return d.path + string(os.PathSeparator) + name }

// CheckFile checks the status file name before it is replaced (SPEC.md
// P5): when it exists it must be a regular file with one link, owned by
// the current account. A missing file is fine.
func (d *PubDir) CheckFile(name string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if err == unix.ENOENT {
			return nil
		}
		return &fs.PathError{Op: "lstat", Path: d.pathOf(name), Err: err}
	}
	path := d.pathOf(name)
	fst := statOf(&st)
	switch {
	case fst.Mode&fs.ModeSymlink != 0:
		return refuse(StatusFile, path, ErrSymlink, "")
	case !fst.Mode.IsRegular():
		return refuse(StatusFile, path, ErrNotRegular, "%s", TypeName(fst.Mode))
	case st.Nlink > 1:
		return refuse(StatusFile, path, ErrLinks, "%d links", st.Nlink)
	case fst.UID != os.Geteuid():
		return refuse(StatusFile, path, ErrNotOwned, "owner uid %d, current uid %d", fst.UID, os.Geteuid())
	}
	return nil
}

// Publish writes a status file the way every publisher of this module
// does: [PubDir.CheckFile] of name, then [PubDir.WriteFile] through a
// temporary file named by [TempName] for this process.
func (d *PubDir) Publish(name string, data []byte) (fs.FileInfo, error) {
	if err := d.CheckFile(name); err != nil {
		return nil, err
	}
	return d.WriteFile(name, TempName(name, os.Getpid()), data)
}

// WriteFile replaces name atomically with data (SPEC.md P6, P8): it
// creates the temporary file tmp exclusively in the directory, mode 0600
// whatever the umask, writes and syncs it, and renames it over name, all
// relative to the directory's descriptor. On failure tmp is removed. It
// returns the identity of the file written; [WrittenStat] of it and data
// is what [PubDir.RemoveOwn] needs to remove only this file later.
func (d *PubDir) WriteFile(name, tmp string, data []byte) (fs.FileInfo, error) {
	fd, err := unix.Openat(d.fd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(FileMode))
	if err != nil {
		return nil, &fs.PathError{Op: "create", Path: d.pathOf(tmp), Err: err}
	}
	f := os.NewFile(uintptr(fd), d.pathOf(tmp))
	ok := false
	defer func() {
		if !ok {
			f.Close()
			unix.Unlinkat(d.fd, tmp, 0)
		}
	}()
	if err := unix.Fchmod(fd, uint32(FileMode)); err != nil {
		return nil, &fs.PathError{Op: "chmod", Path: d.pathOf(tmp), Err: err}
	}
	testhook.At(testhook.PublishWrite, tmp)
	if _, err := f.Write(data); err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if err := unix.Renameat(d.fd, tmp, d.fd, name); err != nil {
		unix.Unlinkat(d.fd, tmp, 0)
		ok = true // closed already
		return nil, &os.LinkError{Op: "rename", Old: d.pathOf(tmp), New: d.pathOf(name), Err: err}
	}
	ok = true
	return fi, nil
}

// RemoveOwn removes name if it is still the file written as want (see
// [PubDir.WriteFile]): same identity and same content (SPEC.md P11). It
// reports whether it removed it.
func (d *PubDir) RemoveOwn(name string, want FileStat) (bool, error) {
	return removeIfSame(d.fd, d.path, name, want)
}

// Remove removes name, a regular file or nothing (SPEC.md H-rules: the
// caller holds the session's lock). A missing file is not an error.
func (d *PubDir) Remove(name string) error {
	if err := d.CheckFile(name); err != nil {
		return err
	}
	if err := unix.Unlinkat(d.fd, name, 0); err != nil && err != unix.ENOENT {
		return &fs.PathError{Op: "remove", Path: d.pathOf(name), Err: err}
	}
	return nil
}

// Names lists the names in the directory.
func (d *PubDir) Names() ([]string, error) {
	dd := Dir{f: d.f, fd: d.fd, path: d.path}
	l, err := dd.List()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(l))
	for i, e := range l {
		names[i] = e.Name
	}
	return names, nil
}

// Lstat describes name in the directory without following a link.
func (d *PubDir) Lstat(name string) (FileStat, error) {
	dd := Dir{f: d.f, fd: d.fd, path: d.path}
	return dd.Lstat(name)
}

// RemoveTemp removes name, a leftover temporary file, if it is a regular
// file of the current account.
func (d *PubDir) RemoveTemp(name string) error {
	return removeTemp(d.fd, d.path, name)
}

func removeTemp(dirfd int, dir, name string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if err == unix.ENOENT {
			return nil
		}
		return &fs.PathError{Op: "lstat", Path: dir + string(os.PathSeparator) + name, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() {
		return nil
	}
	if err := unix.Unlinkat(dirfd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &fs.PathError{Op: "remove", Path: dir + string(os.PathSeparator) + name, Err: err}
	}
	return nil
}

// WrittenStat describes a file just written, as [PubDir.WriteFile] or
// os.File.Stat described it, with the content written: what
// [PubDir.RemoveOwn] compares before it removes.
func WrittenStat(fi fs.FileInfo, data []byte) FileStat {
	var fst FileStat
	if st, ok := fi.Sys().(*unix.Stat_t); ok {
		fst = statOf(st)
	} else if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		fst = FileStat{Size: st.Size, Mode: fi.Mode(), UID: int(st.Uid), dev: uint64(st.Dev), ino: uint64(st.Ino)}
	}
	fst.setSum(data)
	return fst
}
