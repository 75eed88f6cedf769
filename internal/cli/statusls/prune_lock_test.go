//go:build unix && !aix && !solaris && !illumos

package statusls

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

// SPEC.md D3, D2: a session's .lock or .owner that is a symbolic link, not
// a regular file, or another account's is refused with an error, and the
// record it guards is kept, stale and its publisher gone though it is.
func TestPruneRefusesUntrustedLockFiles(t *testing.T) {
	for _, tc := range []struct {
		name, suffix string
		make         func(path string) error
		msg          string
	}{
		{"lock symlink", ".lock", func(p string) error { return os.Symlink(os.DevNull, p) }, ".lock: symbolic link refused"},
		{"owner symlink", ".owner", func(p string) error { return os.Symlink(os.DevNull, p) }, ".owner: symbolic link refused"},
		{"lock fifo", ".lock", func(p string) error { return syscall.Mkfifo(p, 0o600) }, ".lock: not a regular file"},
		{"owner directory", ".owner", func(p string) error { return os.Mkdir(p, 0o700) }, ".owner: is a directory"},
		{"lock of another account", ".lock", func(p string) error {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				return err
			}
			return os.Chown(p, 65534, 65534)
		}, ".lock: owned by another account"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.name, "another account") && os.Geteuid() != 0 {
				t.Skip("chown needs root")
			}
			dir := privateDir(t)
			name := publish(t, dir, statusfile.Status{Agent: "pi", Session: "h", PID: exitedPID(t), State: "idle", UpdatedAt: time.Now().Add(-time.Hour)})
			if err := tc.make(filepath.Join(dir, "."+strings.TrimSuffix(name, ".json")+tc.suffix)); err != nil {
				t.Fatal(err)
			}
			r := run(t, runOpts{now: time.Now()}, "prune", "--dir", dir)
			if !exists(dir, name) {
				t.Fatalf("removed a record whose %s cannot be trusted:\n%s%s", tc.suffix, r.stdout, r.stderr)
			}
			if r.code == 0 || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q: want an error naming %q", r.code, r.stderr, tc.msg)
			}
		})
	}
}
