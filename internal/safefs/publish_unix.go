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
// the check cannot redirect a write. Its [Dir] methods (List, Lstat,
// RemoveTemp, ...) work as a reader's.
type PubDir struct{ *Dir }

// OpenPublishDir opens the status directory dir, whose parent is the
// config home, for a publisher. With create, a missing config home (and
// its missing parents, which are trusted) and a missing status directory
// are created, mode 0700 whatever the umask (P3); without, a missing one
// is fs.ErrNotExist.
func OpenPublishDir(dir string, create bool) (*PubDir, error) {
	dir = filepath.Clean(dir)
	home := filepath.Dir(dir)
	if create {
		if err := os.MkdirAll(filepath.Dir(home), DirMode); err != nil {
			return nil, err
		}
	}
	h, err := openDir(unix.AT_FDCWD, home, ConfigHome, home, create)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	if err := checkDir(ConfigHome, home, h.info, 0o022, ErrWritable); err != nil {
		return nil, err
	}
	testhook.At(testhook.PublishHomeOpened, home)
	d, err := openDir(h.fd, filepath.Base(dir), StatusDir, dir, create)
	if err != nil {
		return nil, err
	}
	if err := checkStatusDir(dir, d.info); err != nil {
		d.Close()
		return nil, err
	}
	return &PubDir{d}, nil
}

// CheckFile checks the status file name before it is replaced (SPEC.md
// P5): when it exists it must be a regular file with one link, owned by
// the current account. A missing file is fine.
func (d *PubDir) CheckFile(name string) error {
	st, err := d.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return checkFile(d.pathOf(name), st.Mode, st.UID, st.nlink)
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
// is what [Dir.Remove] needs to remove only this file later.
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
		return nil, &os.LinkError{Op: "rename", Old: d.pathOf(tmp), New: d.pathOf(name), Err: err}
	}
	ok = true
	return fi, nil
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

// WrittenStat describes a file just written, as [PubDir.WriteFile] or
// os.File.Stat described it, with the content written: what
// [Dir.Remove] compares before it removes.
func WrittenStat(fi fs.FileInfo, data []byte) FileStat {
	var fst FileStat
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		fst = FileStat{Size: st.Size, Mode: fi.Mode(), UID: int(st.Uid), dev: uint64(st.Dev), ino: uint64(st.Ino)}
	}
	fst.setSum(data)
	return fst
}

// RemoveStaleTemps removes, from an opened status directory, the temporary
// files left by writers of the status file name (see [TempName]) that are
// gone: no process has the writer's pid. Those of a writer that lives are
// left alone, and so is every other name. An empty name removes those of
// every session.
func RemoveStaleTemps(d *PubDir, name string) error {
	entries, err := d.List()
	if err != nil {
		return err
	}
	var first error
	for _, e := range entries {
		n := e.Name
		of, pid, ok := ParseTempName(n)
		if !ok || (name != "" && of != name) || !WriterGone(pid) {
			continue
		}
		if err := d.RemoveTemp(n); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// WriterGone reports whether no process has pid on this host (kill(pid, 0)
// fails with ESRCH). The current process is never gone.
func WriterGone(pid int) bool {
	if pid <= 0 || pid == os.Getpid() {
		return false
	}
	return unix.Kill(pid, 0) == unix.ESRCH
}
