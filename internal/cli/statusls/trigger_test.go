package statusls

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/clocktest"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/agentstatus/agentstatus/watch"
)

// step is one moment of a trigger scenario: the clock moves on by advance,
// then, if state is set, session sees an event: a record in that state
// ("removed" and "stale" take it out of the view), with the reason keys
// given (since and at relative to the clock's start).
type step struct {
	advance time.Duration
	session string
	state   string
	since   time.Duration // waitingFor.since (blocked) or ended.at (idle); 0: none
	tool    string
	runs    []string // the runs expected by the end of the step: "session@offset"
}

// TestTrigger plays scenarios against the trigger, on a fake clock: what
// runs, and when, for --on with --after, --after-working and --cooldown.
func TestTrigger(t *testing.T) {
	tests := []struct {
		name  string
		on    string
		flags watchOptions
		steps []step
	}{
		{"no delay: at once, once per stay", "blocked", watchOptions{}, []step{
			{session: "a", state: "blocked", runs: []string{"a@0s"}},
			{advance: time.Minute, session: "a", state: "blocked"},
			{advance: time.Second, session: "a", state: "working"},
			{advance: time.Second, session: "a", state: "blocked", runs: []string{"a@1m2s"}},
		}},
		{"after: from when it was seen", "blocked", watchOptions{after: 30 * time.Second}, []step{
			{session: "a", state: "blocked"},
			{advance: 29 * time.Second},
			{advance: time.Second, runs: []string{"a@30s"}},
			{advance: time.Hour},
		}},
		{"after: from waitingFor.since", "blocked", watchOptions{after: 30 * time.Second}, []step{
			{advance: 20 * time.Second, session: "a", state: "blocked", since: 5 * time.Second},
			{advance: 14 * time.Second},
			{advance: time.Second, runs: []string{"a@35s"}},
		}},
		{"after: a wait long begun runs at once", "blocked", watchOptions{after: 30 * time.Second}, []step{
			{advance: time.Hour, session: "a", state: "blocked", since: time.Second, runs: []string{"a@1h0m0s"}},
		}},
		{"after: a since ahead of the clock counts as now", "blocked", watchOptions{after: 30 * time.Second}, []step{
			{session: "a", state: "blocked", since: time.Hour},
			{advance: 30 * time.Second, runs: []string{"a@30s"}},
		}},
		{"after: leaving the state cancels", "blocked", watchOptions{after: 30 * time.Second}, []step{
			{session: "a", state: "blocked"},
			{advance: 29 * time.Second, session: "a", state: "working"},
			{advance: time.Hour},
		}},
		{"after: removed cancels", "blocked", watchOptions{after: 30 * time.Second}, []step{
			{session: "a", state: "blocked"},
			{advance: 10 * time.Second, session: "a", state: "removed"},
			{advance: time.Hour},
		}},
		{"after: stale cancels", "blocked", watchOptions{after: 30 * time.Second}, []step{
			{session: "a", state: "blocked"},
			{advance: 10 * time.Second, session: "a", state: "stale"},
			{advance: time.Hour},
		}},
		{"after: a new wait counts from its start", "blocked", watchOptions{after: 30 * time.Second}, []step{
			{session: "a", state: "blocked", since: 0, tool: "Bash"},
			{advance: 20 * time.Second, session: "a", state: "blocked", since: 20 * time.Second, tool: "Edit"},
			{advance: 29 * time.Second},
			{advance: time.Second, runs: []string{"a@50s Edit"}},
		}},
		{"after: sessions apart", "blocked", watchOptions{after: 30 * time.Second}, []step{
			{session: "a", state: "blocked"},
			{advance: 10 * time.Second, session: "b", state: "blocked"},
			{advance: 5 * time.Second, session: "a", state: "idle"},
			{advance: 25 * time.Second, runs: []string{"b@40s"}},
		}},
		{"after-working: a long turn", "idle", watchOptions{afterWorking: 2 * time.Minute}, []step{
			{session: "a", state: "idle"},
			{advance: time.Second, session: "a", state: "working"},
			{advance: time.Minute, session: "a", state: "blocked"},
			{advance: time.Minute, session: "a", state: "working"},
			{advance: time.Second, session: "a", state: "idle", runs: []string{"a@2m2s"}},
		}},
		{"after-working: a short turn", "idle", watchOptions{afterWorking: 2 * time.Minute}, []step{
			{session: "a", state: "working"},
			{advance: 119 * time.Second, session: "a", state: "idle"},
			{advance: time.Second, session: "a", state: "working"},
			{advance: 2 * time.Minute, session: "a", state: "idle", runs: []string{"a@4m0s"}},
		}},
		{"after-working: idle from the start is no turn", "idle", watchOptions{afterWorking: time.Second}, []step{
			{session: "a", state: "idle"},
			{advance: time.Hour, session: "a", state: "idle"},
		}},
		{"after-working: stale forgets the turn", "idle", watchOptions{afterWorking: time.Minute}, []step{
			{session: "a", state: "working"},
			{advance: time.Hour, session: "a", state: "stale"},
			{advance: time.Second, session: "a", state: "idle"},
		}},
		{"after-working and after", "idle", watchOptions{afterWorking: time.Minute, after: 10 * time.Second}, []step{
			{session: "a", state: "working"},
			{advance: time.Minute, session: "a", state: "idle"},
			{advance: 10 * time.Second, runs: []string{"a@1m10s"}},
		}},
		{"cooldown: skips, per session", "blocked", watchOptions{cooldown: time.Minute}, []step{
			{session: "a", state: "blocked", runs: []string{"a@0s"}},
			{advance: 10 * time.Second, session: "a", state: "working"},
			{session: "a", state: "blocked"},
			{session: "b", state: "blocked", runs: []string{"b@10s"}},
			{advance: 50 * time.Second, session: "a", state: "working"},
			{session: "a", state: "blocked", runs: []string{"a@1m0s"}},
		}},
		{"cooldown: survives a removal", "blocked", watchOptions{cooldown: time.Minute}, []step{
			{session: "a", state: "blocked", runs: []string{"a@0s"}},
			{advance: time.Second, session: "a", state: "removed"},
			{advance: time.Second, session: "a", state: "blocked"},
		}},
		{"cooldown with after", "blocked", watchOptions{after: 30 * time.Second, cooldown: 5 * time.Minute}, []step{
			{session: "a", state: "blocked"},
			{advance: 30 * time.Second, session: "a", state: "working", runs: []string{"a@30s"}},
			{session: "a", state: "blocked"},
			{advance: time.Minute},
			{advance: 5 * time.Minute, session: "a", state: "working"},
			{session: "a", state: "blocked"},
			{advance: 30 * time.Second, runs: []string{"a@7m0s"}},
		}},
	}
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := clocktest.New(t0)
			o := tt.flags
			o.onStates = strings.Split(tt.on, ",")
			var runs []string
			trig := newTrigger(&o, clock, func(e *reader.Entry, line []byte, extra []string) {
				if string(line) != "line of "+e.Status.Session || !slices.Equal(extra, []string{"X=1"}) {
					t.Errorf("run with line %q, extra %q", line, extra)
				}
				run := fmt.Sprintf("%s@%v", e.Status.Session, clock.Now().Sub(t0))
				if tool := e.Status.WaitingFor.Tool; tool != "" {
					run += " " + tool
				}
				runs = append(runs, run)
			})
			defer trig.stop()
			var want []string
			for i, st := range tt.steps {
				clock.Advance(st.advance)
				select {
				case <-trig.C():
					trig.fire()
				default:
				}
				if st.session != "" {
					c := render.Event{Kind: string(watch.Updated), Entry: &reader.Entry{Name: statusfile.FileName(st.session), Verdict: reader.Fresh,
						Status: statusfile.Status{Session: st.session, State: statusfile.State(st.state)}}}
					s := &c.Entry.Status
					switch st.state {
					case "removed":
						c.Kind = string(watch.Removed)
					case "stale":
						c.Entry.Verdict = reader.Stale
						s.State = statusfile.Working
					case "blocked":
						s.WaitingFor = statusfile.Waiting{Kind: "permission", Tool: st.tool}
						if st.since != 0 {
							s.WaitingFor.Since = t0.Add(st.since)
						}
					case "idle":
						if st.since != 0 {
							s.Ended = statusfile.Ended{Reason: "done", At: t0.Add(st.since)}
						}
					}
					trig.see(st.session, &c, []byte("line of "+st.session), "X=1")
				}
				want = append(want, st.runs...)
				if !slices.Equal(runs, want) {
					t.Fatalf("step %d: runs %q, want %q", i, runs, want)
				}
			}
			// One timer at most, and none once nothing is pending.
			if armed := clock.Armed(); len(armed) > 1 {
				t.Errorf("timers armed: %v", armed)
			}
		})
	}
}
