//go:build unix

package promtext_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentstatus/agentstatus/internal/promtext"
	"github.com/agentstatus/agentstatus/perm"
)

// TestWriteTextfileMode: 0644 under every umask, also over a file that
// had another mode, with no temporary file left behind.
func TestWriteTextfileMode(t *testing.T) {
	for _, mask := range []int{0o000, 0o022, 0o077} {
		old := syscall.Umask(mask)
		dir := t.TempDir()
		os.Chmod(dir, 0o755)
		path := filepath.Join(dir, promtext.TextfileName)
		err := promtext.WriteTextfile(path, []byte("a 1\n"))
		if err == nil {
			os.Chmod(path, 0o600)
			err = promtext.WriteTextfile(path, []byte("a 2\n"))
		}
		syscall.Umask(old)
		if err != nil {
			t.Fatalf("umask %04o: %v", mask, err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != 0o644 {
			t.Errorf("umask %04o: mode %04o, want 0644", mask, got)
		}
		if data, _ := os.ReadFile(path); string(data) != "a 2\n" {
			t.Errorf("umask %04o: content %q", mask, data)
		}
		names, _ := os.ReadDir(dir)
		if len(names) != 1 {
			t.Errorf("umask %04o: the directory holds %v, want only %s", mask, names, promtext.TextfileName)
		}
	}
}

// TestWriteTextfileRefuses: a symbolic link, a file and a directory
// writable by others are refused with the rule named; a group-writable
// directory is fine. A refused write leaves the file that was there.
func TestWriteTextfileRefuses(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	os.Mkdir(real, 0o755)
	os.Chmod(real, 0o755)
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o644)
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777|os.ModeSticky)
	os.WriteFile(filepath.Join(open, promtext.TextfileName), []byte("old 1\n"), 0o644)
	group := filepath.Join(base, "group")
	os.Mkdir(group, 0o775)
	os.Chmod(group, 0o775)

	for _, c := range []struct {
		dir  string
		rule error
		msg  string
	}{
		{link, perm.ErrSymlink, "textfile directory " + link + ": symbolic link refused"},
		{file, perm.ErrNotDir, "textfile directory " + file + ": not a directory"},
		{open, promtext.ErrOthersWritable, "textfile directory " + open + ": writable by others (mode 1777)"},
		{group, nil, ""},
	} {
		err := promtext.WriteTextfile(filepath.Join(c.dir, promtext.TextfileName), []byte("a 1\n"))
		if c.rule == nil {
			if err != nil {
				t.Errorf("%s: %v", c.dir, err)
			}
			continue
		}
		var pe *perm.Error
		if !errors.Is(err, c.rule) || !errors.As(err, &pe) || err.Error() != c.msg {
			t.Errorf("%s: got %v, want %q", c.dir, err, c.msg)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(open, promtext.TextfileName)); !strings.HasPrefix(string(data), "old") {
		t.Errorf("a refused write changed the file: %q", data)
	}
	if _, err := os.Stat(filepath.Join(real, promtext.TextfileName)); err == nil {
		t.Errorf("the write went through the symbolic link")
	}
}
