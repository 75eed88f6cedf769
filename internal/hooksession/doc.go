// Package hooksession implements the hook session protocol of SPEC.md §13:
// how short-lived commands run from an agent's hooks (statuspub set, clear
// and the hook adapters) change one session's record without a process of
// their own, and how the one heartbeat owner they start keeps it fresh.
//
// [Set] applies a [Change] under the session's write lock, ordered by when
// each update started (H12), and starts the owner; [Clear] removes the
// record; [RunOwner] is the owner itself, which statuspub runs in a
// detached process of its own. [Names] and [FileKind] name the files a
// session keeps beside its record, for the tools that clean or inspect
// the status directory.
//
// The protocol needs POSIX file locks: on Windows every entry point
// returns [ErrNotSupported].
package hooksession
