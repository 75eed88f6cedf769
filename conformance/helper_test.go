package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/internal/testmain"
	"github.com/agentstatus/agentstatus/internal/timefmt"
	"github.com/agentstatus/agentstatus/perm"
	"github.com/agentstatus/agentstatus/statusfile"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
)

// The suite's own tests run readers and publishers as separate processes,
// as it runs anyone's. These are small ones written for the purpose, built
// into the test binary: TestMain runs one instead of the tests when the
// binary is started as "<test binary> -conform-helper reader|publisher
// [FLAW]". Without a flaw each follows SPEC.md; each flaw breaks exactly
// one thing, and the suite must notice (TestBroken*).
func TestMain(m *testing.M) {
	if len(os.Args) >= 3 && os.Args[1] == "-conform-helper" {
		flaw := ""
		if len(os.Args) >= 4 {
			flaw = os.Args[3]
		}
		switch os.Args[2] {
		case "reader":
			os.Exit(helperReader(flaw, os.Stdout, os.Stderr))
		case "publisher":
			os.Exit(helperPublisher(flaw))
		case "forkclient":
			os.Exit(forkClient(flaw, os.Args[4:]))
		}
		fmt.Fprintln(os.Stderr, "unknown helper", os.Args[2])
		os.Exit(2)
	}
	// Temporary files in memory; and a binary built with -race sleeps a
	// second at exit: the test binary
	// is re-executed as a reader, publisher or hook adapter hundreds of
	// times, which made this package take minutes under -race.
	testmain.Prepare()
	// The Python adapters start hundreds of times, and compiling their
	// module statusproto.py was a third of each start: let them keep the
	// compiled module, in a directory of the tests' own (not next to the
	// sources), also where PYTHONDONTWRITEBYTECODE says not to.
	pycache, err := os.MkdirTemp("", "statusconform-pycache-")
	if err == nil {
		os.Unsetenv("PYTHONDONTWRITEBYTECODE")
		os.Setenv("PYTHONPYCACHEPREFIX", pycache)
	}
	// The suites mostly wait: for a publisher's heartbeat (20 s), for
	// the timeouts of the flaws that hang, for the programs they start.
	testmain.MoreParallel(8)
	code := m.Run()
	cleanupBinaries()
	os.RemoveAll(pycache)
	os.Exit(code)
}

// helperCommand is the command line that runs a helper.
func helperCommand(t testing.TB, kind, flaw string) []string {
	t.Helper()
	return []string{helperExe(t), "-conform-helper", kind, flaw}
}

// errFatal is an error that ends a listing (for flawed readers).
type errFatal struct{ err error }

func (e errFatal) Error() string { return e.err.Error() }

// errRefused is what the test reader returns for a directory it refuses.
var errRefused = errors.New("status directory refused")

// testRead is the suite's test reader, built on packages statusfile and
// perm. Each flaw breaks one rule.
func testRead(dir string, now time.Time, flaw string) ([]vector.Session, error) {
	if flaw == "accept-symlinked-dir" {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
	}
	d, err := safefs.OpenDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if flaw == "missing-dir-error" {
			return nil, err
		}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errRefused, err)
	}
	defer d.Close()
	if flaw != "accept-writable-dir" {
		if err := d.Check(); err != nil {
			if flaw != "accept-foreign-dir" || !errors.Is(err, perm.ErrNotOwned) {
				return nil, fmt.Errorf("%w: %v", errRefused, err)
			}
		}
	}
	entries, err := d.List()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	var out []vector.Session
	for _, name := range names {
		switch {
		case flaw == "every-json-file" && strings.HasSuffix(name, ".json"):
		case flaw == "hash-prefix-only" && len(name) >= 64 && safefs.IsStatusName(name[:64]+".json"):
		case !safefs.IsStatusName(name):
			continue
		}
		data, err := readOne(d, dir, name, flaw)
		if errors.Is(err, fs.ErrNotExist) {
			if flaw == "error-on-vanished" {
				return nil, err
			}
			continue
		}
		var fatal errFatal
		if errors.As(err, &fatal) {
			return nil, err
		}
		if err != nil {
			continue
		}
		rec, err := statusfile.Decode(data)
		if err != nil {
			if flaw == "fail-on-invalid" {
				return nil, err
			}
			continue
		}
		switch flaw {
		case "no-name-check", "every-json-file":
		case "hash-prefix-only":
			if name[:64]+".json" != statusfile.FileName(rec.Session) {
				continue
			}
		default:
			if name != statusfile.FileName(rec.Session) {
				continue
			}
		}
		if flaw == "drop-unknown-state" && !rec.State.Known() {
			continue
		}
		if flaw == "drop-null-agent" && rec.Agent == "" {
			continue
		}
		if !fresh(rec.UpdatedAt, now, flaw) {
			continue
		}
		out = append(out, display(rec, flaw))
	}
	return out, nil
}

// readOpened opens path read-only with flag added and reads it, at most
// statusfile.MaxFileSize+1 bytes, if accept takes what it opened: the
// broken readers that open by path differ only in flag and accept.
func readOpened(path string, flag int, accept func(fs.FileInfo) bool) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|flag, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !accept(fi) {
		return nil, errors.New("refused")
	}
	return io.ReadAll(io.LimitReader(f, statusfile.MaxFileSize+1))
}

func readOne(d *safefs.Dir, dir, name, flaw string) ([]byte, error) {
	switch flaw {
	case "no-file-checks":
		// Never blocks on a FIFO, but reads whatever it opened, to the end.
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDONLY|nonblock|nofollow, 0)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(f)
	case "fail-on-open-error":
		data, _, err := d.ReadFile(name, nil, statusfile.MaxFileSize)
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, perm.ErrTooLarge) && !errors.Is(err, perm.ErrNotOwned) && !errors.Is(err, perm.ErrSymlink) {
			return nil, errFatal{err}
		}
		return data, err
	case "follow-symlinks":
		// Opens with the path, following links, then checks like the
		// others.
		return readOpened(filepath.Join(dir, name), nonblock, func(fi fs.FileInfo) bool {
			return fi.Mode().IsRegular() && fi.Size() <= statusfile.MaxFileSize
		})
	case "block-on-fifo":
		// Opens without O_NONBLOCK: a FIFO blocks until a writer comes.
		return readOpened(filepath.Join(dir, name), nofollow, func(fi fs.FileInfo) bool { return fi.Mode().IsRegular() })
	case "no-size-limit":
		data, _, err := d.ReadFile(name, nil, 1<<30)
		return data, err
	case "no-owner-check":
		data, _, err := d.ReadFile(name, nil, statusfile.MaxFileSize)
		if errors.Is(err, perm.ErrNotOwned) {
			return os.ReadFile(filepath.Join(dir, name))
		}
		return data, err
	}
	data, _, err := d.ReadFile(name, nil, statusfile.MaxFileSize)
	return data, err
}

func fresh(updated, now time.Time, flaw string) bool {
	switch flaw {
	case "stale-after-60s":
		age := now.Sub(updated)
		return age <= time.Minute && age >= -statusfile.StaleAfter
	case "no-future-bound":
		return now.Sub(updated) <= statusfile.StaleAfter
	case "whole-seconds":
		// As the published one-liner: fractions dropped from updatedAt.
		age := now.Sub(updated.Truncate(time.Second))
		return age <= statusfile.StaleAfter && age >= -statusfile.StaleAfter
	}
	return (&statusfile.Status{UpdatedAt: updated}).Fresh(now)
}

func display(rec statusfile.Status, flaw string) vector.Session {
	text := statusfile.SanitizeText
	title := statusfile.SanitizeTitle(rec.Title)
	switch flaw {
	case "raw-titles":
		title = rec.Title
	case "raw-fields":
		text = func(s string) string { return s }
	case "collapse-fields":
		text = statusfile.SanitizeTitle
	}
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	s := vector.Session{Session: text(rec.Session), Agent: str(text(rec.Agent)), State: text(string(rec.State)),
		Cwd: str(text(rec.Cwd)), Title: str(title)}
	if rec.PID != 0 {
		pid := int64(rec.PID)
		s.PID = &pid
	}
	s.WaitingFor, s.Ended = whyJSON(rec)
	return s
}

// whyJSON is the canonical JSON of the record's waitingFor and ended, as
// a reader of §4.4 prints them (Decode already sanitized and limited them
// to their state).
func whyJSON(rec statusfile.Status) (wait, ended json.RawMessage) {
	when := func(t time.Time) any {
		if t.IsZero() {
			return nil
		}
		return string(timefmt.Append(nil, t))
	}
	str := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	wait, ended = json.RawMessage("null"), json.RawMessage("null")
	if w := rec.WaitingFor; w.Kind != "" {
		wait, _ = json.Marshal(map[string]any{"kind": w.Kind, "tool": str(w.Tool), "detail": str(w.Detail), "since": when(w.Since)})
	}
	if e := rec.Ended; e.Reason != "" {
		ended, _ = json.Marshal(map[string]any{"reason": e.Reason, "detail": str(e.Detail), "at": when(e.At)})
	}
	return wait, ended
}

// helperReader is the test reader as a command of the reader protocol.
func helperReader(flaw string, stdout, stderr io.Writer) int {
	dir := os.Getenv("STATUS_DIR")
	if flaw == "ignore-status-dir" {
		dir = filepath.Join(os.Getenv("GENTLE_PI_CONFIG_HOME"), "agent-status")
	}
	now, ok := timefmt.Parse(os.Getenv("STATUSCONFORM_NOW"))
	if !ok || flaw == "real-clock" {
		now = time.Now()
	}
	sessions, err := testRead(dir, now, flaw)
	if err != nil {
		fmt.Fprintln(stderr, "reader:", err)
		return 1
	}
	enc := json.NewEncoder(stdout)
	for _, s := range sessions {
		enc.Encode(s)
	}
	if flaw == "print-garbage" {
		fmt.Fprintln(stdout, "total:", len(sessions))
	}
	if flaw == "exit-1" {
		return 1
	}
	return 0
}

// testReaderFunc is the test reader in this process.
func testReaderFunc(flaw string) readerFunc {
	return func(ctx context.Context, dir string, now time.Time) ([]vector.Session, error) {
		return testRead(dir, now, flaw)
	}
}
