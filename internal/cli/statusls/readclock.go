package statusls

import (
	"time"

	"github.com/agentstatus/agentstatus/internal/clock"
)

// atClock is the clock of a one-shot listing: it reads the moment statusls
// took once, so that verdicts and the ages printed agree. Its timers are
// the system's (a listing arms none).
type atClock time.Time

func (c atClock) Now() time.Time { return time.Time(c) }

func (atClock) NewTimer(d time.Duration) clock.Timer { return clock.System.NewTimer(d) }
