package watch

import (
	"time"

	"github.com/agentstatus/agentstatus/internal/clock"
)

// defaultRescanInterval is how often a [Watcher] lists the whole directory
// as a safety net against a missed notification.
const defaultRescanInterval = 30 * time.Second

// An Option configures a [Watcher].
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	clock      clock.Clock
	heartbeats bool
	invalid    bool
	liveness   bool
	rescan     time.Duration
	newSource  func() (source, error) // tests
}

// WithClock sets the clock that judges freshness and drives the staleness
// and rescan timers. The default is [clock.System].
func WithClock(c clock.Clock) Option {
	return optionFunc(func(cfg *config) { cfg.clock = c })
}

// WithHeartbeats makes the watcher report [Heartbeat] events: rewrites that
// only moved updatedAt. They are off by default: a thousand sessions send a
// hundred of them a second.
func WithHeartbeats(on bool) Option {
	return optionFunc(func(cfg *config) { cfg.heartbeats = on })
}

// WithInvalid puts invalid files (SPEC.md §10) in the view and reports them
// as [Invalid] events, for tools that explain a directory. By default they
// are left out, like a listing without --all: a record that becomes invalid
// is [Removed] with the reason.
func WithInvalid(on bool) Option {
	return optionFunc(func(cfg *config) { cfg.invalid = on })
}

// WithLiveness checks the pid of every record read (see
// [reader.CheckPID]). Liveness is a second opinion: it never changes a
// verdict, and a change of liveness alone is not an event.
func WithLiveness(on bool) Option {
	return optionFunc(func(cfg *config) { cfg.liveness = on })
}

// WithRescanInterval sets how often the whole directory is listed again and
// compared with what the watcher knows, in case a notification was missed;
// 0 turns the safety net off. While the directory cannot be watched (it is
// missing and an ancestor cannot be watched either), the same interval
// paces the retries. The default is 30 s.
func WithRescanInterval(d time.Duration) Option {
	return optionFunc(func(cfg *config) { cfg.rescan = d })
}
