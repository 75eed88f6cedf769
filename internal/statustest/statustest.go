// Package statustest reads status records back for tests, with the checks
// every test wants: the file decodes, and it is the record of the session
// it is named after.
package statustest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Read returns the record of session in the status directory dir; ok is
// false when there is none. A file that cannot be read (other than a
// missing one), that does not decode, or that holds another session's
// record fails t.
func Read(t testing.TB, dir, session string) (rec statusfile.Status, ok bool) {
	t.Helper()
	path := filepath.Join(dir, statusfile.FileName(session))
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return statusfile.Status{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	rec, err = statusfile.Decode(data)
	if err != nil {
		t.Fatalf("%s: %v: %q", path, err, data)
	}
	if rec.Session != session {
		t.Fatalf("%s: the record of session %q in the file of %q", path, rec.Session, session)
	}
	return rec, true
}
