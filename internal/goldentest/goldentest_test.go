package goldentest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/internal/testbin"
)

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path string
		check      func(tb testing.TB, path string)
		fails      string // in the failure; "" for none
		fatal      bool
	}{
		{"equal string", path, func(tb testing.TB, p string) { Check(tb, p, "same\n") }, "", false},
		{"equal bytes", path, func(tb testing.TB, p string) { Check(tb, p, []byte("same\n")) }, "", false},
		{"different", path, func(tb testing.TB, p string) { Check(tb, p, "other\n") }, "differs from the golden file", false},
		{"missing", filepath.Join(t.TempDir(), "missing"), func(tb testing.TB, p string) { Check(tb, p, "x") }, "-update' to create it", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msg, fatal := testbin.Failure(t, func(tb testing.TB) { tt.check(tb, tt.path) })
			if (msg == "") != (tt.fails == "") || !strings.Contains(msg, tt.fails) || fatal != tt.fatal {
				t.Errorf("failure %q (fatal %v), want one with %q (fatal %v)", msg, fatal, tt.fails, tt.fatal)
			}
		})
	}
}

func TestCheckUpdate(t *testing.T) {
	defer func(old bool) { *update = old }(*update)
	*update = true
	path := filepath.Join(t.TempDir(), "new", "dir", "out.golden")
	Check(t, path, "written\n")
	if data, err := os.ReadFile(path); err != nil || string(data) != "written\n" {
		t.Errorf("after -update: %q, %v", data, err)
	}
}
