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

func TestAppendJSON(t *testing.T) {
	e, err := DecodeEntry([]byte(entryLine(rec("s1", "working", "t"))))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host, want string
	}{{"devbox", `{"host":"devbox","file":`}, {"", `{"host":null,"file":`}} {
		got := string(AppendJSON(nil, tc.host, e))
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("got %s", got)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(got), &m); err != nil || m["session"] != "s1" {
			t.Errorf("%v: %s", err, got)
		}
	}
	ev := render.Event{Kind: "host-offline", Seq: 3, At: testNow, Err: "ssh failed"}
	got := string(AppendEventJSON(nil, "gpu", &ev))
	if want := `{"host":"gpu","event":"host-offline","seq":3,"at":"2026-11-30T12:00:00.000Z","session":null,"error":"ssh failed"}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	he := &HostError{Host: "down", Kind: KindSSH, Msg: "ssh failed: \x1b[31mrefused", Hint: `say "hi"`}
	got = string(AppendErrorJSON(nil, he))
	if want := `{"host":"down","file":null,"session":null,"state":null,"fresh":false,"verdict":"host-error","reason":"ssh","error":"ssh failed: refused","hint":"say \"hi\""}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestAppendJSONFields(t *testing.T) {
	e := &reader.Entry{Name: statusfile.FileName("s1"), Verdict: reader.Fresh, Status: statusfile.Status{Session: "s1", State: statusfile.Working}}
	for _, tc := range []struct {
		host   string
		fields []string
		want   string
	}{
		{"devbox", []string{"state", "host", "session"}, `{"host":"devbox","session":"s1","state":"working"}`},
		{"", []string{"host"}, `{"host":null}`},
		{"devbox", []string{"session"}, `{"session":"s1"}`},
	} {
		if got := string(AppendJSONFields(nil, tc.host, e, tc.fields)); got != tc.want {
			t.Errorf("%q %v: got %s, want %s", tc.host, tc.fields, got, tc.want)
		}
	}
	if got, want := string(AppendJSONFields(nil, "h", e, nil)), string(AppendJSON(nil, "h", e)); got != want {
		t.Errorf("no fields: got %s, want %s", got, want)
	}
}

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
