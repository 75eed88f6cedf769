//go:build unix

package statusfile_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentstatus/agentstatus/internal/safefs"
	sf "github.com/agentstatus/agentstatus/statusfile"
)

// SPEC.md P8: the temporary files a killed writer of the session left are
// removed by the session's next publisher; those of a live writer, of
// other sessions, and other names are kept.
func TestPublisherRemovesTempsOfGoneWriters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home", "agent-status")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	name := sf.FileName("s")
	gone := safefs.TempName(name, dead.Process.Pid)
	live := safefs.TempName(name, os.Getppid())
	other := safefs.TempName(sf.FileName("other"), dead.Process.Pid)
	for _, n := range []string{gone, live, other, ".unrelated"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p, err := sf.NewPublisher("s", sf.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	des, _ := os.ReadDir(dir)
	var left []string
	for _, de := range des {
		left = append(left, de.Name())
	}
	slices.Sort(left)
	want := []string{live, other, ".unrelated"}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}

// SPEC.md P11: Close leaves a record another writer put in the file's
// place, even one that kept the file's inode.
func TestCloseLeavesARecordThatReusedTheInode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home", "agent-status")
	p, err := sf.NewPublisher("s", sf.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p.Path(), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"another":"writer"}`)
	f.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(p.Path()); string(data) != `{"another":"writer"}` {
		t.Fatalf("after Close: %q, %v", data, err)
	}
}
