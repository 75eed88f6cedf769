package acpbridge

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

var t0 = time.Date(2026, 12, 2, 13, 0, 0, 0, time.UTC)

// step is one line and the record it must leave: "-" no update, "gone",
// or "STATE|TITLE|WHY|CWD" with WHY in SPEC.md Y7's words.
type step struct {
	d    Direction
	line string
	want string
}

const (
	ed = FromEditor
	ag = FromAgent
)

const (
	initReq  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`
	initResp = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}`
	newReq   = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/src/app","mcpServers":[]}}`
	newResp  = `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S1"}}`
	prompt2  = `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"S1","prompt":[{"type":"text","text":"\n  Fix the tests\nin app"}]}}`
)

func resp(id int, stop string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":%q}}`, id, stop)
}

func perm(id int, kind, title string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"sessionId":"S1","toolCall":{"toolCallId":"t%d","title":%q,"kind":%q},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}`, id, id, title, kind)
}

func answer(id int, outcome string) string {
	if outcome == "cancelled" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"outcome":{"outcome":"cancelled"}}}`, id)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"outcome":{"outcome":"selected","optionId":%q}}}`, id, outcome)
}

func update(u string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S1","update":` + u + `}}`
}

var opening = []step{
	{ed, initReq, "-"},
	{ag, initResp, "-"},
	{ed, newReq, "-"},
	{ag, newResp, "idle|||/src/app"},
}

func TestTracker(t *testing.T) {
	const working = "working|Fix the tests||/src/app"
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"turn ends done", []step{
			{ed, prompt2, working},
			{ag, update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"ok"}}`), "-"},
			{ag, update(`{"sessionUpdate":"tool_call","toolCallId":"t","title":"ls","kind":"execute","status":"pending"}`), "-"},
			{ag, resp(2, "end_turn"), "idle|Fix the tests|done|/src/app"},
		}},
		{"permission allowed then done", []step{
			{ed, prompt2, working},
			{ag, perm(7, "execute", "rm -rf build"), "blocked|Fix the tests|execute: rm -rf build|/src/app"},
			{ed, answer(7, "allow"), working},
			{ag, resp(2, "end_turn"), "idle|Fix the tests|done|/src/app"},
		}},
		{"permission rejected, the turn goes on", []step{
			{ed, prompt2, working},
			{ag, perm(7, "edit", "Edit main.go"), "blocked|Fix the tests|edit: Edit main.go|/src/app"},
			{ed, answer(7, "reject"), working},
			{ag, resp(2, "end_turn"), "idle|Fix the tests|done|/src/app"},
		}},
		{"two permissions, answered in turn", []step{
			{ed, prompt2, working},
			{ag, perm(7, "execute", "make"), "blocked|Fix the tests|execute: make|/src/app"},
			{ag, perm(8, "edit", "a.go"), "blocked|Fix the tests|edit: a.go|/src/app"},
			{ed, answer(8, "allow"), "blocked|Fix the tests|execute: make|/src/app"},
			{ed, answer(7, "allow"), working},
		}},
		{"cancel during a permission", []step{
			{ed, prompt2, working},
			{ag, perm(7, "execute", "sleep 60"), "blocked|Fix the tests|execute: sleep 60|/src/app"},
			{ed, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"S1"}}`, "-"},
			{ed, answer(7, "cancelled"), working},
			{ag, resp(2, "cancelled"), "idle|Fix the tests|cancelled|/src/app"},
		}},
		{"cancel, then an agent that answers end_turn", []step{
			{ed, prompt2, working},
			{ed, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"S1"}}`, "-"},
			{ag, resp(2, "end_turn"), "idle|Fix the tests|cancelled|/src/app"},
		}},
		{"cancel, then an error", []step{
			{ed, prompt2, working},
			{ed, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"S1"}}`, "-"},
			{ag, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"aborted"}}`, "idle|Fix the tests|cancelled|/src/app"},
		}},
		{"refusal", []step{{ed, prompt2, working}, {ag, resp(2, "refusal"), "idle|Fix the tests|failed: refusal|/src/app"}}},
		{"max_tokens", []step{{ed, prompt2, working}, {ag, resp(2, "max_tokens"), "idle|Fix the tests|failed: max_tokens|/src/app"}}},
		{"max_turn_requests", []step{{ed, prompt2, working}, {ag, resp(2, "max_turn_requests"), "idle|Fix the tests|failed: max_turn_requests|/src/app"}}},
		{"a future stop reason", []step{{ed, prompt2, working}, {ag, resp(2, "_paused"), "idle|Fix the tests|failed: _paused|/src/app"}}},
		{"error", []step{
			{ed, prompt2, working},
			{ag, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error\nstack","data":{"details":"boom"}}}`, "idle|Fix the tests|failed: Internal error|/src/app"},
		}},
		{"rate limited error", []step{
			{ed, prompt2, working},
			{ag, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"[API Error: You exceeded your current quota (status 429)]"}}`, "idle|Fix the tests|rate limited|/src/app"},
		}},
		{"rate limited by code", []step{
			{ed, prompt2, working},
			{ag, `{"jsonrpc":"2.0","id":2,"error":{"code":429,"message":"slow down"}}`, "idle|Fix the tests|rate limited|/src/app"},
		}},
		{"the agent's title wins over the prompt", []step{
			{ag, update(`{"sessionUpdate":"session_info_update","title":"Fixing app tests"}`), "idle|Fixing app tests||/src/app"},
			{ed, prompt2, "working|Fixing app tests||/src/app"},
			{ag, update(`{"sessionUpdate":"session_info_update","title":null}`), "working|||/src/app"},
			{ag, update(`{"sessionUpdate":"session_info_update","updatedAt":"2026-12-02T13:00:00Z"}`), "-"},
		}},
		{"the first prompt titles, the second does not", []step{
			{ed, prompt2, working},
			{ag, resp(2, "end_turn"), "idle|Fix the tests|done|/src/app"},
			{ed, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"S1","prompt":[{"type":"text","text":"And the docs"}]}}`, working},
		}},
		{"state_update first, then the v1 response agrees", []step{
			{ed, prompt2, working},
			{ag, update(`{"sessionUpdate":"state_update","state":"requires_action"}`), "blocked|Fix the tests||/src/app"},
			{ag, update(`{"sessionUpdate":"state_update","state":"running"}`), working},
			{ag, update(`{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}`), "idle|Fix the tests|done|/src/app"},
			{ag, resp(2, "end_turn"), "-"},
		}},
		{"v2: the prompt's response only accepts", []step{
			{ed, initReq, "-"},
			{ag, strings.Replace(initResp, `"protocolVersion":1`, `"protocolVersion":2`, 1), "-"},
			{ed, prompt2, working},
			{ag, `{"jsonrpc":"2.0","id":2,"result":{}}`, "-"},
			{ag, update(`{"sessionUpdate":"state_update","state":"idle","stopReason":"cancelled"}`), "idle|Fix the tests|cancelled|/src/app"},
			{ag, update(`{"sessionUpdate":"state_update","state":"_custom"}`), "-"},
		}},
		{"session/close removes", []step{
			{ed, `{"jsonrpc":"2.0","id":9,"method":"session/close","params":{"sessionId":"S1"}}`, "-"},
			{ag, `{"jsonrpc":"2.0","id":9,"result":{}}`, "gone"},
		}},
		{"failed session/close keeps", []step{
			{ed, `{"jsonrpc":"2.0","id":9,"method":"session/close","params":{"sessionId":"S1"}}`, "-"},
			{ag, `{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found"}}`, "-"},
		}},
		{"elicitation", []step{
			{ed, prompt2, working},
			{ag, `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"sessionId":"S1","message":"Which database?","mode":"form"}}`, "blocked|Fix the tests|question: Which database?|/src/app"},
			{ed, `{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{}}}`, working},
		}},
		{"v2 permission names its title and a command", []step{
			{ed, prompt2, working},
			{ag, `{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"S1","title":"Run a command","subject":{"type":"command","command":"make test"},"options":[]}}`, "blocked|Fix the tests|permission: make test|/src/app"},
		}},
		{"nothing from what the tracker does not know", []step{
			{ed, `not json`, "-"},
			{ed, `{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file","params":{"sessionId":"S1","path":"/x"}}`, "-"},
			{ag, `{"jsonrpc":"2.0","id":5,"result":{"content":""}}`, "-"},
			{ag, `{"jsonrpc":"2.0","id":77,"result":{"stopReason":"end_turn"}}`, "-"},
			{ag, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S1","update":{"sessionUpdate":`, "-"},
			{ed, `[1,2`, "-"},
			{ed, `"string"`, "-"},
		}},
		{"a batch is read element by element", []step{
			{ed, `[` + prompt2 + `,{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"S1"}}]`, working},
			{ag, `[` + resp(2, "end_turn") + `]`, "idle|Fix the tests|cancelled|/src/app"},
		}},
		{"a batch of a streamed update and a permission request", []step{
			{ed, prompt2, working},
			{ag, `[{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}},` +
				`{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"S1","toolCall":{"toolCallId":"t","title":"ls","kind":"execute"},"options":[]}}]`,
				"blocked|Fix the tests|execute: ls|/src/app"},
		}},
		{"a prompt of a session the tracker missed", []step{
			{ed, strings.ReplaceAll(prompt2, "S1", "S2"), "S2 working|Fix the tests||"},
			{ag, strings.ReplaceAll(resp(2, "end_turn"), "S1", "S2"), "S2 idle|Fix the tests|done|"},
		}},
		{"a session id that cannot name a record", []step{
			{ed, strings.ReplaceAll(prompt2, "S1", `S\u0007`), "-"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(func() time.Time { return t0 })
			for i, st := range append(append([]step{}, opening...), tc.steps...) {
				ups := tr.Observe(st.d, []byte(st.line), false)
				if len(ups) > 0 && !Worth([]byte(st.line)) {
					t.Fatalf("step %d: Worth skips a line that updates: %s", i, st.line)
				}
				if got := describe(ups); got != st.want && !(st.want == "-" && got == "-") {
					t.Fatalf("step %d (%s %s): got %s, want %s", i, st.d, st.line, got, st.want)
				}
			}
		})
	}
}

// describe is updates in the words of a step's want.
func describe(ups []Update) string {
	if len(ups) == 0 {
		return "-"
	}
	var out []string
	for _, u := range ups {
		prefix := ""
		if u.Session != SessionPrefix+"S1" {
			prefix = strings.TrimPrefix(u.Session, SessionPrefix) + " "
		}
		if u.Gone {
			out = append(out, prefix+"gone")
			continue
		}
		r := u.Record
		st := statusfile.Status{State: r.State, WaitingFor: r.Waiting, Ended: r.Ended}
		out = append(out, fmt.Sprintf("%s%s|%s|%s|%s", prefix, r.State, r.Title, st.Why(), r.Cwd))
	}
	return strings.Join(out, "; ")
}

func TestTrackerStamps(t *testing.T) {
	tr := NewTracker(func() time.Time { return t0 })
	for _, l := range []string{newReq, newResp, prompt2} {
		tr.Observe(ed, []byte(l), false)
	}
	ups := tr.Observe(ag, []byte(perm(7, "execute", "make")), false)
	if len(ups) != 1 || !ups[0].Record.Waiting.Since.Equal(t0) {
		t.Fatalf("wait not stamped: %+v", ups)
	}
	ups = tr.Observe(ag, []byte(resp(2, "end_turn")), false)
	if len(ups) != 1 || !ups[0].Record.Ended.At.Equal(t0) {
		t.Fatalf("end not stamped: %+v", ups)
	}
}

// A long prompt is seen by its head: the turn starts, without a title.
func TestTrackerHead(t *testing.T) {
	tr := NewTracker(func() time.Time { return t0 })
	tr.Observe(ed, []byte(newReq), false)
	tr.Observe(ag, []byte(newResp), false)
	long := `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"S1","prompt":[{"type":"text","text":"` + strings.Repeat("x", MaxHead)
	got := describe(tr.Observe(ed, []byte(long[:MaxHead]), true))
	if got != "working|||/src/app" {
		t.Fatalf("head of a long prompt: %s", got)
	}
	if got := describe(tr.Observe(ag, []byte(resp(2, "end_turn")), false)); got != "idle||done|/src/app" {
		t.Fatalf("its end: %s", got)
	}
	// The head of a long notification, or of a response, says nothing.
	for _, l := range []string{update(`{"sessionUpdate":"agent_message_chunk","content":{"text":"` + strings.Repeat("y", 100)), `{"jsonrpc":"2.0","id":3,"result":{"x":"` + strings.Repeat("y", 100)} {
		if got := describe(tr.Observe(ag, []byte(l), true)); got != "-" {
			t.Fatalf("head of %.40s: %s", l, got)
		}
	}
}

func TestTrackerBounds(t *testing.T) {
	tr := NewTracker(nil)
	for i := range maxPending + 100 {
		tr.Observe(ed, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"/"}}`, i), false)
	}
	if len(tr.fromEd) > maxPending {
		t.Fatalf("%d requests remembered, more than %d", len(tr.fromEd), maxPending)
	}
	for i := range maxSessions + 10 {
		tr.Observe(ed, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"s%d","prompt":[]}}`, i, i), false)
	}
	if len(tr.sessions) > maxSessions {
		t.Fatalf("%d sessions, more than %d", len(tr.sessions), maxSessions)
	}
}

func FuzzTracker(f *testing.F) {
	for _, l := range []string{initReq, initResp, newReq, newResp, prompt2, resp(2, "end_turn"), perm(7, "execute", "x"), answer(7, "allow"), `[` + prompt2 + `]`} {
		f.Add(l, true)
		f.Add(l, false)
	}
	f.Fuzz(func(t *testing.T, line string, fromAgent bool) {
		tr := NewTracker(nil)
		d := ed
		if fromAgent {
			d = ag
		}
		for _, l := range []string{newReq, newResp, prompt2} {
			tr.Observe(ed, []byte(l), false)
		}
		for _, u := range tr.Observe(d, []byte(line), false) {
			if statusfile.ValidateSession(u.Session) != nil {
				t.Fatalf("invalid session %q", u.Session)
			}
		}
		tr.Observe(d, []byte(line), true)
	})
}
