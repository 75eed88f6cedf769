//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/reader"
)

// The check: after every transition of the agent's screen, the status the
// toolkit publishes agrees with it within maxWrong.

// maxWrong is how long the status may disagree with the screen after a
// transition (issue 18: 2 s).
const maxWrong = 2 * time.Second

// measureFor is how long a disagreement is followed before it is reported
// as "longer than": long enough to tell a late signal from none.
const measureFor = 15 * time.Second

// Truths, as the screen shows them; "gone" is an agent that has exited.
const (
	working = "working"
	blocked = "blocked"
	idle    = "idle"
	gone    = "gone"
)

// sampler reads the status directory every 50 ms and keeps every change of
// what it shows: the state of the one fresh record, "gone" for none, or
// "several: ..." (never a truth) for more than one.
type sampler struct {
	dir  string
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	changes []sample // in time order; one per change
}

type sample struct {
	at    time.Time
	state string
	why   string // what the record says of why (statusfile.Status.Why)
}

func startSampler(t testing.TB, dir string) *sampler {
	s := &sampler{dir: dir, stop: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	t.Cleanup(s.close)
	return s
}

func (s *sampler) close() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
}

func (s *sampler) loop() {
	defer close(s.done)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		s.sample()
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
	}
}

func (s *sampler) sample() {
	state, why := gone, ""
	if l, err := reader.List(s.dir, reader.Options{}); err != nil {
		state = "error: " + err.Error()
	} else if fresh := l.Fresh(); len(fresh) == 1 {
		state, why = string(fresh[0].Status.State), fresh[0].Status.Why()
	} else if len(fresh) > 1 {
		var states []string
		for _, e := range fresh {
			states = append(states, string(e.Status.State))
		}
		state = "several: " + strings.Join(states, ",")
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.changes); n == 0 || s.changes[n-1].state != state || s.changes[n-1].why != why {
		s.changes = append(s.changes, sample{now, state, why})
	}
}

// whyWhile returns what the status said of why, from t0 until by, the
// first time it showed state with words that match want (else the last
// words it showed with state), and whether they matched.
func (s *sampler) whyWhile(t0, by time.Time, state string, want *regexp.Regexp) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	last := "(state never shown)"
	for i, c := range s.changes {
		end := by
		if i+1 < len(s.changes) {
			end = s.changes[i+1].at
		}
		if c.state != state || end.Before(t0) || c.at.After(by) {
			continue
		}
		if want.MatchString(c.why) {
			return c.why, true
		}
		last = c.why
	}
	return last, false
}

// at returns the state shown at t.
func (s *sampler) at(t time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := sort.Search(len(s.changes), func(i int) bool { return s.changes[i].at.After(t) })
	if i == 0 {
		return "(none yet)"
	}
	return s.changes[i-1].state
}

// agreeAfter returns when, at or after t0, the status first showed want,
// and false if it has not by now.
func (s *sampler) agreeAfter(t0 time.Time, want string) (time.Time, bool) {
	if s.at(t0) == want {
		return t0, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.changes {
		if c.at.After(t0) && c.state == want {
			return c.at, true
		}
	}
	return time.Time{}, false
}

// timeline renders the changes since t0, for failure messages.
func (s *sampler) timeline(t0 time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, c := range s.changes {
		fmt.Fprintf(&b, "  %+.3fs %s %q\n", c.at.Sub(t0).Seconds(), c.state, c.why)
	}
	return b.String()
}

// A run is one agent session under test: its screen and its status.
type agentRun struct {
	t        *testing.T
	agent    string
	tm       *tmux
	status   *sampler
	classify func(screen string) string // working, blocked, idle or ""
	model    *model                     // what the agent talks to
}

// watchAgent starts sampling the status that the agent running in tm
// publishes into home's default status directory; the screen and what the
// model was asked are logged if the test fails.
func watchAgent(t *testing.T, agent, home string, tm *tmux, m *model, classify func(string) string) *agentRun {
	r := &agentRun{t: t, agent: agent, tm: tm, classify: classify, model: m,
		status: startSampler(t, filepath.Join(home, ".pi", "gentle-ai", "agent-status"))}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screen:\n%s\nmodel:\n%s", tm.capture(), m.Logs())
		}
	})
	return r
}

// A step acts on the agent, then names what its screen must show.
type step struct {
	name  string
	act   func(r *agentRun) // nil: nothing (the agent goes on by itself)
	truth string            // the screen's state once the step has acted
	// settle: the truth must be on screen for this long before it counts
	// (a screen that passes through a state for one frame is not it).
	settle time.Duration
	// within bounds the wait for the screen; default 60 s.
	within time.Duration
	// unsignalled, when set, says why the agent gives no signal at all of
	// this transition (written in SPEC.md §13.2): the time wrong is
	// reported, and the step fails only when the status is right within
	// maxWrong after all, since then SPEC.md no longer tells the truth.
	unsignalled string
	// mayAgree: an unsignalled step whose status agrees in some runs
	// and not in others (an earlier record that may still say the truth).
	mayAgree bool
	// why, when set, is a regular expression the record's words for why
	// (statusfile.Status.Why: "Bash: rm -rf build", "cancelled") must
	// match while it shows truth, within maxWrong of the screen.
	why string
}

// screenTruth is what the screen shows now.
func (r *agentRun) screenTruth() string {
	if r.tm.dead() {
		return gone
	}
	return r.classify(r.tm.capture())
}

// do runs the steps of a scenario in order, checking each transition.
//
// $AGENTSTATUS_E2E_ONLY, a regular expression, runs only the scenarios it
// matches (and "start", which the others need).
func (r *agentRun) do(scenario string, steps ...step) {
	r.t.Helper()
	if only := os.Getenv("AGENTSTATUS_E2E_ONLY"); only != "" && scenario != "start" {
		if ok, _ := regexp.MatchString(only, scenario); !ok {
			return
		}
	}
	for i, st := range steps {
		if st.act != nil {
			st.act(r)
		}
		t0, ok := r.waitScreen(st)
		if !ok {
			r.t.Fatalf("%s %s step %d (%s): the screen never showed %s; it shows %q:\n%s",
				r.agent, scenario, i, st.name, st.truth, r.screenTruth(), r.tm.capture())
		}
		wrong, agreed := r.wrongFor(t0, st.truth)
		why := ""
		if st.why != "" && agreed {
			by := t0.Add(max(maxWrong, wrong))
			for time.Now().Before(by) {
				time.Sleep(50 * time.Millisecond)
			}
			re := regexp.MustCompile(st.why)
			var ok bool
			if why, ok = r.status.whyWhile(t0, by, st.truth, re); !ok {
				r.t.Errorf("%s %s step %d (%s): the status said %q of why it is %s; want %s\nstatus timeline:\n%s",
					r.agent, scenario, i, st.name, why, st.truth, re, r.status.timeline(t0))
			}
		}
		report(r.agent, scenario, i, st.name, st.truth, wrong, agreed, why)
		if st.unsignalled != "" {
			r.t.Logf("%s %s step %d (%s): the status %s; no signal: %s", r.agent, scenario, i, st.name, describeWrong(wrong, agreed), st.unsignalled)
			if agreed && wrong <= maxWrong && !st.mayAgree {
				r.t.Errorf("%s %s step %d (%s): the status agreed %.2f s after the screen, but SPEC.md §13.2 says there is no signal: %s",
					r.agent, scenario, i, st.name, wrong.Seconds(), st.unsignalled)
			}
			continue
		}
		if !agreed || wrong > maxWrong {
			r.t.Errorf("%s %s step %d (%s): the screen showed %s at %s; the status %s\nstatus timeline:\n%s",
				r.agent, scenario, i, st.name, st.truth, t0.Format("15:04:05.000"),
				describeWrong(wrong, agreed), r.status.timeline(t0))
		}
	}
}

// waitScreen waits until the screen has shown st.truth for st.settle and
// returns when it began to.
func (r *agentRun) waitScreen(st step) (time.Time, bool) {
	within := st.within
	if within == 0 {
		within = 60 * time.Second
	}
	deadline := time.Now().Add(within)
	var since time.Time
	for time.Now().Before(deadline) {
		now := time.Now()
		if r.screenTruth() == st.truth {
			if since.IsZero() {
				since = now
			}
			if now.Sub(since) >= st.settle {
				return since, true
			}
		} else {
			since = time.Time{}
		}
		time.Sleep(25 * time.Millisecond)
	}
	return time.Time{}, false
}

// wrongFor waits (up to measureFor) until the status shows truth at or
// after t0, and returns how long after t0 that was.
func (r *agentRun) wrongFor(t0 time.Time, truth string) (time.Duration, bool) {
	deadline := t0.Add(measureFor)
	for {
		if at, ok := r.status.agreeAfter(t0, truth); ok {
			return at.Sub(t0), true
		}
		if time.Now().After(deadline) {
			return time.Since(t0), false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func describeWrong(d time.Duration, agreed bool) string {
	if !agreed {
		return fmt.Sprintf("still disagreed %.1f s later", d.Seconds())
	}
	return fmt.Sprintf("agreed %.2f s later (limit %v)", d.Seconds(), maxWrong)
}

// report prints one result line, which the report of the README is built
// from (bench/e2e-report.sh), and appends it to $AGENTSTATUS_E2E_REPORT.
func report(agent, scenario string, step int, name, truth string, wrong time.Duration, agreed bool, why string) {
	w := fmt.Sprintf("%.2f", wrong.Seconds())
	if !agreed {
		w = fmt.Sprintf(">%.0f", wrong.Seconds())
	}
	line := fmt.Sprintf("E2E agent=%s scenario=%s step=%d name=%q truth=%s wrong=%s",
		agent, scenario, step, name, truth, w)
	if why != "" {
		line += fmt.Sprintf(" why=%q", why)
	}
	line += "\n"
	fmt.Print(line)
	if p := os.Getenv("AGENTSTATUS_E2E_REPORT"); p != "" {
		if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.WriteString(line)
			f.Close()
		}
	}
}
