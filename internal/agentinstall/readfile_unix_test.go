//go:build unix

package agentinstall

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/testhook"

	"golang.org/x/sys/unix"
)

// A settings file swapped, between its check and its opening, for a FIFO
// (which would block a plain open) or a symbolic link (which a plain open
// would follow) is refused at once: doctor reads these files too.
func TestReadFileSwappedAfterCheck(t *testing.T) {
	for _, swap := range []struct {
		name string
		make func(path, target string) error
	}{
		{"fifo", func(path, _ string) error { return unix.Mkfifo(path, 0o600) }},
		{"symlink", func(path, target string) error { return os.Symlink(target, path) }},
	} {
		t.Run(swap.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "settings.json")
			target := filepath.Join(dir, "elsewhere.json")
			if err := os.WriteFile(path, []byte(`{"ours":true}`), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(target, []byte(`{"secret":true}`), 0o600); err != nil {
				t.Fatal(err)
			}
			restore := testhook.Set(func(point, name string) {
				if point != testhook.SettingsChecked || name != path {
					return
				}
				if err := os.Remove(path); err != nil {
					t.Error(err)
				}
				if err := swap.make(path, target); err != nil {
					t.Error(err)
				}
			})
			defer restore()
			type result struct {
				data []byte
				err  error
			}
			done := make(chan result, 1)
			go func() {
				data, _, _, err := ReadFile(path)
				done <- result{data, err}
			}()
			select {
			case r := <-done:
				if r.err == nil {
					t.Fatalf("ReadFile read %q through a %s swapped in after the check", r.data, swap.name)
				}
			case <-time.After(10 * time.Second):
				// Unblock the open so the goroutine ends.
				if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Fatalf("ReadFile hung on a %s swapped in after the check", swap.name)
			}
		})
	}
}
