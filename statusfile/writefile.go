package statusfile

// The write path (SPEC.md P2–P8). On Unix (write_unix.go) every step goes
// through descriptors: the config home is opened without following a link
// and checked on its descriptor, the status directory is opened through it
// and checked on its own, and the temporary file is created, renamed and
// removed relative to the status directory's descriptor (safefs.PubDir). On
// Windows (write_windows.go) the directory is opened as an os.Root.
//
// Temporary files are named by safefs.TempName: ".<hash>.<pid>.<random>.tmp".

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"time"
)

// WriteFile writes rec once into the status directory dir (whose parent is
// the config home), with the same trust checks and atomic replace as a
// [Publisher], and returns the identity of the file written. A zero
// rec.UpdatedAt is set to the current time. Like [Encode], it accepts any
// non-empty state: a publisher MUST pass one of the v1 states (SPEC.md S2);
// other states are for tests that play records other programs wrote.
//
// It is for short-lived publishers, such as agent hooks, that keep no
// process of their own: something else must then rewrite the file at
// least every [HeartbeatInterval]. Most programs want [NewPublisher].
func WriteFile(dir string, rec Status) (fs.FileInfo, error) {
	if rec.UpdatedAt.IsZero() {
		rec.UpdatedAt = time.Now()
	}
	rec.UpdatedAt = rec.UpdatedAt.Truncate(time.Millisecond)
	data, err := Encode(rec)
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	name := FileName(rec.Session)
	fi, err := writeFile(filepath.Dir(dir), dir, name, data)
	if err != nil {
		return nil, fmt.Errorf("publish %s: %w", filepath.Join(dir, name), err)
	}
	return fi, nil
}

// RemoveFile removes the status file of session from dir, after the trust
// checks of a write: it never follows a link and never removes anything but
// a regular file of the current account. A missing file is not an error.
func RemoveFile(dir, session string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	name := FileName(session)
	if err := removeSessionFile(dir, name); err != nil {
		return fmt.Errorf("remove %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}
