package render

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

func TestAppendEventJSON(t *testing.T) {
	at := now.Add(1500 * time.Millisecond)
	e := reader.Entry{Name: statusfile.FileName("s"), Verdict: reader.Fresh, Age: 1500 * time.Millisecond,
		Status: statusfile.Status{Schema: statusfile.Schema, Agent: "pi", Session: "s", State: "blocked", Title: "\x1b]0;x\x07Approve?", UpdatedAt: now}}
	record := string(AppendJSON(nil, &e))
	tests := []struct {
		name string
		ev   Event
		want string
	}{
		{"added", Event{Kind: "added", Seq: 3, At: at, Entry: &e},
			`{"event":"added","seq":3,"at":"2026-11-30T12:00:01.500Z",` + record[1:]},
		{"removed", Event{Kind: "removed", Seq: 4, At: at, Entry: &e, Reason: "deleted"},
			`{"event":"removed","seq":4,"at":"2026-11-30T12:00:01.500Z",` + strings.Replace(record[1:], `"reason":null`, `"reason":"deleted"`, 1)},
		{"synced", Event{Kind: "synced", Seq: 1, At: now, Missing: true},
			`{"event":"synced","seq":1,"at":"2026-11-30T12:00:00.000Z","session":null,"missing":true}`},
		{"error", Event{Kind: "error", Seq: 9, At: now, Err: "watch: \x1b[2Joverflow"},
			`{"event":"error","seq":9,"at":"2026-11-30T12:00:00.000Z","session":null,"error":"watch: overflow"}`},
	}
	for _, tt := range tests {
		got := string(AppendEventJSON(nil, &tt.ev))
		if got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(got), &m); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	if !strings.Contains(record, `"title":"Approve?"`) {
		t.Errorf("title not sanitized: %s", record)
	}
}

func TestAppendEventTSV(t *testing.T) {
	s := reader.Entry{Status: statusfile.Status{Agent: "pi", Session: "s\t1", State: "idle", Title: "T"}}
	if got, want := string(AppendEventTSV(nil, &Event{Kind: "updated", Entry: &s})), "updated\tpi\ts 1\tidle\tT\n"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got, want := string(AppendEventTSV(nil, &Event{Kind: "synced"})), "synced\t\t\t\t\n"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
