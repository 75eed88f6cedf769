package statusfile

import (
	"strings"
	"testing"
	"time"
)

var (
	tWait = time.Date(2026, 7, 17, 12, 34, 50, 123_000_000, time.UTC)
	tEnd  = time.Date(2026, 7, 17, 12, 34, 55, 456_000_000, time.UTC)
)

func TestEncodeWhyGolden(t *testing.T) {
	head := `{"schema":"gentle-shell.agent-status/v1","agent":"gentle-shell","session":"session-123","pid":12345,"cwd":"/work/project",`
	tests := []struct {
		name string
		edit func(*Status)
		want string // after head
	}{
		{"waiting", func(s *Status) {
			s.State = Blocked
			s.WaitingFor = Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build", Since: tWait}
		}, `"state":"blocked","task":{"title":"Implement status adapter"},"updatedAt":"2026-07-17T12:34:56.789Z","waitingFor":{"kind":"permission","tool":"Bash","detail":"rm -rf build","since":"2026-07-17T12:34:50.123Z"}}`},
		{"waiting, nulls", func(s *Status) {
			s.State = Blocked
			s.WaitingFor = Waiting{Kind: "question"}
		}, `"state":"blocked","task":{"title":"Implement status adapter"},"updatedAt":"2026-07-17T12:34:56.789Z","waitingFor":{"kind":"question","tool":null,"detail":null,"since":null}}`},
		{"ended", func(s *Status) {
			s.State = Idle
			s.Ended = Ended{Reason: "rate_limited", Detail: "rate_limit", At: tEnd}
		}, `"state":"idle","task":{"title":"Implement status adapter"},"updatedAt":"2026-07-17T12:34:56.789Z","ended":{"reason":"rate_limited","detail":"rate_limit","at":"2026-07-17T12:34:55.456Z"}}`},
		{"keys of another state are left out", func(s *Status) {
			s.State = Working
			s.WaitingFor = Waiting{Kind: "permission", Tool: "Bash"}
			s.Ended = Ended{Reason: "done"}
		}, `"state":"working","task":{"title":"Implement status adapter"},"updatedAt":"2026-07-17T12:34:56.789Z"}`},
		{"sanitized and cut", func(s *Status) {
			s.State = Blocked
			s.WaitingFor = Waiting{Kind: " \x1b[31mquestion\x1b[0m ", Tool: "\u202eBash", Detail: "a\n\tb " + strings.Repeat("x", 300)}
		}, `"state":"blocked","task":{"title":"Implement status adapter"},"updatedAt":"2026-07-17T12:34:56.789Z","waitingFor":{"kind":"question","tool":"Bash","detail":"a b ` + strings.Repeat("x", 194) + `","since":null}}`}, // the cut drops the last cluster, as for titles
		{"a kind that sanitizes to nothing is no wait", func(s *Status) {
			s.State = Blocked
			s.WaitingFor = Waiting{Kind: "\x1b[0m", Tool: "Bash"}
		}, `"state":"blocked","task":{"title":"Implement status adapter"},"updatedAt":"2026-07-17T12:34:56.789Z"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sample()
			tt.edit(&s)
			got, err := Encode(s)
			if err != nil {
				t.Fatal(err)
			}
			if want := head + tt.want + "\n"; string(got) != want {
				t.Errorf("Encode:\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestDecodeWhy(t *testing.T) {
	blocked := strings.Replace(valid, `"state":"idle"`, `"state":"blocked"`, 1)
	with := func(base, key, value string) string {
		return strings.TrimSuffix(base, "}") + `,"` + key + `":` + value + "}"
	}
	tests := []struct {
		name  string
		input string
		wait  Waiting
		ended Ended
	}{
		{"waiting", with(blocked, "waitingFor", `{"kind":"permission","tool":"Bash","detail":"rm -rf build","since":"2026-07-17T12:34:50.123Z"}`),
			Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build", Since: tWait}, Ended{}},
		{"ended", with(valid, "ended", `{"reason":"cancelled","detail":null,"at":"2026-07-17T12:34:55.456Z"}`),
			Waiting{}, Ended{Reason: "cancelled", At: tEnd}},
		{"unknown kind kept", with(blocked, "waitingFor", `{"kind":"review","extra":[1]}`), Waiting{Kind: "review"}, Ended{}},
		{"null", with(blocked, "waitingFor", `null`), Waiting{}, Ended{}},
		{"not an object", with(blocked, "waitingFor", `"permission"`), Waiting{}, Ended{}},
		{"array", with(valid, "ended", `["done"]`), Waiting{}, Ended{}},
		{"no kind", with(blocked, "waitingFor", `{"tool":"Bash"}`), Waiting{}, Ended{}},
		{"kind not a string", with(blocked, "waitingFor", `{"kind":1,"tool":"Bash"}`), Waiting{}, Ended{}},
		{"empty kind", with(blocked, "waitingFor", `{"kind":"","tool":"Bash"}`), Waiting{}, Ended{}},
		{"no reason", with(valid, "ended", `{"detail":"x"}`), Waiting{}, Ended{}},
		{"tool and detail of other types", with(blocked, "waitingFor", `{"kind":"permission","tool":{"name":"Bash"},"detail":7}`),
			Waiting{Kind: "permission"}, Ended{}},
		{"bad since", with(blocked, "waitingFor", `{"kind":"question","since":"yesterday"}`), Waiting{Kind: "question"}, Ended{}},
		{"since with offset", with(blocked, "waitingFor", `{"kind":"question","since":"2026-07-17T14:34:50.123+02:00"}`),
			Waiting{Kind: "question", Since: tWait}, Ended{}},
		{"waitingFor while idle is ignored", with(valid, "waitingFor", `{"kind":"permission","tool":"Bash"}`), Waiting{}, Ended{}},
		{"ended while blocked is ignored", with(blocked, "ended", `{"reason":"done"}`), Waiting{}, Ended{}},
		{"ended while working is ignored", with(strings.Replace(valid, `"idle"`, `"working"`, 1), "ended", `{"reason":"done"}`), Waiting{}, Ended{}},
		{"sanitized", with(blocked, "waitingFor", `{"kind":"question","detail":"Which\u001b[31m\n database?"}`),
			Waiting{Kind: "question", Detail: "Which database?"}, Ended{}},
		{"cut at 200 units", with(valid, "ended", `{"reason":"failed","detail":"`+strings.Repeat("é", 250)+`"}`),
			Waiting{}, Ended{Reason: "failed", Detail: strings.Repeat("é", 199)}},
		{"last one wins", with(with(valid, "ended", `{"reason":"done"}`), "ended", `{"reason":"failed"}`), Waiting{}, Ended{Reason: "failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Decode([]byte(tt.input))
			if err != nil {
				t.Fatalf("Decode(%s): %v; the reason keys never reject a record", tt.input, err)
			}
			if !s.WaitingFor.Since.Equal(tt.wait.Since) || !s.Ended.At.Equal(tt.ended.At) {
				t.Errorf("times: %v %v, want %v %v", s.WaitingFor.Since, s.Ended.At, tt.wait.Since, tt.ended.At)
			}
			s.WaitingFor.Since, s.Ended.At, tt.wait.Since, tt.ended.At = time.Time{}, time.Time{}, time.Time{}, time.Time{}
			if s.WaitingFor != tt.wait || s.Ended != tt.ended {
				t.Errorf("Decode(%s):\n got %+v %+v\nwant %+v %+v", tt.input, s.WaitingFor, s.Ended, tt.wait, tt.ended)
			}
		})
	}
}

func TestWhy(t *testing.T) {
	tests := []struct {
		state State
		wait  Waiting
		ended Ended
		want  string
	}{
		{Blocked, Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build"}, Ended{}, "Bash: rm -rf build"},
		{Blocked, Waiting{Kind: "permission", Tool: "Bash"}, Ended{}, "Bash"},
		{Blocked, Waiting{Kind: "permission", Detail: "rm -rf build"}, Ended{}, "permission: rm -rf build"},
		{Blocked, Waiting{Kind: "permission"}, Ended{}, "permission"},
		{Blocked, Waiting{Kind: "question", Detail: "Which database?"}, Ended{}, "question: Which database?"},
		{Blocked, Waiting{Kind: "question", Tool: "AskUserQuestion"}, Ended{}, "question"},
		{Blocked, Waiting{Kind: "auth"}, Ended{}, "auth"},
		{Blocked, Waiting{Kind: "review", Detail: "PR 7"}, Ended{}, "review: PR 7"},
		{Blocked, Waiting{}, Ended{Reason: "done"}, ""},
		{Idle, Waiting{}, Ended{Reason: "done"}, "done"},
		{Idle, Waiting{}, Ended{Reason: "cancelled", Detail: "Esc"}, "cancelled"},
		{Idle, Waiting{}, Ended{Reason: "failed", Detail: "server_error"}, "failed: server_error"},
		{Idle, Waiting{}, Ended{Reason: "failed"}, "failed"},
		{Idle, Waiting{}, Ended{Reason: "rate_limited", Detail: "rate_limit"}, "rate limited"},
		{Idle, Waiting{}, Ended{Reason: "max_tokens"}, "max_tokens"},
		{Idle, Waiting{Kind: "permission"}, Ended{}, ""},
		{Working, Waiting{Kind: "permission"}, Ended{Reason: "done"}, ""},
	}
	for _, tt := range tests {
		s := Status{State: tt.state, WaitingFor: tt.wait, Ended: tt.ended}
		if got := s.Why(); got != tt.want {
			t.Errorf("Why(%s %+v %+v) = %q, want %q", tt.state, tt.wait, tt.ended, got, tt.want)
		}
	}
}
