package conformance

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// calibration is what a first, timed run of the publisher under test
// found: how much its deadlines must stretch.
type calibration struct {
	factor   float64 // at least 1
	answered time.Duration
	note     string
}

// calibrationMargin is how many times its own measured speed a publisher
// is given before a deadline counts as missed: scenarios run side by side
// and the machine may be busier than during the calibration.
const calibrationMargin = 4

// calibrate starts the publisher once in a private directory (config home
// present), and times its first record, the answer to one change and its
// exit at the end of its input. The deadlines of the run (2 s each) then
// stretch to calibrationMargin times the slowest of these, so that an
// interpreter that starts slowly on a loaded machine is judged on what it
// does, not on how fast it starts. It never fails a check: a publisher
// that does not publish here fails the scenarios that need it.
func calibrate(ctx context.Context, opts Options) (cal calibration) {
	cal.factor = 1
	limit := time.Duration(20 * opts.TimeoutScale * float64(time.Second))
	p := newPubRun(ctx, opts, nil)
	defer p.finish()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(abort); !ok {
				panic(r)
			}
			cal.note = "calibration: " + p.stopReason() + "; deadlines not stretched"
		}
	}()
	p.setup()
	p.must(mkdir(p.home, privateDir))
	p.start()
	// Any entry but a dot-file counts, under any name and in $STATUS_DIR
	// too: getting those wrong is for the checks to say.
	appeared := func() bool {
		for _, d := range []string{p.statusDir(), p.decoy} {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if !strings.HasPrefix(e.Name(), ".") {
					return true
				}
			}
		}
		return false
	}
	deadline := time.Now().Add(limit)
	for !appeared() {
		if !p.running() || time.Now().After(deadline) {
			cal.note = fmt.Sprintf("calibration: the publisher did not publish within %v (%s); deadlines not stretched", limit, p.exitString())
			return cal
		}
		p.pause(5 * time.Millisecond)
	}
	startup := time.Since(p.started)
	sent := time.Now()
	if err := p.tryWrite(`{"state":"working"}`); err != nil {
		cal.note = fmt.Sprintf("calibration: could not write to the publisher: %v", err)
		return cal
	}
	var answered time.Duration
	if _, err := p.next(limit); err == nil {
		answered = time.Since(sent)
	}
	stopped := time.Now()
	p.closeStdin()
	var exited time.Duration
	if p.waitExit(limit) {
		exited = time.Since(stopped)
	}
	cal.answered = answered
	slowest := max(startup, answered, exited)
	cal.factor = max(1, calibrationMargin*slowest.Seconds()/2)
	cal.note = fmt.Sprintf("calibration: first record %v after the start, answer %v after a change, exit %v after the end of input; deadlines ×%.2f (%d× the slowest, at least the 2 s of the suite)",
		startup.Round(time.Millisecond), answered.Round(time.Millisecond), exited.Round(time.Millisecond), cal.factor, calibrationMargin)
	return cal
}
