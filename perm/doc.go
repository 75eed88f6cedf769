// Package perm implements the trust rules of SPEC.md for the
// gentle-shell.agent-status/v1 protocol: what a publisher must check before
// it writes into a config home, a status directory and a status file, and
// how a reader opens status files without following a symbolic link, hanging
// on a FIFO or device, or reading more than a bound.
//
// For publishers, call [EnsureConfigHome], [EnsureStatusDir] and
// [OpenStatusRoot] before every write, and [CheckStatusFileIn] for the file
// about to be replaced. For readers, call [OpenDir], [Dir.Check] (SPEC.md R2) and
// [Dir.ReadFile].
//
// Every refusal is a [*Error] that wraps one of the sentinel errors
// ([ErrSymlink], [ErrNotOwned], ...), so callers can branch with errors.Is,
// and says which rule was broken for which path. Errors from the file system
// itself are returned as they are (*fs.PathError), so
// errors.Is(err, fs.ErrNotExist) works.
//
// # Security
//
// The threat model is other local accounts and hostile file contents. An
// attacker with the same account can do anything the publisher can, so
// checks made by path and then acted on by path (time of check to time of
// use) are acceptable inside directories that only the current account can
// write; where it costs nothing, the checks are made on the opened
// descriptor instead.
//
// # Platforms
//
// On Unix, ownership is compared with the effective user id and modes are
// checked as SPEC.md says. On Windows there are no mode bits and ownership
// is not checked: the files inherit the ACL of the config home, which is
// private under the default user profile. Symbolic links and other reparse
// points are refused on every platform.
package perm
