//go:build !windows

package statusfile

import (
	"errors"
	"io/fs"

	"github.com/agentstatus/agentstatus/internal/safefs"
)

// writeFile checks the trust rules and atomically replaces dir/name with
// data through a temporary file in dir itself, mode 0600 whatever the
// umask. It returns the identity of the file written. home is dir's
// parent, and checked as the config home.
func writeFile(_, dir, name string, data []byte) (fs.FileInfo, error) {
	d, err := safefs.OpenPublishDir(dir, true)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Publish(name, data)
}

// inDir calls f with the status directory dir, opened after the trust
// checks; a missing directory has nothing to remove, and is not an error.
func inDir(dir string, f func(d *safefs.PubDir) error) error {
	d, err := safefs.OpenPublishDir(dir, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	return f(d)
}

// removeFile removes dir/name if it is still the file written, with the
// content data (SPEC.md P11).
func removeFile(dir, name string, written fs.FileInfo, data []byte) error {
	return inDir(dir, func(d *safefs.PubDir) error {
		_, err := d.Dir.Remove(name, safefs.WrittenStat(written, data))
		return err
	})
}

// removeSessionFile removes dir/name after the trust checks.
func removeSessionFile(dir, name string) error {
	return inDir(dir, func(d *safefs.PubDir) error { return d.Remove(name) })
}

// cleanTemps removes the temporary files of the status file name whose
// writer is gone (SPEC.md P8).
func cleanTemps(dir, name string) error {
	return inDir(dir, func(d *safefs.PubDir) error { return safefs.RemoveStaleTemps(d, name) })
}
