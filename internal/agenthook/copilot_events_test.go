package agenthook

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

// The signals of a real Copilot CLI 1.0.102 session log, line by line
// (testdata/copilot-events/: a prompt, an approved command, a denied one,
// Esc Esc in an approved one, a streamed answer; the CLI's own
// instructions and tool list left out).
func TestCopilotEventsReal(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "copilot-events", "events-1.0.102.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]statusfile.State{
		7: statusfile.Working, 15: statusfile.Working,
		21: statusfile.Blocked, 24: statusfile.Working, // approved
		36: statusfile.Working, 42: statusfile.Blocked, 47: statusfile.Idle, // denied: cancelled, then abort
		50: statusfile.Working, 56: statusfile.Blocked, 59: statusfile.Working, 61: statusfile.Idle, // Esc Esc in the tool
		64: statusfile.Working,
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, line := range lines {
		st, since, ok := CopilotEventsState(line, "s", 1)
		w, signal := want[i+1]
		if ok != signal || st != w || (ok && since == "") {
			t.Errorf("line %d: %q %q %v, want %q", i+1, st, since, ok, w)
		}
	}
	// Read at once, the last signal wins.
	if st, since, ok := CopilotEventsState(bytes.Join(lines[40:62], nil), "s", 1); !ok || st != statusfile.Idle || since != "637f1f7a-12e1-4093-8d64-19be379ed082" {
		t.Errorf("lines 41-62: %q %q %v", st, since, ok)
	}
}

// A real session log with an HTTP 400, which ends the turn (session.error
// after the errorOccurred hook), and a prompt whose first two requests got
// HTTP 429, which Copilot CLI retried: only hook lines until the answer.
func TestCopilotEventsErrors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "copilot-events", "events-1.0.102-errors.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]statusfile.State{5: statusfile.Working, 10: statusfile.Idle, 13: statusfile.Working}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, line := range lines {
		st, _, ok := CopilotEventsState(line, "s", 1)
		if w, signal := want[i+1]; ok != signal || st != w {
			t.Errorf("line %d: %q %v, want %q", i+1, st, ok, w)
		}
	}
	if e := SourceEnded(SourceCopilotEvents, lines[9]); e.Reason != "failed" || e.Detail != "400 e2e: scripted failure 400" {
		t.Errorf("session.error ends the turn %+v", e)
	}
	// The retried requests' lines, read at once, say nothing.
	if st, _, ok := CopilotEventsState(bytes.Join(lines[13:19], nil), "s", 1); ok {
		t.Errorf("the retries say %q", st)
	}
}

func TestCopilotEventsState(t *testing.T) {
	tests := []struct {
		name, data string
		state      statusfile.State
	}{
		{"denied", `{"type":"permission.completed","id":"1","data":{"result":{"kind":"denied-interactively-by-user"}}}`, ""},
		{"question", `{"type":"user_input.requested","id":"1","data":{}}`, statusfile.Blocked},
		{"form", `{"type":"elicitation.requested","id":"1","data":{}}`, statusfile.Blocked},
		{"answered", `{"type":"elicitation.completed","id":"1","data":{}}`, statusfile.Working},
		{"not JSON", `abort`, ""},
		{"type not a string", `{"type":["abort"],"id":"1"}`, ""},
		{"a turn's end is not the session's", `{"type":"assistant.turn_end","id":"1","data":{"turnId":"0"}}`, ""},
		{"blank", "\n\n", ""},
	}
	for _, tt := range tests {
		st, _, ok := CopilotEventsState([]byte(tt.data), "s", 1)
		if ok != (tt.state != "") || st != tt.state {
			t.Errorf("%s: %q %v, want %q", tt.name, st, ok, tt.state)
		}
	}
}

func TestCopilotEventsPath(t *testing.T) {
	const s = "23021302-8718-419a-86db-f8aa3e3c6593"
	for _, tt := range []struct{ home, session, want string }{
		{"/home/user/.copilot", s, "/home/user/.copilot/session-state/" + s + "/events.jsonl"},
		{"/opt/copilot/", s, "/opt/copilot/session-state/" + s + "/events.jsonl"},
		{"rel", s, ""},
		{"", s, ""},
		{"/h", "../x", ""},
		{"/h", "a/b", ""},
		{"/h", `a\b`, ""},
		{"/h", "..", ""},
		{"/h", "", ""},
	} {
		got, ok := CopilotEventsPath(tt.home, tt.session)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("CopilotEventsPath(%q, %q) = %q %v, want %q", tt.home, tt.session, got, ok, tt.want)
		}
	}
}

// FuzzCopilotEvents: any appended data gives a known state or nothing,
// and what it gives is what its last line with a signal gives alone.
func FuzzCopilotEvents(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "copilot-events", "events-1.0.102.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"type":"abort","id":"x"}` + "\n" + `{"type":"user.message"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, since, ok := CopilotEventsState(data, "s", 1)
		if !ok {
			if st != "" || since != "" {
				t.Fatalf("not ok, but %q %q", st, since)
			}
			return
		}
		if !st.Known() {
			t.Fatalf("state %q", st)
		}
		lines := bytes.Split(data, []byte("\n"))
		for i := len(lines) - 1; i >= 0; i-- {
			if s, sn, ok := CopilotEventsState(lines[i], "s", 1); ok {
				if s != st || sn != since {
					t.Fatalf("last line says %q %q; all says %q %q", s, sn, st, since)
				}
				return
			}
		}
		t.Fatal("no line says anything, but the whole does")
	})
}

// A real session log with a background subagent (the task tool's mode
// "background", recorded by the harness): the turn that started it ended
// at once, its Stop hook ran (line 34) while the subagent's dialog was up
// (line 32), and when the subagent was done (line 46) the agent took a
// turn of its own. The subagent's own lines carry its agentId.
func TestCopilotBackgroundReal(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "copilot-events", "events-1.0.102-background.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	type counted struct {
		agents int
		wait   statusfile.Waiting
	}
	want := map[int]counted{ // line: the agents still running, the dialog open
		34: {1, statusfile.Waiting{Kind: "permission", Detail: "sleep 8; echo sub"}},
		46: {0, statusfile.Waiting{}},
	}
	var b CopilotBackground
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		bg, wait, since, ok := b.Line(line)
		w, signal := want[i+1]
		if ok != signal || bg != (statusfile.Background{Agents: w.agents}) || wait != w.wait || ok && since == "" {
			t.Errorf("line %d: %+v %+v %q %v, want %+v (%v)", i+1, bg, wait, since, ok, w, signal)
		}
	}
	// The session's own Stop with nothing in the background (the last
	// line), a subagent's own Stop, and a sync subagent's end say nothing.
	var fresh CopilotBackground
	for _, line := range []string{
		`{"type":"hook.end","data":{"hookInvocationId":"d316e7cf","hookType":"agentStop","success":true},"id":"e1c39f24"}`,
		`{"type":"subagent.started","data":{"agentName":"general-purpose","executionMode":"sync"},"agentId":"e2579319","id":"a1"}`,
		`{"type":"hook.end","data":{"hookType":"agentStop","success":true},"agentId":"e2579319","id":"a2"}`,
		`{"type":"subagent.completed","data":{"agentName":"general-purpose"},"agentId":"e2579319","id":"a3"}`,
		`not json`,
	} {
		if bg, wait, since, ok := fresh.Line([]byte(line)); ok {
			t.Errorf("%s: %+v %+v %q", line, bg, wait, since)
		}
	}
	if SourceBackground(SourceCopilotEvents) == nil || SourceBackground(SourceCodexRollout) != nil {
		t.Error("SourceBackground: only Copilot CLI's session log counts background agents")
	}
}

// The session log goes on across the session's processes: a resumed
// session's process appends session.resume, and runs none of the
// background agents of the one before. Reported, their count goes; never
// reported, nothing changes.
func TestCopilotBackgroundNextProcess(t *testing.T) {
	started := `{"type":"subagent.started","data":{"executionMode":"background"},"agentId":"a1","id":"1"}`
	stop := `{"type":"hook.end","data":{"hookType":"agentStop"},"id":"2"}`
	asks := `{"type":"permission.requested","data":{"promptRequest":{"fullCommandText":"sleep 8"}},"agentId":"a1","id":"3"}`
	for _, end := range []string{"session.resume", "session.shutdown", "session.start"} {
		next := `{"type":"` + end + `","data":{},"id":"4"}`
		var b CopilotBackground
		for _, line := range []string{started, stop, asks} {
			b.Line([]byte(line))
		}
		if bg, wait, since, ok := b.Line([]byte(next)); !ok || bg != (statusfile.Background{}) || wait != (statusfile.Waiting{}) || since != "4" {
			t.Errorf("%s after a reported agent: %+v %+v %q %v, want a count of none", end, bg, wait, since, ok)
		}
		if bg, wait, _, ok := b.Line([]byte(stop)); ok {
			t.Errorf("%s, then a Stop: %+v %+v, want nothing running", end, bg, wait)
		}
		var quiet CopilotBackground
		quiet.Line([]byte(started))
		if bg, _, _, ok := quiet.Line([]byte(next)); ok {
			t.Errorf("%s after an agent never reported: %+v", end, bg)
		}
		if bg, _, _, ok := quiet.Line([]byte(stop)); ok {
			t.Errorf("%s, then a Stop: %+v, want nothing running", end, bg)
		}
	}
}

// A real session log whose sync subagent's model request failed (HTTP
// 400, not retried; recorded by the harness): the subagent's own turn
// ended with session.error (line 24, with its agentId), and the
// session's turn went on (the task tool's PostToolUseFailure 9 ms later,
// then its answer and Stop). Its session.error once ended the session's
// turn in the record, failed.
func TestCopilotEventsSubagentFails(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "copilot-events", "events-1.0.102-subagent-fails.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	want := map[int]statusfile.State{7: statusfile.Working, 19: statusfile.Working} // the session's prompt, the subagent's
	for i, line := range lines {
		st, _, ok := CopilotEventsState(line, "s", 1)
		if w, signal := want[i+1]; ok != signal || st != w {
			t.Errorf("line %d: %q %v, want %q", i+1, st, ok, w)
		}
	}
	if st, _, ok := CopilotEventsState(data, "s", 1); !ok || st != statusfile.Working {
		t.Errorf("the whole log: %q %v, want working", st, ok)
	}
	if e := CopilotEventsEnded(data); e != (statusfile.Ended{}) {
		t.Errorf("the whole log ended the turn %+v", e)
	}
	// The same line without the subagent's agentId is the session's own
	// end of its turn.
	own := regexp.MustCompile(`,"agentId":"[^"]*"`).ReplaceAll(lines[23], nil)
	if st, _, ok := CopilotEventsState(own, "s", 1); !ok || st != statusfile.Idle {
		t.Errorf("the session's own session.error: %q %v, want idle", st, ok)
	}
	if e := CopilotEventsEnded(own); e.Reason != "failed" || e.Detail != "400 e2e: scripted failure 400" {
		t.Errorf("the session's own session.error ended the turn %+v", e)
	}
	// A subagent's abort (Esc Esc while it runs) is not the session's
	// either.
	abort := []byte(`{"type":"abort","data":{"reason":"user_initiated"},"agentId":"63b010a5-7f49-45fa-b379-d68a242976d4","id":"a1"}`)
	if st, _, ok := CopilotEventsState(abort, "s", 1); ok {
		t.Errorf("a subagent's abort: %q", st)
	}
	if e := CopilotEventsEnded(abort); e != (statusfile.Ended{}) {
		t.Errorf("a subagent's abort ended the turn %+v", e)
	}
}

// A real session log with a background shell (bash mode "async", recorded
// by the harness): the tool's result names its shellId (line 17), the turn
// ended at once (the hook.end of its Stop, line 24) while the shell ran,
// and its end (the system notification, line 27, written after the
// agent's own turn began) takes it off.
func TestCopilotBackgroundShellReal(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "copilot-events", "events-1.0.102-background-shell.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]statusfile.Background{24: {Tasks: 1}, 27: {}}
	var b CopilotBackground
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		bg, wait, since, ok := b.Line(line)
		w, signal := want[i+1]
		if ok != signal || bg != w || wait != (statusfile.Waiting{}) || ok && since == "" {
			t.Errorf("line %d: %+v %+v %q %v, want %+v (%v)", i+1, bg, wait, since, ok, w, signal)
		}
	}
	// A sync command whose initial_wait ran out goes on in the
	// background; a detached one is not the session's; another
	// notification, and a shell never seen to start, say nothing.
	for _, tt := range []struct {
		started string
		counted bool
	}{
		{"<command with shellId: build is still running after 30 seconds. You will be notified>", true},
		{"<command started in background with shellId: 7>", true},
		{"<command started in detached background with shellId: 7. You will be automatically notified when it completes.>", false},
		{"bg\n<shellId: 0 completed with exit code 0>", false},
	} {
		var b CopilotBackground
		b.Line([]byte(`{"type":"tool.execution_complete","data":{"success":true,"result":{"content":` + strconv.Quote(tt.started) + `}},"id":"1"}`))
		bg, _, _, ok := b.Line([]byte(`{"type":"hook.end","data":{"hookType":"agentStop"},"id":"2"}`))
		if ok != tt.counted || tt.counted && bg != (statusfile.Background{Tasks: 1}) {
			t.Errorf("%q, then the Stop: %+v %v, want counted %v", tt.started, bg, ok, tt.counted)
		}
	}
	var fresh CopilotBackground
	for _, line := range []string{
		`{"type":"system.notification","data":{"kind":{"type":"shell_completed","shellId":"0"}},"id":"3"}`,
		`{"type":"system.notification","data":{"kind":{"type":"agent_idle","agentId":"0"}},"id":"4"}`,
	} {
		if bg, _, _, ok := fresh.Line([]byte(line)); ok {
			t.Errorf("%s: %+v", line, bg)
		}
	}
}
