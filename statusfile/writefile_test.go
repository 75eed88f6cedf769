package statusfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	sf "github.com/agentstatus/agentstatus/statusfile"
)

func TestWriteFileAndRemoveFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home", "agent-status")
	rec := sf.Status{Agent: "hook", Session: "h-1", PID: 9, Cwd: "/w", State: sf.Blocked, Title: "Approve?"}
	if _, err := sf.WriteFile(dir, rec); err != nil {
		t.Fatal(err)
	}
	got := readRecord(t, filepath.Join(dir, sf.FileName("h-1")))
	if got.State != sf.Blocked || got.Title != "Approve?" || got.UpdatedAt.IsZero() {
		t.Errorf("written %+v", got)
	}
	if err := sf.RemoveFile(dir, "h-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, sf.FileName("h-1"))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("not removed: %v", err)
	}
	if err := sf.RemoveFile(dir, "h-1"); err != nil {
		t.Errorf("removing a missing file: %v", err)
	}
	if err := sf.RemoveFile(filepath.Join(t.TempDir(), "none"), "h-1"); err != nil {
		t.Errorf("removing from a missing directory: %v", err)
	}
	// A symlink in its place is refused and its target kept.
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("v"), 0o600)
	os.Symlink(victim, filepath.Join(dir, sf.FileName("h-1")))
	if err := sf.RemoveFile(dir, "h-1"); err == nil {
		t.Error("removed a symlink")
	}
	if _, err := sf.WriteFile(dir, rec); err == nil {
		t.Error("wrote through a symlink")
	}
	if data, _ := os.ReadFile(victim); string(data) != "v" {
		t.Errorf("victim changed: %q", data)
	}
}
