//go:build unix

package safefs

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentstatus/agentstatus/internal/testhook"
	"golang.org/x/sys/unix"
)

// sumSeed makes content sums comparable within this process, which is all
// they are for: a file judged (or written) and the same file when it is
// removed.
var sumSeed = maphash.MakeSeed()

func (f *FileStat) setSum(data []byte) {
	f.sum, f.summed = maphash.Bytes(sumSeed, data), true
}

// AsideSuffix ends the name a file is moved to while it is being removed
// (see [Dir.Remove]): ".<base>.<pid>.<random>.rm", where <base> is the
// file's name without its extension and <pid> the remover's process id.
const AsideSuffix = ".rm"

func asideName(name string) string {
	return "." + strings.TrimSuffix(name, filepath.Ext(name)) + "." + strconv.Itoa(os.Getpid()) +
		"." + strconv.FormatUint(rand.Uint64()>>16, 36) + AsideSuffix
}

// Remove removes name from the directory, but only if it is still the
// file described by want, as [Dir.ReadFile] returned it (or
// [WrittenStat]): a regular file with the same device, inode, size and
// (when want has it) content. It reports whether it removed anything. It
// is the one way this package removes a status file it did not just find
// under its lock. An identity alone is not enough: a file system
// hands a freed inode out again, so a newer record can carry the inode of
// the judged one.
//
// The file is first renamed aside, atomically, to a dot-name readers
// ignore; what was moved is then opened and compared with want. Only a
// match is unlinked. Anything else is put back under name without
// replacing a file written there meanwhile (renameat2 RENAME_NOREPLACE,
// or link(2) where that is missing), and dropped if one was: that one is
// newer. Between the two renames the name is briefly absent.
func (d *Dir) Remove(name string, want FileStat) (bool, error) {
	st, err := d.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !want.matches(st) {
		return false, nil // replaced by another file: nothing to do
	}
	testhook.At(testhook.RemoveJudged, name)
	aside := asideName(name)
	if err := unix.Renameat(d.fd, name, d.fd, aside); err != nil {
		if err == unix.ENOENT {
			return false, nil
		}
		return false, &os.LinkError{Op: "rename", Old: d.pathOf(name), New: d.pathOf(aside), Err: err}
	}
	testhook.At(testhook.RemoveMoved, aside)
	same, verr := asideIs(d.fd, aside, want)
	if verr == nil && same {
		if err := unix.Unlinkat(d.fd, aside, 0); err != nil && err != unix.ENOENT {
			return false, &fs.PathError{Op: "remove", Path: d.pathOf(aside), Err: err}
		}
		return true, nil
	}
	if _, err := restoreAside(d.fd, aside, name); err != nil {
		return false, fmt.Errorf("%s moved aside to %s and not put back: %w", d.pathOf(name), aside, err)
	}
	if verr != nil {
		return false, &fs.PathError{Op: "verify", Path: d.pathOf(name), Err: verr}
	}
	return false, nil
}

// matches reports whether got (described by lstat) can still be the file
// want describes.
func (want FileStat) matches(got FileStat) bool {
	return got.Mode.IsRegular() && got.dev == want.dev && got.ino == want.ino && got.Size == want.Size
}

// asideIs reads the file moved aside and compares it with want.
func asideIs(dirfd int, aside string, want FileStat) (bool, error) {
	fd, err := openat(dirfd, aside)
	if err != nil {
		return false, err
	}
	f := os.NewFile(uintptr(fd), aside)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, err
	}
	got := statOf(&st)
	if !want.matches(got) || !want.summed {
		return want.matches(got), nil
	}
	// One byte more than it said is read: a larger file is not the same.
	data, err := io.ReadAll(io.LimitReader(f, st.Size+1))
	if err != nil || int64(len(data)) > st.Size {
		return false, err
	}
	got.setSum(data)
	return got.sum == want.sum, nil
}

// restoreAside puts the file aside back as name, unless a file was
// written there meanwhile, in which case the one aside, older, is
// removed. It reports whether it put the file back.
func restoreAside(dirfd int, aside, name string) (bool, error) {
	err := renameNoReplace(dirfd, aside, name)
	if err == unix.EEXIST {
		if err := unix.Unlinkat(dirfd, aside, 0); err != nil && err != unix.ENOENT {
			return false, err
		}
		return false, nil
	}
	return err == nil, err
}

// renameNoReplace renames old to new in the directory, failing with
// EEXIST when new exists. Where the kernel or file system lacks
// renameat2's RENAME_NOREPLACE, it links new to old's file (link fails
// when new exists) and unlinks old.
func renameNoReplace(dirfd int, old, new string) error {
	err := renameat2NoReplace(dirfd, old, new)
	if err != unix.EINVAL && err != unix.ENOSYS && err != unix.EOPNOTSUPP {
		return err
	}
	switch err := linkAt(dirfd, old, new); err {
	case nil:
		return unix.Unlinkat(dirfd, old, 0)
	case unix.ENOSYS:
		// No linkat (AIX, Solaris, illumos): rename when nothing is
		// there at the time of the check. A record written between the
		// check and the rename is replaced by the older one, which its
		// publisher rewrites at its next heartbeat.
		var st unix.Stat_t
		switch err := unix.Fstatat(dirfd, new, &st, unix.AT_SYMLINK_NOFOLLOW); err {
		case nil:
			return unix.EEXIST
		case unix.ENOENT:
			return unix.Renameat(dirfd, old, dirfd, new)
		default:
			return err
		}
	default:
		return err
	}
}

// ParseAside splits the name of a file moved aside by a removal into the
// name it had and the remover's pid. ok is false for any other name.
func ParseAside(aside, ext string) (name string, pid int, ok bool) {
	rest, found := strings.CutSuffix(aside, AsideSuffix)
	if !found || !strings.HasPrefix(rest, ".") {
		return "", 0, false
	}
	parts := strings.Split(rest[1:], ".")
	if len(parts) != 3 || parts[0] == "" {
		return "", 0, false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return "", 0, false
	}
	return parts[0] + ext, pid, true
}

// Restore puts back a file that a removal moved aside to the name aside
// and left there (its remover died between the two steps): under name
// unless a file was written there meanwhile, else it is dropped. The
// caller must know that the remover is gone.
func (d *Dir) Restore(aside, name string) (bool, error) {
	if st, err := d.Lstat(aside); err != nil || !st.Mode.IsRegular() || st.UID != d.euid {
		return false, err
	}
	ok, err := restoreAside(d.fd, aside, name)
	if err != nil {
		return false, &os.LinkError{Op: "rename", Old: d.pathOf(aside), New: d.pathOf(name), Err: err}
	}
	return ok, nil
}

// RemoveTemp removes name, a temporary file its writer left behind, if it
// is a regular file of the current account.
func (d *Dir) RemoveTemp(name string) error {
	st, err := d.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil || !st.Mode.IsRegular() || st.UID != d.euid {
		return err
	}
	if err := unix.Unlinkat(d.fd, name, 0); err != nil && err != unix.ENOENT {
		return &fs.PathError{Op: "remove", Path: d.pathOf(name), Err: err}
	}
	return nil
}
