//go:build unix

package statusls

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
	"golang.org/x/sys/unix"
)

// TestTSVAsListed checks that the TSV listing, printed as the directory is
// read (reader.Dir.Each, 256 names at a time), prints what a reader.List
// selects and renders: over 1 and 300 files, fresh, stale and invalid,
// with a symbolic link, a directory and a file not named after its session
// among them.
func TestTSVAsListed(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 300} {
		dir := privateDir(t)
		for i := range n {
			s := statusfile.Status{Agent: "pi", Session: fmt.Sprintf("s-%d", i), PID: 1000 + i, Cwd: fmt.Sprintf("/src/p%d", i%3),
				State: []statusfile.State{"working", "blocked", "idle"}[i%3], Title: fmt.Sprintf("Task %d", i),
				UpdatedAt: now.Add(-time.Duration(i%50) * time.Second)}
			name := publish(t, dir, s)
			switch i % 40 {
			case 7:
				writeFile(t, dir, name, []byte(`{"schema":"nope"}`))
			case 11:
				os.Remove(filepath.Join(dir, name))
				os.Symlink(filepath.Join(dir, statusfile.FileName("s-0")), filepath.Join(dir, name))
			case 13:
				os.Remove(filepath.Join(dir, name))
				os.Mkdir(filepath.Join(dir, name), 0o700)
			case 17:
				os.Rename(filepath.Join(dir, name), filepath.Join(dir, statusfile.FileName("other-"+s.Session)))
			case 19:
				os.Remove(filepath.Join(dir, name))
				if err := unix.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, args := range [][]string{nil, {"--all"}, {"--all", "--state", "blocked,idle", "--cwd", "/src/p1"}} {
			t.Run(fmt.Sprint(n, args), func(t *testing.T) {
				got := run(t, runOpts{}, append([]string{"--dir", dir}, args...)...)
				l, err := reader.List(dir, reader.Options{Clock: atClock(now)})
				if err != nil {
					t.Fatal(err)
				}
				f := render.Filter{All: len(args) > 0}
				if len(args) > 1 {
					f.States, f.Cwd = []string{"blocked", "idle"}, "/src/p1"
				}
				var want []byte
				for _, e := range render.Select(l.Entries, &f) {
					want = render.AppendTSV(want, &e.Status)
				}
				if got.code != 0 || got.stderr != "" || got.stdout != string(want) {
					t.Errorf("exit %d, stderr %q, %d lines, want %d:\n%s", got.code, got.stderr,
						strings.Count(got.stdout, "\n"), strings.Count(string(want), "\n"), got.stdout)
				}
				streamed := run(t, runOpts{}, append([]string{"--dir", dir, "--jq", ".[]"}, args...)...)
				whole := run(t, runOpts{}, append([]string{"--dir", dir, "--sort", "updated", "--jq", "sort_by(.file)[]"}, args...)...)
				if streamed != whole || whole.code != 0 || strings.Count(whole.stdout, "\n") < strings.Count(string(want), "\n") {
					t.Errorf("--jq: exit %d, stderr %q, %d lines; listed whole: exit %d, stderr %q, %d lines:\n%s\n---\n%s",
						streamed.code, streamed.stderr, strings.Count(streamed.stdout, "\n"), whole.code, whole.stderr,
						strings.Count(whole.stdout, "\n"), streamed.stdout, whole.stdout)
				}
			})
		}
	}
}
