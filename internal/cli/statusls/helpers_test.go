package statusls

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/goldentest"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/statusfile"
)

// now is the fixed clock of the golden tests.
var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

const nowText = "2026-11-30T12:00:00.000Z"

// result is what one in-process run of statusls printed.
type result struct {
	code           int
	stdout, stderr string
}

// runOpts adjust the environment of one run.
type runOpts struct {
	env      map[string]string
	terminal bool
	width    int
	now      time.Time
}

func run(t *testing.T, o runOpts, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	clock := o.now
	if clock.IsZero() {
		clock = now
	}
	env := base.Env{
		Stdout: &stdout,
		Stderr: &stderr,
		Getenv: func(k string) string { return o.env[k] },
		Clock:  atClock(clock),
		Terminal: func() (bool, int) {
			return o.terminal, o.width
		},
		TempDir: t.TempDir(),
	}
	code := Run(args, env)
	return result{code, stdout.String(), stderr.String()}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldentest.Check(t, filepath.Join("testdata", name), got)
}

// privateDir makes <tmp>/home/agent-status, mode 0700.
func privateDir(t testing.TB) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	dir := filepath.Join(home, location.DirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(home, 0o700)
	os.Chmod(dir, 0o700)
	return dir
}

// openDir makes <tmp>/open, mode 0777 whatever the umask: a directory
// writable by others, which the commands refuse.
func openDir(t testing.TB) string {
	t.Helper()
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	return open
}

func writeFile(t testing.TB, dir, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// publish writes a record as a publisher would (statusfile.Encode).
func publish(t testing.TB, dir string, s statusfile.Status) string {
	t.Helper()
	data, err := statusfile.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	name := statusfile.FileName(s.Session)
	writeFile(t, dir, name, data)
	return name
}

// noControls fails if out holds anything a file could use to drive a
// terminal: ESC and other C0 controls (but newline and tab), DEL, C1
// controls, bidi controls, line and paragraph separators.
func noControls(t *testing.T, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: invalid UTF-8", what)
	}
	for i, r := range out {
		bad := r < 0x20 && r != '\n' && r != '\t' ||
			r == 0x7f || r >= 0x80 && r <= 0x9f ||
			r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
			r == 0x2028 || r == 0x2029
		if bad {
			t.Errorf("%s: control or bidi character U+%04X at byte %d: %q", what, r, i, out[max(0, i-20):min(len(out), i+20)])
			return
		}
	}
}

// subst replaces temporary paths so that goldens do not depend on them.
func subst(s string, pairs ...string) string {
	return strings.NewReplacer(pairs...).Replace(s)
}

func displayWidth(s string) int { return uniseg.StringWidth(s) }
