//go:build unix && !aix && !solaris && !illumos

package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// sharedDir returns the directory kept between runs for the programs of
// kind built from the directory root, locked (flock) until unlock is
// called, so that test binaries run side by side by go test never build
// into it at once; ok is false when there is none to be had safely.
//
// It lives under the temporary directory, named after the user and a hash
// of root (each checkout has its own), and is used only if this user owns
// it, it is a directory (not a link) and nobody else may enter it: else the
// caller builds into a fresh temporary directory, as before.
//
// A program is replaced only by a build that finds it out of date: its
// sources changed since, which the test binaries of one go test run do not
// see from one to the next.
func sharedDir(root, kind string) (dir string, unlock func(), ok bool) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", nil, false
	}
	sum := sha256.Sum256([]byte(abs))
	uid := os.Getuid()
	dir = filepath.Join(os.TempDir(), fmt.Sprintf("agentstatus-test-%d", uid), kind+"-"+hex.EncodeToString(sum[:8]))
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Mkdir(d, 0o700); err != nil && !os.IsExist(err) {
			return "", nil, false
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(d, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR ||
			int(st.Uid) != uid || st.Mode&0o077 != 0 {
			return "", nil, false
		}
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return "", nil, false
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		return "", nil, false
	}
	now := time.Now()
	os.Chtimes(lock.Name(), now, now) // in use: see pruneShared
	pruneShared(filepath.Dir(dir), now.Add(-sharedUnused))
	return dir, func() { lock.Close() }, true
}

// sharedUnused is how long a checkout's shared directory may go unused
// before a test run of another checkout removes it: a checkout that is
// gone (a worktree, a clean clone) would otherwise keep its built commands
// in the temporary directory, often memory, until reboot.
const sharedUnused = 3 * 24 * time.Hour

// pruneShared removes the shared directories under parent, this user's
// own and private, whose lock was last taken before since and that no
// test binary holds now.
func pruneShared(parent string, since time.Time) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue // not ours to judge: sharedDir makes directories only
		}
		dir := filepath.Join(parent, e.Name())
		lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|syscall.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		st, err := lock.Stat()
		if err == nil && st.ModTime().Before(since) && syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(dir)
		}
		lock.Close()
	}
}
