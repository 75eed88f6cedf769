package reader

import "time"

// Liveness is what the reader can tell of a record's pid on this host. It is
// a second opinion (SPEC.md FR4): it never changes a verdict, because a
// publisher in another pid namespace or on another host looks dead from
// here.
type Liveness string

// Liveness values.
const (
	// The zero value, "", says that liveness was not asked for.
	unchecked Liveness = ""
	// Unknown: no pid, or no way to tell on this system.
	Unknown Liveness = "unknown"
	// Alive: a process with that pid exists and (where the system tells)
	// started before the record was last written.
	Alive Liveness = "alive"
	// Dead: no process has that pid. It is the only value that proves
	// the publisher gone: a Reused pid is not proof (a clock step can fake
	// it), and Alive and Unknown are not either.
	Dead Liveness = "dead"
	// Reused: a process holds that pid, and by the wall clock it started
	// after the record was last written, so it is probably not the
	// publisher. Probably: the process's start time is known in ticks
	// since boot, the record's time by the wall clock, and the two are
	// related only through the boot time the kernel derives from the wall
	// clock, which moves when the clock is set. After the clock steps
	// forward by S, a live publisher that started less than S before its
	// last write looks reused. Reused is therefore never proof that the
	// publisher is gone (SPEC.md FR5).
	Reused Liveness = "reused"
)

// startSlack absorbs the rounding of process start times (the boot time is
// known to the second).
const startSlack = time.Second

// liveness tells whether pid is alive on this host and, where the system
// says when a process started (Linux, through /proc), whether it is still
// the process that wrote a record at updatedAt. Elsewhere on Unix it asks
// kill(pid, 0); on other systems the answer is Unknown.
func liveness(pid int, updatedAt time.Time) Liveness {
	if pid <= 0 {
		return Unknown
	}
	return checkPID(pid, updatedAt)
}
