package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

func TestAppendHostJSON(t *testing.T) {
	e := &reader.Entry{Name: statusfile.FileName("s1"), Verdict: reader.Fresh, Alive: reader.Alive,
		Status: statusfile.Status{Schema: statusfile.Schema, Agent: "claude-code", Session: "s1", PID: 42, Cwd: "/src", State: statusfile.Working, Title: "t", UpdatedAt: now}}
	for _, tc := range []struct {
		host, want string
	}{{"devbox", `{"host":"devbox","file":`}, {"", `{"host":null,"file":`}} {
		got := string(AppendHostJSON(nil, tc.host, e, nil))
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("got %s", got)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(got), &m); err != nil || m["session"] != "s1" {
			t.Errorf("%v: %s", err, got)
		}
	}
	ev := Event{Kind: "host-offline", Seq: 3, At: now, Err: "ssh failed"}
	got := string(AppendHostEventJSON(nil, "gpu", &ev))
	if want := `{"host":"gpu","event":"host-offline","seq":3,"at":"2026-11-30T12:00:00.000Z","session":null,"error":"ssh failed"}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	got = string(AppendHostErrorJSON(nil, "down", "ssh", "ssh failed: \x1b[31mrefused", `say "hi"`))
	if want := `{"host":"down","file":null,"session":null,"state":null,"fresh":false,"verdict":"host-error","reason":"ssh","error":"ssh failed: refused","hint":"say \"hi\""}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestAppendHostJSONFields(t *testing.T) {
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
		if got := string(AppendHostJSON(nil, tc.host, e, tc.fields)); got != tc.want {
			t.Errorf("%q %v: got %s, want %s", tc.host, tc.fields, got, tc.want)
		}
	}
}

func TestAppendHostTSV(t *testing.T) {
	e := &reader.Entry{Name: statusfile.FileName("s1"), Verdict: reader.Fresh, Status: statusfile.Status{Agent: "a", Session: "s1", State: statusfile.Working, Title: "t"}}
	if got, want := string(AppendHostTSV(nil, "gpu", &e.Status)), "gpu\ta\ts1\tworking\tt\n"; got != want {
		t.Errorf("row: got %q, want %q", got, want)
	}
	ev := Event{Kind: "added", Entry: e}
	if got, want := string(AppendHostEventTSV(nil, "", &ev)), "added\t\ta\ts1\tworking\tt\n"; got != want {
		t.Errorf("event: got %q, want %q", got, want)
	}
}
