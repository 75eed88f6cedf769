package statusfile

import (
	"github.com/agentstatus/agentstatus/internal/clock"
)

// An Option configures a [Publisher]; [Options] is one.
//
// Deprecated: pass an [Options] to [NewPublisher].
type Option interface {
	apply(*Options)
}

func (o Options) apply(dst *Options) { *dst = o }

type optionFunc func(*Options)

func (f optionFunc) apply(o *Options) { f(o) }

// WithConfigHome sets [Options.ConfigHome].
//
// Deprecated: use [Options].
func WithConfigHome(dir string) Option { return optionFunc(func(o *Options) { o.ConfigHome = dir }) }

// WithAgent sets [Options.Agent].
//
// Deprecated: use [Options].
func WithAgent(name string) Option { return optionFunc(func(o *Options) { o.Agent = name }) }

// WithPID sets [Options.PID].
//
// Deprecated: use [Options].
func WithPID(pid int) Option { return optionFunc(func(o *Options) { o.PID = pid }) }

// WithCwd sets [Options.Cwd].
//
// Deprecated: use [Options].
func WithCwd(dir string) Option { return optionFunc(func(o *Options) { o.Cwd = dir }) }

// WithState sets [Options.State].
//
// Deprecated: use [Options].
func WithState(s State) Option { return optionFunc(func(o *Options) { o.State = s }) }

// WithTitle sets [Options.Title].
//
// Deprecated: use [Options].
func WithTitle(title string) Option { return optionFunc(func(o *Options) { o.Title = title }) }

// WithClock sets [Options.Clock].
//
// Deprecated: use [Options].
func WithClock(clk clock.Clock) Option { return optionFunc(func(o *Options) { o.Clock = clk }) }

// WithErrorHandler sets [Options.ErrorHandler].
//
// Deprecated: use [Options].
func WithErrorHandler(f func(error)) Option {
	return optionFunc(func(o *Options) { o.ErrorHandler = f })
}
