package watch

import (
	"time"

	"github.com/agentstatus/agentstatus/internal/clock"
)

// defaultRescanInterval is how often a [Watcher] lists the whole directory
// as a safety net against a missed notification.
const defaultRescanInterval = 30 * time.Second

// Options configure a [Watcher]. The zero value of each field is the
// default its comment names.
type Options struct {
	// Clock judges freshness and drives the staleness and rescan timers;
	// nil means the system clock.
	Clock clock.Clock
	// Heartbeats makes the watcher report [Heartbeat] events: rewrites
	// that only moved updatedAt. They are off by default: a thousand
	// sessions send a hundred of them a second.
	Heartbeats bool
	// Invalid puts invalid files (SPEC.md §10) in the view and reports
	// them as [Invalid] events, for tools that explain a directory. By
	// default they are left out, like a listing without --all: a record
	// that becomes invalid is [Removed] with the reason.
	Invalid bool
	// Liveness checks the pid of every record read (see
	// [reader.Options]). Liveness is a second opinion: it never changes a
	// verdict, and a change of liveness alone is not an event.
	Liveness bool
	// RescanInterval is how often the whole directory is listed again and
	// compared with what the watcher knows, in case a notification was
	// missed; 0 means every 30 s, and a negative interval turns the safety
	// net off. While the directory cannot be watched (it is missing and an
	// ancestor cannot be watched either), the same interval paces the
	// retries.
	RescanInterval time.Duration
}
