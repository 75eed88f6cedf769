//go:build unix

package hooksession

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/statusfile"
)

// writeRecord is [statusfile.WriteFile] into the status directory the
// session holds open under its lock. A zero rec.UpdatedAt is now.
func writeRecord(d *safefs.PubDir, rec statusfile.Status) (fs.FileInfo, error) {
	if rec.UpdatedAt.IsZero() {
		rec.UpdatedAt = time.Now()
	}
	rec.UpdatedAt = rec.UpdatedAt.Truncate(time.Millisecond)
	data, err := statusfile.Encode(rec)
	if err != nil {
		return nil, err
	}
	name := statusfile.FileName(rec.Session)
	fi, err := d.Publish(name, data)
	if err != nil {
		return nil, fmt.Errorf("publish %s: %w", filepath.Join(d.Path(), name), err)
	}
	return fi, nil
}

// removeRecord is [statusfile.RemoveFile] in the status directory the
// session holds open.
func removeRecord(d *safefs.PubDir, session string) error {
	name := statusfile.FileName(session)
	if err := d.Remove(name); err != nil {
		return fmt.Errorf("remove %s: %w", filepath.Join(d.Path(), name), err)
	}
	return nil
}
