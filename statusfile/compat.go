package statusfile

import (
	"github.com/agentstatus/agentstatus/internal/clock"
	"github.com/agentstatus/agentstatus/internal/timefmt"
	"time"
)

// Names kept until the callers import the internal packages.
type (
	Clock = clock.Clock
	Timer = clock.Timer
)

var SystemClock = clock.System

const TimeLayout = timefmt.Layout

func AppendTime(dst []byte, t time.Time) []byte { return timefmt.Append(dst, t) }

func ParseTime(s string) (time.Time, bool) { return timefmt.Parse(s) }
