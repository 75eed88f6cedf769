package agenthook

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Copilot CLI 1.0.102 runs ErrorOccurred (model_call, recoverable) for
// each attempt of a request it retries (HTTP 429, testdata/copilot/
// real-error-occurred-429.json) with the same payload as for a request
// that ends the turn (HTTP 400, real-error-occurred-400.json, and the last
// attempt of a 429 whose retries ran out): the hook keeps the turn
// working, and the session log's session.error, which only a turn's end
// writes, says how it ended.
func TestCopilotModelErrors(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		kind    Kind
		state   statusfile.State
		ended   statusfile.Ended
	}{
		{"real 429, retried", "@real-error-occurred-429.json", Set, statusfile.Working, statusfile.Ended{}},
		{"real 400, ended by the session log", "@real-error-occurred-400.json", Set, statusfile.Working, statusfile.Ended{}},
		{"recoverable", `{"session_id":"s","hook_event_name":"ErrorOccurred","error":{"message":"429 Too Many Requests","name":"Error"},"error_context":"model_call","recoverable":true}`,
			Set, statusfile.Working, statusfile.Ended{}},
		// Nothing is retried after it: the hook's word ends the turn.
		{"not recoverable", `{"session_id":"s","hook_event_name":"ErrorOccurred","error":{"message":"401 Unauthorized","name":"Error"},"error_context":"model_call","recoverable":false}`,
			Set, statusfile.Idle, statusfile.Ended{Reason: "failed", Detail: "401 Unauthorized"}},
		{"recoverable, of a tool", `{"session_id":"s","hook_event_name":"ErrorOccurred","error":{"message":"x","name":"Error"},"error_context":"tool_execution","recoverable":true}`,
			Ignore, "", statusfile.Ended{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Action
			if file, ok := bytes.CutPrefix([]byte(tt.payload), []byte("@")); ok {
				a = mapFixture(t, Copilot, "copilot", string(file))
			} else {
				a = mapPayload(t, Copilot, tt.payload)
			}
			if a.Kind != tt.kind || a.State != tt.state {
				t.Errorf("action %v %q, want %v %q", a.Kind, a.State, tt.kind, tt.state)
			}
			checkWhy(t, a, statusfile.Waiting{}, tt.ended)
		})
	}
	// A recoverable that is not a boolean refuses the payload, as any
	// field of the wrong type does.
	checkBadInput(t, "copilot", Copilot, `{"session_id":"s","hook_event_name":"ErrorOccurred","error_context":"model_call","recoverable":"true"}`)
}

// A real session log of a request whose retries ran out (HTTP 429 six
// times, testdata/copilot-events/events-1.0.102-rate-limit.jsonl): the
// attempts write only their hook's lines, which say nothing; the last one
// is followed by assistant.turn_end and session.error ("errorType":
// "rate_limit", "statusCode":429), which ends the turn rate limited.
func TestCopilotEventsRateLimit(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "copilot-events", "events-1.0.102-rate-limit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != 18 {
		t.Fatalf("%d lines, want 18", len(lines))
	}
	want := map[int]statusfile.State{3: statusfile.Working, 18: statusfile.Idle}
	for i, line := range lines {
		st, _, ok := CopilotEventsState(line, "s", 1)
		if w, signal := want[i+1]; ok != signal || st != w {
			t.Errorf("line %d: %q %v, want %q", i+1, st, ok, w)
		}
	}
	// The six attempts, read at once, say nothing: the hook's working
	// stands.
	if st, _, ok := CopilotEventsState(bytes.Join(lines[3:16], nil), "s", 1); ok {
		t.Errorf("the retries say %q", st)
	}
	// Read at once with the end, as the owner reads what was appended.
	st, _, ok := CopilotEventsState(bytes.Join(lines[3:], nil), "s", 1)
	if !ok || st != statusfile.Idle {
		t.Errorf("the end says %q %v", st, ok)
	}
	if e := SourceEnded(SourceCopilotEvents, bytes.Join(lines[3:], nil)); e != (statusfile.Ended{Reason: "rate_limited", Detail: "rate_limit"}) {
		t.Errorf("session.error of a 429 ends the turn %+v", e)
	}
}

// How session.error ends a turn: rate limited by its status or its
// kind, failed with its message otherwise.
func TestCopilotEventsErrorEnded(t *testing.T) {
	tests := []struct {
		name, line string
		want       statusfile.Ended
	}{
		{"400", `{"type":"session.error","data":{"errorType":"query","message":"400 bad","statusCode":400}}`,
			statusfile.Ended{Reason: "failed", Detail: "400 bad"}},
		{"429 by its status", `{"type":"session.error","data":{"errorType":"query","message":"429 slow down","statusCode":429}}`,
			statusfile.Ended{Reason: "rate_limited", Detail: "rate_limit"}},
		{"429 with no kind", `{"type":"session.error","data":{"message":"429 slow down","statusCode":429}}`,
			statusfile.Ended{Reason: "rate_limited", Detail: "rate_limit"}},
		{"a rate limit by its kind", `{"type":"session.error","data":{"errorType":"rate_limit","message":"quota"}}`,
			statusfile.Ended{Reason: "rate_limited", Detail: "rate_limit"}},
		{"500", `{"type":"session.error","data":{"errorType":"server","message":"500 oops","statusCode":500}}`,
			statusfile.Ended{Reason: "failed", Detail: "500 oops"}},
		// A status that is not a number says nothing of the line.
		{"status not a number", `{"type":"session.error","data":{"message":"m","statusCode":"429"}}`, statusfile.Ended{}},
	}
	for _, tt := range tests {
		if got := CopilotEventsEnded([]byte(tt.line)); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
