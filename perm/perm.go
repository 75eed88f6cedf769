package perm

import "github.com/agentstatus/agentstatus/internal/safefs"

// Sentinel errors: the rule that was broken.
var (
	ErrSymlink    = safefs.ErrSymlink
	ErrNotDir     = safefs.ErrNotDir
	ErrNotRegular = safefs.ErrNotRegular
	ErrNotOwned   = safefs.ErrNotOwned
	ErrWritable   = safefs.ErrWritable
	ErrAccessible = safefs.ErrAccessible
	ErrLinks      = safefs.ErrLinks
	ErrTooLarge   = safefs.ErrTooLarge
	ErrChanged    = safefs.ErrChanged
)

// Error is a refusal: the path, what it is ("config home", "status
// directory" or "status file"), the rule it breaks (one of the sentinel
// errors, which Unwrap returns) and a detail such as "mode 0755".
type Error = safefs.Error

// CheckConfigHome checks an existing config home (SPEC.md P2): not a
// symbolic link or other reparse point, a directory, and on Unix owned by
// the current account and not writable by group or others. Directories
// above it are trusted.
func CheckConfigHome(path string) error { return safefs.CheckConfigHome(path) }

// CheckStatusDir checks an existing status directory (SPEC.md P4): not a
// symbolic link or other reparse point, a directory, and on Unix owned by
// the current account and without any group or other permission bit.
func CheckStatusDir(path string) error { return safefs.CheckStatusDir(path) }
