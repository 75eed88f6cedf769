//go:build unix

package hooksession

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

// ownerOf plays the session's heartbeat owner for this process: it holds
// the owner lock, so that the update stamps stay, and follows nothing.
func ownerOf(t *testing.T, dir, session string) *owner {
	t.Helper()
	s, err := openSession(dir, session, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	lock, err := s.TryRecordLock(s.ownerName)
	if err != nil || lock == nil {
		t.Fatalf("owner lock: %v", err)
	}
	t.Cleanup(func() { lock.Release() })
	return &owner{s: s, lock: lock, agent: watch(os.Getpid())}
}

// A source's idle while background work runs: how the turn ended stays
// where the source's line says it (Codex's rollout, whose subagents never
// wake the agent: turnEnd), and goes where the file only went idle and
// background work may have ended (Claude Code's session file).
func TestApplyObservedEndWithBackground(t *testing.T) {
	failed := statusfile.Ended{Reason: "failed", Detail: "400"}
	tests := []struct {
		name    string
		turnEnd bool
		want    string
	}{
		{"Codex: a failed turn while a subagent runs", true, "failed"},
		{"a file that only goes idle", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "agent-status")
			if err := Set(dir, "s", Change{State: statusfile.Working, PID: os.Getpid()}, "/", ""); err != nil {
				t.Fatal(err)
			}
			o := ownerOf(t, dir, "s")
			o.applyObserved(observed{state: statusfile.Idle, stamp: issueStamp(), ended: failed,
				background: &statusfile.Background{Agents: 1}, turnEnd: tt.turnEnd})
			rec, _, err := o.s.read()
			if err != nil {
				t.Fatal(err)
			}
			if rec.State != statusfile.Idle || rec.Ended.Reason != tt.want || rec.Background.Agents != 1 {
				t.Errorf("got %s, ended %+v, %+v; want idle, ended %q, 1 agent", rec.State, rec.Ended, rec.Background, tt.want)
			}
		})
	}
}

// A subagent's event that the subagent hold takes nothing from does not
// make an older hook of the session's look stale: its Stop, started first
// but locked second, still ends the turn.
func TestSubagentEventKeepsOlderStop(t *testing.T) {
	var st fieldStamps
	cur, found := statusfile.Status{State: statusfile.Working, PID: 1}, true
	for _, u := range []struct {
		ch     Change
		issued int64
	}{
		{Change{State: statusfile.Working, Subagent: true}, 20},                       // its PostToolUse
		{Change{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "done"}}, 10}, // the session's Stop
	} {
		ch := u.ch
		ch.PID = 1
		st.orderAndHold(&ch, u.issued, cur, found)
		cur = ch.apply(cur, found, "/", time.Unix(1, 0))
	}
	if cur.State != statusfile.Idle || cur.Ended.Reason != "done" {
		t.Errorf("after the session's Stop: %s, ended %q; want idle, done", cur.State, cur.Ended.Reason)
	}
}
