package statustest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/statusfile"
)

// read runs Read under testbin.Failure: msg is the failure, "" for none.
func read(t *testing.T, dir, session string) (rec statusfile.Status, ok bool, msg string) {
	msg, _ = testbin.Failure(t, func(tb testing.TB) { rec, ok = Read(tb, dir, session) })
	return rec, ok, msg
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil { // a publisher wants it private
		t.Fatal(err)
	}
	if _, err := statusfile.WriteFile(dir, statusfile.Status{Schema: statusfile.Schema, Agent: "test", Session: "a", State: statusfile.Idle}); err != nil {
		t.Fatal(err)
	}
	if rec, ok, msg := read(t, dir, "a"); !ok || msg != "" || rec.Session != "a" || rec.State != statusfile.Idle {
		t.Errorf("a record: %+v, %v, %q", rec, ok, msg)
	}
	if _, ok, msg := read(t, dir, "none"); ok || msg != "" {
		t.Errorf("no record: ok %v, failure %q", ok, msg)
	}

	// The record of a in the file of b, and a file that is no record.
	data, err := os.ReadFile(filepath.Join(dir, statusfile.FileName("a")))
	if err != nil {
		t.Fatal(err)
	}
	for session, data := range map[string][]byte{"b": data, "c": []byte(`{"schema":`)} {
		if err := os.WriteFile(filepath.Join(dir, statusfile.FileName(session)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, msg := read(t, dir, "b"); !strings.Contains(msg, `the record of session "a" in the file of "b"`) {
		t.Errorf("another session's record: failure %q", msg)
	}
	if _, _, msg := read(t, dir, "c"); msg == "" {
		t.Error("a file that does not decode: no failure")
	}
}
