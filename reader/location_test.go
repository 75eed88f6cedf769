package reader_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

func TestDefaultDir(t *testing.T) {
	base := t.TempDir()
	s, g, h := filepath.Join(base, "s"), filepath.Join(base, "g"), filepath.Join(base, "h")
	tests := []struct {
		name               string
		statusDir, cfgHome string
		wantDir, wantHome  string
	}{
		{"STATUS_DIR first", s, g, s, g},
		{"then the config home", "", g, filepath.Join(g, "agent-status"), g},
		{"then ~/.pi/gentle-ai", "", "", filepath.Join(h, ".pi", "gentle-ai", "agent-status"), filepath.Join(h, ".pi", "gentle-ai")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", h)
			t.Setenv(location.StatusDirEnv, tt.statusDir)
			t.Setenv(location.ConfigHomeEnv, tt.cfgHome)
			dir, err := reader.DefaultDir()
			if err != nil || dir != tt.wantDir {
				t.Errorf("DefaultDir() = %q, %v; want %q", dir, err, tt.wantDir)
			}
			// Publishers ignore STATUS_DIR (SPEC.md L4).
			p, err := statusfile.NewPublisher("s-1", statusfile.Options{Cwd: "/w"})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if want := filepath.Join(tt.wantHome, "agent-status", statusfile.FileName("s-1")); p.Path() != want {
				t.Errorf("a publisher told nothing writes %q; want %q", p.Path(), want)
			}
		})
	}
}

// TestDefaultDirFindsDefaultPublisher: a reader told nothing lists the
// file of a publisher told nothing, relative paths included.
func TestDefaultDirFindsDefaultPublisher(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(location.StatusDirEnv, "")
	t.Setenv(location.ConfigHomeEnv, "home")
	p, err := statusfile.NewPublisher("s-1", statusfile.Options{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Set(statusfile.Working, "T")
	if err := p.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	dir, err := reader.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(dir) {
		t.Errorf("DefaultDir() = %q, not absolute", dir)
	}
	l, err := reader.List(dir, reader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := l.Fresh(); len(f) != 1 || f[0].Status.Session != "s-1" {
		t.Fatalf("reader sees %+v in %s; publisher wrote %s", l.Entries, dir, p.Path())
	}
	if _, err := os.Stat(filepath.Join(dir, statusfile.FileName("s-1"))); err != nil {
		t.Error(err)
	}
}
