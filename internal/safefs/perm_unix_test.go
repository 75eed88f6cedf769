//go:build unix

package safefs

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// withUmask runs f under each umask SPEC.md's tests name.
func withUmask(t *testing.T, f func(t *testing.T)) {
	for _, mask := range []int{0o000, 0o022, 0o077} {
		t.Run(fs.FileMode(mask).String(), func(t *testing.T) {
			old := syscall.Umask(mask)
			defer syscall.Umask(old)
			f(t)
		})
	}
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestEnsureCreatesPrivateDirs(t *testing.T) {
	withUmask(t, func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "a", "home")
		dir := filepath.Join(home, "agent-status")
		if err := EnsureConfigHome(home); err != nil {
			t.Fatal(err)
		}
		if err := EnsureStatusDir(dir); err != nil {
			t.Fatal(err)
		}
		if m := mode(t, home); m != 0o700 {
			t.Errorf("config home mode %04o, want 0700", m)
		}
		if m := mode(t, dir); m != 0o700 {
			t.Errorf("status dir mode %04o, want 0700", m)
		}
	})
}

func TestRefusals(t *testing.T) {
	// Each setup makes, below base, what the config home base/home and
	// its status directory base/home/agent-status are to be.
	type setup func(t *testing.T, base string)
	mk := func(t *testing.T, p string, m fs.FileMode) {
		t.Helper()
		if err := os.Mkdir(p, m); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	configHomeMode := func(m fs.FileMode) setup {
		return func(t *testing.T, base string) { mk(t, filepath.Join(base, "home"), m) }
	}
	statusDirMode := func(m fs.FileMode) setup {
		return func(t *testing.T, base string) {
			mk(t, filepath.Join(base, "home"), 0o700)
			mk(t, filepath.Join(base, "home", "agent-status"), m)
		}
	}
	tests := []struct {
		name  string
		setup setup
		want  error
		what  string
	}{
		{"config home symlink", func(t *testing.T, base string) {
			mk(t, filepath.Join(base, "real"), 0o700)
			os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "home"))
		}, ErrSymlink, ConfigHome},
		{"config home 0775", configHomeMode(0o775), ErrWritable, ConfigHome},
		{"config home 0777", configHomeMode(0o777), ErrWritable, ConfigHome},
		{"config home a file", func(t *testing.T, base string) {
			os.WriteFile(filepath.Join(base, "home"), nil, 0o600)
		}, ErrNotDir, ConfigHome},
		{"status dir symlink", func(t *testing.T, base string) {
			mk(t, filepath.Join(base, "home"), 0o700)
			mk(t, filepath.Join(base, "elsewhere"), 0o700)
			os.Symlink(filepath.Join(base, "elsewhere"), filepath.Join(base, "home", "agent-status"))
		}, ErrSymlink, StatusDir},
		{"status dir 0755", statusDirMode(0o755), ErrAccessible, StatusDir},
		{"status dir 0750", statusDirMode(0o750), ErrAccessible, StatusDir},
		{"status dir 0701", statusDirMode(0o701), ErrAccessible, StatusDir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			tt.setup(t, base)
			home := filepath.Join(base, "home")
			dir := filepath.Join(home, "agent-status")
			err := EnsureConfigHome(home)
			if err == nil {
				err = EnsureStatusDir(dir)
			}
			var pe *Error
			if !errors.Is(err, tt.want) || !errors.As(err, &pe) || pe.What != tt.what {
				t.Fatalf("got %v, want %v for the %s", err, tt.want, tt.what)
			}
			if !strings.HasPrefix(err.Error(), tt.what+" ") || !strings.Contains(err.Error(), tt.want.Error()) {
				t.Errorf("message %q does not say what was refused", err)
			}
		})
	}
	// Refusing never changes what was refused.
	t.Run("status dir 0755 left at 0755", func(t *testing.T) {
		base := t.TempDir()
		dir := filepath.Join(base, "agent-status")
		os.Mkdir(dir, 0o755)
		os.Chmod(dir, 0o755)
		if err := EnsureStatusDir(dir); !errors.Is(err, ErrAccessible) {
			t.Fatal(err)
		}
		if m := mode(t, dir); m != 0o755 {
			t.Errorf("mode changed to %04o", m)
		}
	})
}

// otherUID is an account that is not the current one, for chown tests.
const otherUID = 65534

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown a file to another account")
	}
}

func TestNotOwned(t *testing.T) {
	requireRoot(t)
	base := t.TempDir()
	home := filepath.Join(base, "home")
	os.Mkdir(home, 0o700)
	if err := os.Chown(home, otherUID, otherUID); err != nil {
		t.Fatal(err)
	}
	if err := EnsureConfigHome(home); !errors.Is(err, ErrNotOwned) {
		t.Errorf("config home owned by uid %d: %v", otherUID, err)
	}
	dir := filepath.Join(base, "dir")
	os.Mkdir(dir, 0o700)
	os.Chown(dir, otherUID, otherUID)
	if err := EnsureStatusDir(dir); !errors.Is(err, ErrNotOwned) {
		t.Errorf("status dir owned by uid %d: %v", otherUID, err)
	}
	own := filepath.Join(base, "own")
	os.Mkdir(own, 0o700)
	os.WriteFile(filepath.Join(own, "f.json"), []byte("{}"), 0o600)
	os.Chown(filepath.Join(own, "f.json"), otherUID, otherUID)
	root, err := OpenStatusRoot(own)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := CheckStatusFileIn(root, "f.json"); !errors.Is(err, ErrNotOwned) {
		t.Errorf("status file owned by uid %d: %v", otherUID, err)
	}
	d, err := OpenDir(own)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, _, err := d.ReadFile("f.json", nil, 1024); !errors.Is(err, ErrNotOwned) {
		t.Errorf("reader opened a file owned by uid %d: %v", otherUID, err)
	}
}

func TestCheckStatusFileIn(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "ok"), nil, 0o600)
	os.WriteFile(filepath.Join(dir, "victim"), []byte("v"), 0o600)
	os.Symlink(filepath.Join(dir, "victim"), filepath.Join(dir, "link"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o700)
	os.WriteFile(filepath.Join(dir, "two"), nil, 0o600)
	os.Link(filepath.Join(dir, "two"), filepath.Join(dir, "two-b"))
	root, err := OpenStatusRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for name, want := range map[string]error{
		"ok": nil, "missing": nil, "link": ErrSymlink, "sub": ErrNotRegular, "two": ErrLinks,
	} {
		if err := CheckStatusFileIn(root, name); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("%s: got %v, want %v", name, err, want)
		}
	}
}

func TestReadFile(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "d")
	os.Mkdir(dir, 0o700)
	outside := filepath.Join(base, "outside.json")
	os.WriteFile(outside, []byte(`{"secret":1}`), 0o600)
	os.WriteFile(filepath.Join(dir, "ok"), []byte("hello"), 0o600)
	os.WriteFile(filepath.Join(dir, "big"), make([]byte, 2000), 0o600)
	os.WriteFile(filepath.Join(dir, "exact"), make([]byte, 1000), 0o600)
	os.Symlink(outside, filepath.Join(dir, "link"))
	os.Symlink("ok", filepath.Join(dir, "inner-link")) // stays inside: still refused
	os.Mkdir(filepath.Join(dir, "sub"), 0o700)
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
	} else {
		t.Logf("no socket: %v", err)
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tests := []struct {
		name string
		want error
		data string
	}{
		{"ok", nil, "hello"},
		{"big", ErrTooLarge, ""},
		{"exact", nil, string(make([]byte, 1000))},
		{"link", ErrSymlink, ""},
		{"inner-link", ErrSymlink, ""},
		{"sub", ErrNotRegular, ""},
		{"fifo", ErrNotRegular, ""},
		{"sock", ErrNotRegular, ""},
		{"missing", fs.ErrNotExist, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var data []byte
			var err error
			go func() {
				data, _, err = d.ReadFile(tt.name, nil, 1000)
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ReadFile hung")
			}
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("ReadFile(%s) error %v, want %v", tt.name, err, tt.want)
			}
			if string(data) != tt.data {
				t.Errorf("ReadFile(%s) = %q", tt.name, data)
			}
		})
	}
}

func TestOpenDirRefusesSymlink(t *testing.T) {
	base := t.TempDir()
	os.Mkdir(filepath.Join(base, "real"), 0o700)
	os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link"))
	if _, err := OpenDir(filepath.Join(base, "link")); !errors.Is(err, ErrSymlink) {
		t.Errorf("OpenDir(symlink) = %v", err)
	}
	os.WriteFile(filepath.Join(base, "file"), nil, 0o600)
	if _, err := OpenDir(filepath.Join(base, "file")); !errors.Is(err, ErrNotDir) {
		t.Errorf("OpenDir(file) = %v", err)
	}
	if _, err := OpenDir(filepath.Join(base, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenDir(missing) = %v", err)
	}
	os.Chmod(filepath.Join(base, "real"), 0o777)
	d, err := OpenDir(filepath.Join(base, "real"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Check(); !errors.Is(err, ErrWritable) {
		t.Errorf("Check on a 0777 directory = %v", err)
	}
}

func TestRemoveOnlySameFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("a"), 0o600)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := d.Lstat("f")
	if err != nil {
		t.Fatal(err)
	}
	// Replaced by another file: left alone.
	os.WriteFile(filepath.Join(dir, "g"), []byte("b"), 0o600)
	os.Rename(filepath.Join(dir, "g"), filepath.Join(dir, "f"))
	if removed, err := d.Remove("f", st); removed || err != nil {
		t.Fatalf("removed a replaced file: %v %v", removed, err)
	}
	st, _ = d.Lstat("f")
	if removed, err := d.Remove("f", st); !removed || err != nil {
		t.Fatalf("did not remove the same file: %v %v", removed, err)
	}
}

// TestList compares Dir.List with os.ReadDir: the same names and types,
// over enough entries to need several getdents64 calls.
func TestList(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	os.Mkdir(dir, 0o700)
	// 1,000 names of 42 to 246 bytes: about 170 KB of directory entries,
	// so that Linux's List refills its 64 KiB getdents64 buffer twice, with
	// entries of every length and alignment across the refills.
	for i := 0; i < 1000; i++ {
		os.WriteFile(filepath.Join(dir, strings.Repeat("x", i%200+40)+"-"+string(rune('a'+i%26))+time.Duration(i).String()), nil, 0o600)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o700)
	os.Symlink("/nowhere", filepath.Join(dir, "link"))
	unix.Mkfifo(filepath.Join(dir, "fifo"), 0o600)
	os.WriteFile(filepath.Join(dir, ".hidden"), nil, 0o600)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ { // List rewinds
		got, err := d.List()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d entries, want %d", len(got), len(want))
		}
		types := map[string]fs.FileMode{}
		for _, e := range got {
			types[e.Name] = e.Type
		}
		for _, w := range want {
			if typ, ok := types[w.Name()]; !ok || typ != w.Type() {
				t.Errorf("%s: type %v (listed %v), want %v", w.Name(), typ, ok, w.Type())
			}
		}
	}
}

// TestReadFileOneRead checks that a file is read whole whatever its size
// relative to the buffer given (the read that would return 0 is skipped
// only when fstat's size has been read).
func TestReadFileSizes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	os.Mkdir(dir, 0o700)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, n := range []int{0, 1, 511, 512, 513, 4095, 4096, 4097, 65535, 65536} {
		data := []byte(strings.Repeat("y", n))
		os.WriteFile(filepath.Join(dir, "f"), data, 0o600)
		for _, buf := range [][]byte{nil, make([]byte, 0, 10), make([]byte, 0, 4096), make([]byte, 0, 70000)} {
			got, st, err := d.ReadFile("f", buf, 65536)
			if err != nil || string(got) != string(data) || st.Size != int64(n) {
				t.Errorf("size %d, buffer %d: %d bytes, %v", n, cap(buf), len(got), err)
			}
		}
	}
}
