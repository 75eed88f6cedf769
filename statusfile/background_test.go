package statusfile

import "testing"

// The background key (SPEC.md §4.4): written with any state when work the
// agent started runs outside its turn, read tolerantly, shown after the
// state's own words.
func TestBackground(t *testing.T) {
	head := `{"schema":"gentle-shell.agent-status/v1","agent":"claude-code","session":"s","pid":1,"cwd":"/w","state":`
	rec := func(state State, b Background) Status {
		return Status{Agent: "claude-code", Session: "s", PID: 1, Cwd: "/w", State: state, UpdatedAt: tEnd, Background: b}
	}
	t.Run("encode", func(t *testing.T) {
		tests := []struct {
			s    Status
			want string
		}{
			{rec(Working, Background{Agents: 1}), `"working","task":null,"updatedAt":"2026-07-17T12:34:55.456Z","background":{"agents":1,"tasks":0}}`},
			{rec(Working, Background{}), `"working","task":null,"updatedAt":"2026-07-17T12:34:55.456Z"}`},
			{rec(Working, Background{Agents: -1, Tasks: 2}), `"working","task":null,"updatedAt":"2026-07-17T12:34:55.456Z","background":{"agents":0,"tasks":2}}`},
			{func() Status {
				s := rec(Idle, Background{Tasks: 1})
				s.Ended = Ended{Reason: "done", At: tEnd}
				return s
			}(), `"idle","task":null,"updatedAt":"2026-07-17T12:34:55.456Z","ended":{"reason":"done","detail":null,"at":"2026-07-17T12:34:55.456Z"},"background":{"agents":0,"tasks":1}}`},
		}
		for _, tt := range tests {
			got, err := Encode(tt.s)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != head+tt.want+"\n" {
				t.Errorf("Encode:\n%s\nwant\n%s", got, head+tt.want)
			}
			back, err := Decode(got)
			if err != nil || back.Background != tt.s.Background && !(tt.s.Background.Agents < 0) {
				t.Errorf("Decode(Encode) = %+v, %v", back.Background, err)
			}
		}
	})
	t.Run("decode", func(t *testing.T) {
		tests := []struct {
			key  string
			want Background
		}{
			{`{"agents":2,"tasks":1}`, Background{2, 1}},
			{`{"agents":2}`, Background{Agents: 2}},
			{`{"agents":2.0,"tasks":1e1}`, Background{2, 10}},
			{`{"agents":"2","tasks":-1}`, Background{}},
			{`{"agents":1.5,"tasks":true}`, Background{}},
			{`{"agents":1e300}`, Background{Agents: maxBackground}},
			{`3`, Background{}},
			{`null`, Background{}},
			{`[1,2]`, Background{}},
		}
		for _, tt := range tests {
			data := head + `"working","task":null,"updatedAt":"2026-07-17T12:34:55.456Z","background":` + tt.key + "}"
			got, err := Decode([]byte(data))
			if err != nil {
				t.Errorf("%s: a bad background key dropped the record: %v", tt.key, err)
				continue
			}
			if got.Background != tt.want {
				t.Errorf("%s: %+v, want %+v", tt.key, got.Background, tt.want)
			}
		}
	})
	t.Run("why", func(t *testing.T) {
		idle := rec(Idle, Background{Tasks: 2})
		idle.Ended = Ended{Reason: "done"}
		blocked := rec(Blocked, Background{Agents: 1})
		blocked.WaitingFor = Waiting{Kind: "permission", Tool: "Bash", Detail: "sleep 8"}
		tests := []struct {
			s    Status
			want string
		}{
			{rec(Working, Background{Agents: 1}), "1 background agent"},
			{rec(Working, Background{Agents: 2}), "2 background agents"},
			{rec(Working, Background{Tasks: 1}), "1 background task"},
			{rec(Working, Background{Agents: 1, Tasks: 2}), "1 background agent, 2 background tasks"},
			{idle, "done; 2 background tasks"},
			{blocked, "Bash: sleep 8; 1 background agent"},
			{rec(Working, Background{}), ""},
		}
		for _, tt := range tests {
			if got := tt.s.Why(); got != tt.want {
				t.Errorf("%+v: Why() = %q, want %q", tt.s.Background, got, tt.want)
			}
		}
	})
}
