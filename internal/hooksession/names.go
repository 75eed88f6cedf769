package hooksession

import (
	"strings"

	"github.com/agentstatus/agentstatus/internal/safefs"
)

// A session's files in the status directory. Readers ignore every name that
// starts with a dot (SPEC.md R3):
//
//	<hash>.json        the record
//	.<hash>.lock       the write lock: flock(2) (AIX: fcntl), held around every
//	                   read-modify-write of the record (set, clear, heartbeat)
//	.<hash>.owner      the owner lock: a POSIX record lock (fcntl F_SETLK) held
//	                   by the heartbeat owner for its whole life; F_GETLK
//	                   tells others whether an owner runs, and its pid
//	.<hash>.tasks      the task list of claude-hook (see taskList), written
//	                   under the write lock, removed with the record
//
// A lock file is removed only by a process that holds it; a process that
// has just acquired a lock checks that the name still leads to the file it
// locked, and starts again when it does not. These names are spelled here
// only: statuspub, prune and doctor ask this file.
const (
	lockExt  = ".lock"  // the write lock
	ownerExt = ".owner" // the owner lock
	tasksExt = ".tasks" // the task list; written through tasksExt+tmpExt
	tmpExt   = ".tmp"
)

// Names returns the names of the write lock, owner lock and task list of
// the session whose record is named record (statusfile.FileName).
func Names(record string) (lock, owner, tasks string) {
	base := "." + strings.TrimSuffix(record, ".json")
	return base + lockExt, base + ownerExt, base + tasksExt
}

// FileKind says which of a hook session's files name is: "lock", "owner"
// or "tasks" (the task list, or the temporary file it is written
// through); "" for any other name.
func FileKind(name string) string {
	base, ext, ok := strings.Cut(strings.TrimPrefix(name, "."), ".")
	if !ok || !strings.HasPrefix(name, ".") || !safefs.IsStatusName(base+".json") {
		return ""
	}
	switch "." + ext {
	case lockExt:
		return "lock"
	case ownerExt:
		return "owner"
	case tasksExt, tasksExt + tmpExt:
		return "tasks"
	}
	return ""
}
