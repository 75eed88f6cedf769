//go:build unix && !aix && !solaris && !illumos

package testbin

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A checkout's shared directory that no run has used for sharedUnused
// goes; one used lately, one a test binary holds now, and anything that
// is not such a directory stay.
func TestPruneShared(t *testing.T) {
	parent := t.TempDir()
	now := time.Now()
	old := now.Add(-sharedUnused - time.Hour)
	shared := func(name string, used time.Time) string {
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		lock := filepath.Join(dir, ".lock")
		if err := os.WriteFile(lock, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(lock, used, used); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	gone := shared("bin-gone", old)
	if err := os.WriteFile(filepath.Join(gone, "statusls"), []byte("x"), 0o700); err != nil {
		t.Fatal(err)
	}
	recent := shared("bin-recent", now.Add(-time.Hour))
	held := shared("bin-held", old)
	f, err := os.Open(filepath.Join(held, ".lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	noLock := filepath.Join(parent, "other")
	if err := os.Mkdir(noLock, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(parent, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, old, old); err != nil {
		t.Fatal(err)
	}

	pruneShared(parent, now.Add(-sharedUnused))

	for _, c := range []struct {
		path string
		kept bool
	}{{gone, false}, {recent, true}, {held, true}, {noLock, true}, {file, true}} {
		_, err := os.Lstat(c.path)
		if kept := err == nil; kept != c.kept {
			t.Errorf("%s: kept %v, want %v (%v)", filepath.Base(c.path), kept, c.kept, err)
		}
	}
}
