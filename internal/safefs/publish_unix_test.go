//go:build unix

package safefs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentstatus/agentstatus/internal/testhook"
)

// pauseAt runs f once, the first time the code reaches point.
func pauseAt(t *testing.T, point string, f func(name string)) {
	t.Helper()
	var once sync.Once
	restore := testhook.Set(func(p, name string) {
		if p == point {
			once.Do(func() { f(name) })
		}
	})
	t.Cleanup(restore)
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

func TestOpenPublishDirCreates(t *testing.T) {
	withUmask(t, func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "a", "home")
		dir := filepath.Join(home, "agent-status")
		d, err := OpenPublishDir(dir, true)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if m := mode(t, home); m != 0o700 {
			t.Errorf("config home mode %04o", m)
		}
		if m := mode(t, dir); m != 0o700 {
			t.Errorf("status dir mode %04o", m)
		}
		if _, err := d.WriteFile("f.json", ".f.1.0123456789abcdef.tmp", []byte("x")); err != nil {
			t.Fatal(err)
		}
		if m := mode(t, filepath.Join(dir, "f.json")); m != 0o600 {
			t.Errorf("file mode %04o", m)
		}
		if got := names(t, dir); len(got) != 1 {
			t.Errorf("left behind: %v", got)
		}
	})
	if _, err := OpenPublishDir(filepath.Join(t.TempDir(), "none", "agent-status"), false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing without create: %v", err)
	}
}

// SPEC.md P2, P4: the config home is replaced by a link after it was
// checked. The write goes into the directory that was checked (it was
// opened), never into the link's target.
func TestPublishConfigHomeSwappedAfterCheck(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	dir := filepath.Join(home, "agent-status")
	elsewhere := filepath.Join(base, "elsewhere")
	for _, p := range []string{dir, filepath.Join(elsewhere, "agent-status")} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	pauseAt(t, testhook.PublishHomeOpened, func(string) {
		if err := os.Rename(home, filepath.Join(base, "moved")); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(elsewhere, home); err != nil {
			t.Error(err)
		}
	})
	d, err := OpenPublishDir(dir, true)
	if err == nil {
		_, err = d.WriteFile("f.json", ".f.1.0123456789abcdef.tmp", []byte("x"))
		d.Close()
	}
	t.Logf("write: %v", err)
	if got := names(t, filepath.Join(elsewhere, "agent-status")); len(got) != 0 {
		t.Fatalf("written through the swapped link: %v", got)
	}
}

// The status directory is replaced by a link after the config home was
// opened: refused, nothing written into the target.
func TestPublishStatusDirSwapped(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	dir := filepath.Join(home, "agent-status")
	elsewhere := filepath.Join(base, "elsewhere")
	os.MkdirAll(dir, 0o700)
	os.MkdirAll(elsewhere, 0o700)
	pauseAt(t, testhook.PublishHomeOpened, func(string) {
		os.Rename(dir, filepath.Join(home, "old"))
		os.Symlink(elsewhere, dir)
	})
	d, err := OpenPublishDir(dir, true)
	if !errors.Is(err, ErrSymlink) {
		if d != nil {
			d.Close()
		}
		t.Fatalf("got %v, want %v", err, ErrSymlink)
	}
	if got := names(t, elsewhere); len(got) != 0 {
		t.Fatalf("written into the target: %v", got)
	}
}

func TestPublishRefusals(t *testing.T) {
	base := t.TempDir()
	os.Mkdir(filepath.Join(base, "real"), 0o700)
	os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link"))
	os.Mkdir(filepath.Join(base, "open"), 0o777)
	os.Chmod(filepath.Join(base, "open"), 0o777)
	os.MkdirAll(filepath.Join(base, "h", "agent-status"), 0o755)
	os.Chmod(filepath.Join(base, "h", "agent-status"), 0o755)
	os.WriteFile(filepath.Join(base, "file"), nil, 0o600)
	for dir, want := range map[string]error{
		filepath.Join(base, "link", "agent-status"): ErrSymlink,
		filepath.Join(base, "open", "agent-status"): ErrWritable,
		filepath.Join(base, "h", "agent-status"):    ErrAccessible,
		filepath.Join(base, "file", "agent-status"): ErrNotDir,
	} {
		d, err := OpenPublishDir(dir, true)
		if !errors.Is(err, want) {
			if d != nil {
				d.Close()
			}
			t.Errorf("%s: got %v, want %v", dir, err, want)
		}
	}
	if m := mode(t, filepath.Join(base, "h", "agent-status")); m != 0o755 {
		t.Errorf("refused directory's mode changed to %04o", m)
	}
	if _, err := os.Stat(filepath.Join(base, "real", "agent-status")); err == nil {
		t.Error("created a status directory through a link")
	}
}

// setup writes name with content and reads it as a reader does.
func judged(t *testing.T, dir, name, content string) (*Dir, FileStat) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	_, st, err := d.ReadFile(name, nil, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	return d, st
}

// rewriteInPlace replaces the content of path keeping its inode: what a
// file system that hands a freed inode to the next record looks like to
// a remover.
func rewriteInPlace(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(content)
	f.Close()
}

func TestRemoveOnlyWhatWasJudged(t *testing.T) {
	const name = "0a.json"
	tests := []struct {
		name    string
		point   string
		meddle  func(t *testing.T, dir, moved string)
		removed bool
		want    string // content under name afterwards; "" for none
	}{
		{"untouched", "", nil, true, ""},
		{"inode reused, same size", testhook.RemoveJudged, func(t *testing.T, dir, _ string) {
			rewriteInPlace(t, filepath.Join(dir, name), "NEW-RECORD")
		}, false, "NEW-RECORD"},
		{"inode reused after the move", testhook.RemoveMoved, func(t *testing.T, dir, moved string) {
			rewriteInPlace(t, filepath.Join(dir, moved), "NEW-RECORD")
		}, false, "NEW-RECORD"},
		{"new record written after the move", testhook.RemoveMoved, func(t *testing.T, dir, _ string) {
			os.WriteFile(filepath.Join(dir, ".t"), []byte("newer"), 0o600)
			os.Rename(filepath.Join(dir, ".t"), filepath.Join(dir, name))
		}, true, "newer"},
		{"inode reused and a newer record written", testhook.RemoveMoved, func(t *testing.T, dir, moved string) {
			rewriteInPlace(t, filepath.Join(dir, moved), "NEW-RECORD")
			os.WriteFile(filepath.Join(dir, ".t"), []byte("newest"), 0o600)
			os.Rename(filepath.Join(dir, ".t"), filepath.Join(dir, name))
		}, false, "newest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			d, st := judged(t, dir, name, "OLD-RECORD")
			if tt.meddle != nil {
				pauseAt(t, tt.point, func(n string) { tt.meddle(t, dir, n) })
			}
			ok, err := d.Remove(name, st)
			if err != nil || ok != tt.removed {
				t.Fatalf("Remove: %v, %v; want %v", ok, err, tt.removed)
			}
			data, err := os.ReadFile(filepath.Join(dir, name))
			if tt.want == "" {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("still there: %q", data)
				}
			} else if string(data) != tt.want {
				t.Errorf("content %q (%v), want %q", data, err, tt.want)
			}
			for _, n := range names(t, dir) {
				if n != name {
					t.Errorf("left behind: %s", n)
				}
			}
		})
	}
}

// P11: a publisher's own-file check compares content as well as identity.
func TestRemoveOwnAfterInodeReuse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home", "agent-status")
	d, err := OpenPublishDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	data := []byte("MY-RECORD")
	fi, err := d.WriteFile("f.json", ".f.1.0123456789abcdef.tmp", data)
	if err != nil {
		t.Fatal(err)
	}
	rewriteInPlace(t, filepath.Join(dir, "f.json"), "HIS-RECORD")
	if ok, err := d.Dir.Remove("f.json", WrittenStat(fi, data)); ok || err != nil {
		t.Fatalf("removed another writer's record: %v %v", ok, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.json")); !bytes.Equal(got, []byte("HIS-RECORD")) {
		t.Fatalf("content %q", got)
	}
	rewriteInPlace(t, filepath.Join(dir, "f.json"), string(data))
	if ok, err := d.Dir.Remove("f.json", WrittenStat(fi, data)); !ok || err != nil {
		t.Fatalf("own record not removed: %v %v", ok, err)
	}
}

func TestParseAsideAndRestore(t *testing.T) {
	a := asideName("ab.json")
	name, pid, ok := ParseAside(a, ".json")
	if !ok || name != "ab.json" || pid != os.Getpid() || !strings.HasPrefix(a, ".ab.") {
		t.Fatalf("%q: %q %d %v", a, name, pid, ok)
	}
	for _, bad := range []string{"ab.json", ".ab.rm", ".ab.x.y.rm", ".ab.0.y.rm", "..1.y.rm"} {
		if _, _, ok := ParseAside(bad, ".json"); ok {
			t.Errorf("%q parsed", bad)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, a), []byte("r"), 0o600)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if ok, err := d.Restore(a, "ab.json"); !ok || err != nil {
		t.Fatalf("restore: %v %v", ok, err)
	}
	os.WriteFile(filepath.Join(dir, a), []byte("older"), 0o600)
	if ok, err := d.Restore(a, "ab.json"); ok || err != nil {
		t.Fatalf("restore over a record: %v %v", ok, err)
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("left: %v", got)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "ab.json")); string(data) != "r" {
		t.Errorf("clobbered: %q", data)
	}
}
