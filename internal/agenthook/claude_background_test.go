package agenthook

import (
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Stop while work the turn started runs on (Claude Code 2.1.332's
// background_tasks, SPEC.md §4.4): working, with what runs, until a Stop
// says nothing runs.
func TestClaudeStopBackground(t *testing.T) {
	const head = `{"session_id":"s1","cwd":"/p","hook_event_name":"Stop","stop_hook_active":false`
	tests := []struct {
		name   string
		extra  string
		state  statusfile.State
		ended  string
		counts statusfile.Background
	}{
		{"older versions: no list", ``, statusfile.Idle, "done", statusfile.Background{}},
		{"nothing in flight", `,"background_tasks":[],"session_crons":[]`, statusfile.Idle, "done", statusfile.Background{}},
		{"a background agent", `,"background_tasks":[{"id":"a1","type":"subagent","status":"running","description":"e2e subagent","agent_type":"general-purpose"}]`,
			statusfile.Working, "", statusfile.Background{Agents: 1}},
		{"two shells and an agent", `,"background_tasks":[{"id":"b1","type":"shell","status":"running","description":"x","command":"sleep 9"},` +
			`{"id":"b2","type":"shell","status":"pending","description":"y"},{"id":"a1","type":"subagent","status":"running","description":"z"}]`,
			statusfile.Working, "", statusfile.Background{Agents: 1, Tasks: 2}},
		{"a monitor", `,"background_tasks":[{"id":"m1","type":"monitor","status":"running","description":"m","server":"s","tool":"t"}]`,
			statusfile.Working, "", statusfile.Background{Tasks: 1}},
		{"finished entries do not count", `,"background_tasks":[{"id":"a1","type":"subagent","status":"completed","description":"z"}]`,
			statusfile.Idle, "done", statusfile.Background{}},
		{"a cron wakes it later: nothing runs now", `,"background_tasks":[],"session_crons":[{"id":"c1","schedule":"0 * * * *"}]`,
			statusfile.Idle, "done", statusfile.Background{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Claude([]byte(head + tt.extra + "}"))
			if err != nil {
				t.Fatal(err)
			}
			if a.State != tt.state || a.Ended.Reason != tt.ended {
				t.Errorf("state %q ended %q, want %q %q", a.State, a.Ended.Reason, tt.state, tt.ended)
			}
			if a.Background == nil || *a.Background != tt.counts {
				t.Errorf("background %+v, want %+v", a.Background, tt.counts)
			}
		})
	}
	// Other events leave the count as it is.
	for _, ev := range []string{"UserPromptSubmit", "SubagentStop", "PreToolUse"} {
		a, err := Claude([]byte(`{"session_id":"s1","cwd":"/p","hook_event_name":"` + ev + `","agent_id":"a1"}`))
		if err != nil {
			t.Fatal(err)
		}
		if a.Background != nil {
			t.Errorf("%s: background %+v, want kept", ev, a.Background)
		}
	}
}
