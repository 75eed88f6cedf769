package remote

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentstatus/agentstatus/internal/clock"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// noControl reports whether s holds an escape, C0 (but tab and newline),
// DEL, C1 or bidi control.
func noControl(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			return false
		}
	}
	return true
}

func FuzzDecodeEntry(f *testing.F) {
	f.Add([]byte(entryLine(rec("s1", "working", "t"))))
	f.Add([]byte(strings.Replace(entryLine(rec("s1", "blocked", "x")), `"title":"x"`, `"title":"\u001b[31mred\u009b2J"`, 1)))
	f.Add([]byte(`{"file":"` + statusfile.FileName("x") + `","verdict":"invalid","reason":"truncated","error":"\u001b]0;x"}`))
	f.Add([]byte(`{"file":1}`))
	f.Add([]byte("{\"file\":\"\xff\"}"))
	blocked := rec("s1", "blocked", "t")
	blocked.WaitingFor = statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build", Since: testNow}
	f.Add([]byte(strings.Replace(entryLine(blocked), `"detail":"rm -rf build"`, `"detail":"\u001b]0;x\u0007\ud800\u202e"`, 1)))
	f.Add([]byte(strings.Replace(entryLine(blocked), `"kind":"permission"`, `"kind":[1]`, 1)))
	idle := rec("s1", "idle", "t")
	idle.Ended = statusfile.Ended{Reason: "rate_limited", At: testNow}
	f.Add([]byte(strings.Replace(entryLine(idle), `"at":"2026`, `"at":"x2026`, 1)))
	f.Add([]byte(strings.Replace(entryLine(idle), `"ended":{`, `"ended":"cancelled","x":{`, 1)))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := DecodeEntry(line)
		if err != nil {
			return
		}
		if !safefs.IsStatusName(e.Name) {
			t.Fatalf("file %q accepted", e.Name)
		}
		out := render.AppendHostJSON(nil, "h", e, nil)
		if !utf8.Valid(out) || !noControl(string(out)) {
			t.Fatalf("unsafe output %q", out)
		}
		st := &e.Status
		for _, s := range []string{st.Title, st.Agent, st.Cwd, string(st.State), st.Why(),
			st.WaitingFor.Kind, st.WaitingFor.Tool, st.WaitingFor.Detail, st.Ended.Reason, st.Ended.Detail} {
			if !noControl(s) {
				t.Fatalf("unsanitized field %q", s)
			}
		}
		// The reason keys only with their state, and within their limits.
		if st.WaitingFor != (statusfile.Waiting{}) && st.State != statusfile.Blocked || st.Ended != (statusfile.Ended{}) && st.State != statusfile.Idle {
			t.Fatalf("a reason key with state %q: %+v %+v", st.State, st.WaitingFor, st.Ended)
		}
		for _, s := range []string{st.WaitingFor.Tool, st.WaitingFor.Detail, st.Ended.Detail} {
			if n := len(utf16.Encode([]rune(s))); n > 200 {
				t.Fatalf("%d UTF-16 units: %q", n, s)
			}
		}
	})
}

func FuzzDecodeListing(f *testing.F) {
	f.Add([]byte("[\n" + entryLine(rec("s1", "working", "t")) + "\n]\n"))
	f.Add([]byte("[]\n"))
	f.Add([]byte("[\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := decodeListing(bytes.NewReader(data))
		if err != nil && entries != nil {
			t.Fatal("entries with an error")
		}
		for i := range entries {
			if !safefs.IsStatusName(entries[i].Name) {
				t.Fatalf("file %q accepted", entries[i].Name)
			}
		}
	})
}

// FuzzWatchStream feeds a host's watch stream to the reader: whatever it
// holds, the reader ends without panicking, and every session it passes on
// has a status file name and sanitized strings.
func FuzzWatchStream(f *testing.F) {
	f.Add([]byte(eventLine("snapshot", "s1") + "\n" + eventLine("synced", "") + "\n" + eventLine("updated", "s1") + "\n" + eventLine("removed", "s1") + "\n"))
	f.Add([]byte(eventLine("synced", "") + "\n" + eventLine("added", "s2") + "\n" + eventLine("synced", "") + "\n"))
	f.Add([]byte("{\"event\":\"snapshot\"}\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		out := make(chan Event, 64)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for ev := range out {
				for _, e := range []*reader.Entry{ev.Before, ev.After} {
					if e == nil {
						continue
					}
					if !safefs.IsStatusName(e.Name) || !noControl(e.Status.Title) || !noControl(e.Status.Agent) {
						t.Errorf("unsafe entry %+v", e)
					}
				}
			}
		}()
		h := &hostWatch{cfg: &Config{Clock: clock.System}, host: "h", out: out, known: map[string]sent{}}
		h.read(context.Background(), bytes.NewReader(stream))
		close(out)
		<-done
	})
}
