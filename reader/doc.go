// Package reader lists a gentle-shell.agent-status/v1 status directory as
// specified in SPEC.md §8: once, safely, and fast.
//
// For most uses, call [List] on [DefaultDir] and show the entries whose
// verdict is [Fresh].
// Long-lived readers (package watch) [Open] the directory once and [Dir.Read]
// single files as they change.
//
// Every entry gets a verdict: [Fresh], [Stale], [Invalid] with a reason from
// SPEC.md §10, or [Ignored] (names that are not status file names, listed
// only when asked). A file that disappears between the listing and the open
// is left out: its publisher just shut down.
//
// # Security
//
// On Unix, files are opened relative to the directory's descriptor with
// O_NOFOLLOW and O_NONBLOCK and checked with fstat (package perm; on
// Windows, by path, with reparse points refused): a symbolic link is never
// followed, a FIFO or device never blocks the reader, and no more than
// [statusfile.MaxFileSize] bytes of a file are read (and one more, to tell
// that a file is larger). A status directory that
// is a symbolic link, owned by another account or writable by group or
// others is refused with an error. Decoded strings are returned as written:
// display titles through [statusfile.SanitizeTitle] and other fields through
// [statusfile.SanitizeText].
package reader
