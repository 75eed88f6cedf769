package safefs

import "io/fs"

// Path returns the path the directory was opened with.
func (d *Dir) Path() string { return d.path }

// Info describes the opened directory.
func (d *Dir) Info() fs.FileInfo { return d.info }

// Close closes the directory.
func (d *Dir) Close() error { return d.f.Close() }

// Check applies the reader's rules to the opened directory: owned by the
// current account and not writable by group or others (files there could
// be forged); on Windows, nothing beyond what [OpenDir] checked. Readable
// by others is allowed here; [CheckStatusDir] is the stricter publisher
// rule.
func (d *Dir) Check() error {
	return checkDir(StatusDir, d.path, d.info, 0o022, ErrWritable)
}
