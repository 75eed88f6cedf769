package statusfile

import (
	"github.com/agentstatus/agentstatus/internal/clock"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/safefs"
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

const TempSuffix = safefs.TempSuffix

func TempName(name string, pid int) string          { return safefs.TempName(name, pid) }
func ParseTempName(tmp string) (string, int, bool)  { return safefs.ParseTempName(tmp) }
func ParseLegacyTempName(tmp string) (string, bool) { return safefs.ParseLegacyTempName(tmp) }
func IsStatusName(name string) bool                 { return safefs.IsStatusName(name) }
func WriterGone(pid int) bool                       { return safefs.WriterGone(pid) }

const (
	ConfigHomeEnv = location.ConfigHomeEnv
	StatusDirEnv  = location.StatusDirEnv
	DirName       = location.DirName
)
