//go:build unix

package agentinstall

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// A replaced settings file keeps its mode, and a new one gets the mode
// asked for, whatever the umask; no temporary file stays behind.
func TestReplaceFileMode(t *testing.T) {
	for _, umask := range []int{0o000, 0o022, 0o077} {
		old := syscall.Umask(umask)
		dir := t.TempDir()
		existing := filepath.Join(dir, "settings.json")
		if err := os.WriteFile(existing, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(existing, 0o640); err != nil {
			t.Fatal(err)
		}
		errOld := replaceFile(existing, []byte(`{"a":1}`+"\n"), 0o600)
		errNew := replaceFile(filepath.Join(dir, "plugin.js"), []byte("//\n"), 0o644)
		syscall.Umask(old)
		if errOld != nil || errNew != nil {
			t.Fatalf("umask %#o: %v, %v", umask, errOld, errNew)
		}
		for name, want := range map[string]fs.FileMode{"settings.json": 0o640, "plugin.js": 0o644} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != want {
				t.Errorf("umask %#o: %s: mode %v, want %v", umask, name, fi.Mode().Perm(), want)
			}
		}
		if data, _ := os.ReadFile(existing); string(data) != `{"a":1}`+"\n" {
			t.Errorf("umask %#o: settings.json: %q", umask, data)
		}
		if names := dirNames(t, dir); !slices.Equal(names, []string{"plugin.js", "settings.json"}) {
			t.Errorf("umask %#o: files after replacing: %q", umask, names)
		}
	}
}
