package remote

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/agentstatus/agentstatus/watch"
)

func TestChangeKind(t *testing.T) {
	base := reader.Entry{Name: "n", Verdict: reader.Fresh, Status: rec("s", "working", "t")}
	later := base
	later.Status.UpdatedAt = base.Status.UpdatedAt.Add(time.Second)
	stale := base
	stale.Verdict = reader.Stale
	blocked := base
	blocked.Status.State = statusfile.Blocked
	for _, tc := range []struct {
		name          string
		before, after reader.Entry
		heartbeats    bool
		want          watch.Kind
	}{
		{"same", base, base, true, ""},
		{"heartbeat", base, later, true, watch.Heartbeat},
		{"heartbeat not asked", base, later, false, ""},
		{"went stale", base, stale, false, watch.Stale},
		{"fresh again", stale, base, false, watch.Fresh},
		{"state", base, blocked, false, watch.Updated},
	} {
		if got := changeKind(&tc.before, &tc.after, tc.heartbeats); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestDecodeReasonKeys: a host's waitingFor and ended come through as a
// file's would, sanitized and capped; a wrong type is ignored, never a
// failure of the host.
func TestDecodeReasonKeys(t *testing.T) {
	since := time.Date(2026, 11, 30, 11, 59, 0, 0, time.UTC)
	blocked := rec("s1", "blocked", "t")
	blocked.WaitingFor = statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build", Since: since}
	idle := rec("s1", "idle", "t")
	idle.Ended = statusfile.Ended{Reason: "failed", Detail: "server_error", At: since}
	long := strings.Repeat("é", 300)
	for _, tc := range []struct {
		name    string
		line    string
		why     string
		since   time.Time
		waiting statusfile.Waiting
	}{
		{"permission", entryLine(blocked), "Bash: rm -rf build", since, blocked.WaitingFor},
		{"failed", entryLine(idle), "failed: server_error", time.Time{}, statusfile.Waiting{}},
		{"none", entryLine(rec("s1", "blocked", "t")), "", time.Time{}, statusfile.Waiting{}},
		{"hostile", strings.Replace(entryLine(blocked), `"detail":"rm -rf build"`, `"detail":"rm \u001b]0;pwned\u0007-rf \u202ebuild\u0000"`, 1),
			"Bash: rm -rf build", since, blocked.WaitingFor},
		{"capped", strings.Replace(entryLine(blocked), `"detail":"rm -rf build"`, `"detail":"`+long+`"`, 1),
			"Bash: " + strings.Repeat("é", 199), since, statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: strings.Repeat("é", 199), Since: since}},
		{"not an object", strings.Replace(entryLine(blocked), `"waitingFor":{`, `"waitingFor":["x"],"x":{`, 1), "", time.Time{}, statusfile.Waiting{}},
		{"kind not a string", strings.Replace(entryLine(blocked), `"kind":"permission"`, `"kind":7`, 1), "", time.Time{}, statusfile.Waiting{}},
		{"odd parts", strings.Replace(strings.Replace(entryLine(blocked), `"tool":"Bash"`, `"tool":{"a":1}`, 1), `"since":"2026-11-30T11:59:00.000Z"`, `"since":"soon"`, 1),
			"permission: rm -rf build", time.Time{}, statusfile.Waiting{Kind: "permission", Detail: "rm -rf build"}},
		{"another state's key", strings.Replace(entryLine(blocked), `"state":"blocked"`, `"state":"working"`, 1), "", time.Time{}, statusfile.Waiting{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := DecodeEntry([]byte(tc.line))
			if err != nil {
				t.Fatalf("%v\n%s", err, tc.line)
			}
			if got := e.Status.Why(); got != tc.why {
				t.Errorf("Why() = %q, want %q", got, tc.why)
			}
			if got := e.Status.WaitingFor; got != tc.waiting {
				t.Errorf("waitingFor %+v, want %+v", got, tc.waiting)
			}
			// And back out: what the host sent, sanitized.
			var m map[string]any
			if err := json.Unmarshal(render.AppendHostJSON(nil, "h", e, nil), &m); err != nil {
				t.Fatal(err)
			}
			var wantSince any
			if !tc.since.IsZero() {
				wantSince = "2026-11-30T11:59:00.000Z"
			}
			if w, ok := m["waitingFor"].(map[string]any); ok != (tc.waiting.Kind != "") || ok && (w["since"] != wantSince || w["kind"] != tc.waiting.Kind) {
				t.Errorf("waitingFor out: %v", m["waitingFor"])
			}
		})
	}
}
