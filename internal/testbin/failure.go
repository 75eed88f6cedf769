package testbin

import (
	"fmt"
	"runtime"
	"testing"
)

// Failure runs f with a stand-in for t whose Error, Errorf, Fatal and
// Fatalf record the failure instead of failing t; Fatal and Fatalf stop f,
// as they stop a test. It returns the first failure's message ("" for
// none) and whether it was fatal. It is for the tests of test helpers,
// which must show that a helper fails when it should.
func Failure(t testing.TB, f func(testing.TB)) (msg string, fatal bool) {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.msg, r.fatal
}

// recorder is the stand-in of Failure. Its other methods are t's.
type recorder struct {
	testing.TB
	failed, fatal bool
	msg           string
}

func (r *recorder) Helper() {}

func (r *recorder) record(msg string, fatal bool) {
	if !r.failed {
		r.failed, r.msg = true, msg
	}
	r.fatal = r.fatal || fatal
}

func (r *recorder) Error(args ...any)                 { r.record(fmt.Sprint(args...), false) }
func (r *recorder) Errorf(format string, args ...any) { r.record(fmt.Sprintf(format, args...), false) }

func (r *recorder) Fatal(args ...any) {
	r.record(fmt.Sprint(args...), true)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.record(fmt.Sprintf(format, args...), true)
	runtime.Goexit()
}
