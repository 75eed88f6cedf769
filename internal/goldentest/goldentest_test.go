package goldentest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of ending the
// test, so that Check's own failures can be checked.
type recorder struct {
	testing.TB
	failed, fatal bool
	msg           string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msg = format
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.fatal = true, true
	r.msg = format
	panic(r)
}

func (r *recorder) Fatal(args ...any) { r.Fatalf("fatal") }

// check runs Check under a recorder.
func check[T ~string | ~[]byte](t *testing.T, path string, got T) (r *recorder) {
	r = &recorder{TB: t}
	defer func() {
		if p := recover(); p != nil && p != any(r) {
			panic(p)
		}
	}()
	Check(r, path, got)
	return r
}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := check(t, path, "same\n"); r.failed {
		t.Errorf("equal string: failed: %s", r.msg)
	}
	if r := check(t, path, []byte("same\n")); r.failed {
		t.Errorf("equal bytes: failed: %s", r.msg)
	}
	if r := check(t, path, "other\n"); !r.failed || r.fatal || !strings.Contains(r.msg, "differs") {
		t.Errorf("different content: failed %v, fatal %v, %q", r.failed, r.fatal, r.msg)
	}
	if r := check(t, filepath.Join(t.TempDir(), "missing"), "x"); !r.fatal || !strings.Contains(r.msg, "-update") {
		t.Errorf("missing file: fatal %v, %q", r.fatal, r.msg)
	}
}

func TestCheckUpdate(t *testing.T) {
	defer func(old bool) { *update = old }(*update)
	*update = true
	path := filepath.Join(t.TempDir(), "new", "dir", "out.golden")
	if r := check(t, path, "written\n"); r.failed {
		t.Fatalf("update failed: %s", r.msg)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "written\n" {
		t.Errorf("after -update: %q, %v", data, err)
	}
}
