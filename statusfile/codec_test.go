package statusfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/agentstatus/agentstatus/internal/safefs"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 7, 17, 12, 34, 56, 789_654_321, time.UTC)

func sample() Status {
	return Status{
		Agent:     "gentle-shell",
		Session:   "session-123",
		PID:       12345,
		Cwd:       "/work/project",
		State:     Working,
		Title:     "Implement status adapter",
		UpdatedAt: t0,
	}
}

func TestEncodeGolden(t *testing.T) {
	got, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema":"gentle-shell.agent-status/v1","agent":"gentle-shell","session":"session-123","pid":12345,"cwd":"/work/project","state":"working","task":{"title":"Implement status adapter"},"updatedAt":"2026-07-17T12:34:56.789Z"}` + "\n"
	if string(got) != want {
		t.Errorf("Encode:\n got %s\nwant %s", got, want)
	}
}

func TestEncodeEscaping(t *testing.T) {
	s := sample()
	s.Cwd = "/tmp/<a&b>\"q\"\\\u2028é"
	s.Agent = "a\x01\tb"
	s.Title = ""
	s.UpdatedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	got, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema":"gentle-shell.agent-status/v1","agent":"a\u0001\tb","session":"session-123","pid":12345,"cwd":"/tmp/<a&b>\"q\"\\` + "\u2028é" + `","state":"working","task":null,"updatedAt":"2026-01-02T02:04:05.000Z"}` + "\n"
	if string(got) != want {
		t.Errorf("Encode:\n got %s\nwant %s", got, want)
	}
	// What we write, encoding/json reads back the same.
	var m map[string]any
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	if m["cwd"] != s.Cwd || m["agent"] != s.Agent {
		t.Errorf("round trip through encoding/json: %q %q", m["cwd"], m["agent"])
	}
}

func TestEncodeSanitizesTitle(t *testing.T) {
	s := sample()
	s.Title = "\x1b[31m  only\x1b[0m \u202e"
	got, _ := Encode(s)
	if !bytes.Contains(got, []byte(`"task":{"title":"only"}`)) {
		t.Errorf("title not sanitized: %s", got)
	}
	s.Title = "\x1b]0;gone"
	got, _ = Encode(s)
	if !bytes.Contains(got, []byte(`"task":null`)) {
		t.Errorf("empty sanitized title must be task null: %s", got)
	}
}

func TestEncodeRefuses(t *testing.T) {
	for name, mod := range map[string]func(*Status){
		"empty session":   func(s *Status) { s.Session = "" },
		"control session": func(s *Status) { s.Session = "a\nb" },
		"c1 session":      func(s *Status) { s.Session = "a\u0085b" },
		"long session":    func(s *Status) { s.Session = strings.Repeat("x", 1025) },
		"invalid utf8":    func(s *Status) { s.Session = "a\xff" },
		"empty state":     func(s *Status) { s.State = "" },
		"negative pid":    func(s *Status) { s.PID = -1 },
		"pid over 2^31-1": func(s *Status) { s.PID = overMaxPID() }, // readers would drop it (C4)
		"relative cwd":    func(s *Status) { s.Cwd = "work" },
		"year 10000":      func(s *Status) { s.UpdatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) },
	} {
		t.Run(name, func(t *testing.T) {
			s := sample()
			mod(&s)
			if _, err := Encode(s); err == nil {
				t.Errorf("Encode accepted %+v", s)
			}
		})
	}
	s := sample()
	s.Session = strings.Repeat("é", 512) // 1024 bytes
	if _, err := Encode(s); err != nil {
		t.Errorf("1024-byte session refused: %v", err)
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	s := sample()
	data, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	s.Schema = Schema
	s.UpdatedAt = s.UpdatedAt.Truncate(time.Millisecond)
	if got != s {
		t.Errorf("Decode(Encode(s)) = %+v, want %+v", got, s)
	}
}

const valid = `{"schema":"gentle-shell.agent-status/v1","agent":"pi","session":"s","pid":7,"cwd":"/w","state":"idle","task":null,"updatedAt":"2026-07-17T12:34:56.000Z"}`

func withField(key, value string) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(valid), &m); err != nil {
		panic(err)
	}
	if value == "" {
		delete(m, key)
	} else {
		m[key] = json.RawMessage(value)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func TestDecodeRejects(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		reason string
		field  string
	}{
		{"empty", "", reasonEmpty, ""},
		{"white space", " \n", reasonEmpty, ""},
		{"malformed", "{", reasonBadJSON, ""},
		{"truncated", valid[:len(valid)-10], reasonBadJSON, ""},
		{"trailing comma", `{"a":1,}`, reasonBadJSON, ""},
		{"two values", valid + valid, reasonBadJSON, ""},
		{"control in string", "{\"a\":\"\x01\"}", reasonBadJSON, ""},
		{"bad escape", `{"a":"\x"}`, reasonBadJSON, ""},
		{"leading zero", `{"a":01}`, reasonBadJSON, ""},
		{"array", `[1,2]`, reasonNotObject, ""},
		{"string", `"x"`, reasonNotObject, ""},
		{"number", `42`, reasonNotObject, ""},
		{"null", `null`, reasonNotObject, ""},
		{"no schema", withField("schema", ""), reasonSchema, ""},
		{"other schema", withField("schema", `"gentle-shell.agent-status/v2"`), reasonSchema, ""},
		{"schema number", withField("schema", `1`), reasonSchema, ""},
		{"no session", withField("session", ""), reasonMissingField, "session"},
		{"null session", withField("session", "null"), reasonMissingField, "session"},
		{"empty session", withField("session", `""`), reasonBadValue, "session"},
		{"session number", withField("session", `1`), reasonWrongType, "session"},
		{"no state", withField("state", ""), reasonMissingField, "state"},
		{"state number", withField("state", `1`), reasonWrongType, "state"},
		{"no updatedAt", withField("updatedAt", ""), reasonMissingField, "updatedAt"},
		{"updatedAt number", withField("updatedAt", `1`), reasonWrongType, "updatedAt"},
		{"updatedAt garbage", withField("updatedAt", `"yesterday"`), reasonBadValue, "updatedAt"},
		{"updatedAt no zone", withField("updatedAt", `"2026-07-17T12:34:56"`), reasonBadValue, "updatedAt"},
		{"updatedAt feb 30", withField("updatedAt", `"2026-02-30T12:34:56Z"`), reasonBadValue, "updatedAt"},
		{"agent number", withField("agent", `1`), reasonWrongType, "agent"},
		{"pid string", withField("pid", `"7"`), reasonWrongType, "pid"},
		{"pid negative", withField("pid", `-1`), reasonBadValue, "pid"},
		{"pid fraction", withField("pid", `1.5`), reasonBadValue, "pid"},
		{"pid huge", withField("pid", `1e300`), reasonBadValue, "pid"},
		{"pid 2^31", withField("pid", `2147483648`), reasonBadValue, "pid"},
		{"cwd array", withField("cwd", `[]`), reasonWrongType, "cwd"},
		{"task string", withField("task", `"x"`), reasonWrongType, "task"},
		{"title number", withField("task", `{"title":3}`), reasonWrongType, "task.title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.input))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Decode(%s) error = %v, want a DecodeError", tt.input, err)
			}
			if de.Reason != tt.reason || de.Field != tt.field {
				t.Errorf("Decode(%s) = %s/%s (%v), want %s/%s", tt.input, de.Reason, de.Field, err, tt.reason, tt.field)
			}
		})
	}
}

func TestDecodeTolerates(t *testing.T) {
	tests := []struct {
		name  string
		input string
		check func(Status) bool
	}{
		{"unknown keys", withField("extra", `{"deep":[1,2,{"x":null}]}`), func(s Status) bool { return s.Session == "s" }},
		{"unknown state", withField("state", `"thinking"`), func(s Status) bool { return s.State == "thinking" }},
		{"no agent", withField("agent", ""), func(s Status) bool { return s.Agent == "" }},
		{"null agent", withField("agent", "null"), func(s Status) bool { return s.Agent == "" }},
		{"no pid", withField("pid", ""), func(s Status) bool { return s.PID == 0 }},
		{"pid exponent", withField("pid", "7e2"), func(s Status) bool { return s.PID == 700 }},
		{"no cwd", withField("cwd", ""), func(s Status) bool { return s.Cwd == "" }},
		{"no task", withField("task", ""), func(s Status) bool { return s.Title == "" }},
		{"task without title", withField("task", `{"other":1}`), func(s Status) bool { return s.Title == "" }},
		{"task title null", withField("task", `{"title":null}`), func(s Status) bool { return s.Title == "" }},
		{"title escapes", withField("task", `{"title":"\u001b[31mx\ud83d\ude00\ud800"}`), func(s Status) bool { return s.Title == "\x1b[31mx😀\ufffd" }},
		{"duplicate key last wins", strings.Replace(valid, `"state":"idle"`, `"state":"working","state":"blocked"`, 1), func(s Status) bool { return s.State == Blocked }},
		{"escaped key", strings.Replace(valid, `"state"`, `"st\u0061te"`, 1), func(s Status) bool { return s.State == Idle }},
		{"case matters", withField("Session", `"other"`), func(s Status) bool { return s.Session == "s" }},
		{"invalid utf8", strings.Replace(valid, `"agent":"pi"`, "\"agent\":\"p\xffi\"", 1), func(s Status) bool { return s.Agent == "p\ufffdi" }},
		{"offset", withField("updatedAt", `"2026-07-17T14:34:56+02:00"`), func(s Status) bool {
			return s.UpdatedAt.Equal(time.Date(2026, 7, 17, 12, 34, 56, 0, time.UTC))
		}},
		{"no fraction", withField("updatedAt", `"2026-07-17T12:34:56Z"`), func(s Status) bool { return s.UpdatedAt.Nanosecond() == 0 }},
		{"nine digits", withField("updatedAt", `"2026-07-17T12:34:56.123456789Z"`), func(s Status) bool { return s.UpdatedAt.Nanosecond() == 123456789 }},
		{"twelve digits", withField("updatedAt", `"2026-07-17T12:34:56.123456789999Z"`), func(s Status) bool { return s.UpdatedAt.Nanosecond() == 123456789 }},
		{"lowercase t z", withField("updatedAt", `"2026-07-17t12:34:56.5z"`), func(s Status) bool { return s.UpdatedAt.Nanosecond() == 5e8 }},
		{"white space around", "\n " + valid + " \n", func(s Status) bool { return s.Session == "s" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Decode([]byte(tt.input))
			if err != nil {
				t.Fatalf("Decode(%s): %v", tt.input, err)
			}
			if !tt.check(s) {
				t.Errorf("Decode(%s) = %+v", tt.input, s)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(valid))
	f.Add([]byte(withField("task", `{"title":"\u001b[31mx"}`)))
	f.Add([]byte(`[{"a":1e5,"b":[true,false,null]}]`))
	f.Add([]byte(`{"schema":"gentle-shell.agent-status/v1","session":"\ud800"}`))
	f.Add([]byte(strings.Replace(withField("waitingFor", `{"kind":"permission","tool":"Bash","detail":"rm\u001b[2J","since":"2026-07-17T12:34:50.123Z"}`), `"idle"`, `"blocked"`, 1)))
	f.Add([]byte(withField("ended", `{"reason":"failed","detail":7,"at":null}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data)
		var de *DecodeError
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("Decode returned a %T: %v", err, err)
		}
		// Our scanner and encoding/json agree on what is JSON.
		if json.Valid(data) != (de == nil || de.Reason != reasonBadJSON && de.Reason != reasonEmpty) {
			t.Fatalf("json.Valid = %v, Decode error = %v for %q", json.Valid(data), err, data)
		}
		if err != nil {
			return
		}
		// And on what the fields are.
		var m map[string]any
		if err := json.Unmarshal(data, &m); err == nil {
			if sess, _ := m["session"].(string); sess != s.Session && !bytes.Contains(data, []byte(`\u`)) && !bytes.ContainsRune(data, 0xfffd) {
				for k := range m {
					if strings.EqualFold(k, "session") && k != "session" {
						return // encoding/json matches keys case-insensitively
					}
				}
				t.Fatalf("session: Decode %q, encoding/json %q", s.Session, sess)
			}
		}
		// A decoded record encodes again (when it is one we may write).
		if ValidateSession(s.Session) == nil && s.Cwd == "" || strings.HasPrefix(s.Cwd, "/") {
			if y := s.UpdatedAt.UTC().Year(); y >= 0 && y <= 9999 && s.State != "" && ValidateSession(s.Session) == nil {
				out, err := Encode(s)
				if err != nil {
					t.Fatalf("Encode(Decode(x)): %v", err)
				}
				back, err := Decode(out)
				if err != nil {
					t.Fatalf("Decode(Encode(Decode(x))): %v", err)
				}
				if back.Session != s.Session || back.State != s.State || back.Title != SanitizeTitle(s.Title) {
					t.Fatalf("round trip changed %+v into %+v", s, back)
				}
				// The reason keys come back as they were decoded (already
				// sanitized), times cut to milliseconds.
				ms := func(t time.Time) time.Time {
					if y := t.UTC().Year(); y < 0 || y > 9999 {
						return time.Time{}
					}
					return t.Truncate(time.Millisecond)
				}
				w, e := s.WaitingFor, s.Ended
				w.Since, e.At = ms(w.Since), ms(e.At)
				bw, be := back.WaitingFor, back.Ended
				if bw.Kind != w.Kind || bw.Tool != w.Tool || bw.Detail != w.Detail || !bw.Since.Equal(w.Since) ||
					be.Reason != e.Reason || be.Detail != e.Detail || !be.At.Equal(e.At) {
					t.Fatalf("round trip changed the reason keys %+v %+v into %+v %+v", w, e, bw, be)
				}
			}
		}
	})
}

func BenchmarkEncode(b *testing.B) {
	s := sample()
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = appendEncode(buf[:0], s)
	}
}

func BenchmarkDecode(b *testing.B) {
	data, _ := Encode(sample())
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeEncodingJSON(b *testing.B) {
	// The same record through encoding/json, for comparison.
	data, _ := Encode(sample())
	type task struct {
		Title string `json:"title"`
	}
	type rec struct {
		Schema, Agent, Session string
		PID                    int
		Cwd, State             string
		Task                   *task
		UpdatedAt              time.Time
	}
	b.ReportAllocs()
	for b.Loop() {
		var r rec
		if err := json.Unmarshal(data, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func TestFileName(t *testing.T) {
	// printf session-123 | sha256sum
	if got, want := FileName("session-123"), "b9c84322f82434cb46e239d20daf1f3714eeb5077f87fb0f0cd4bd336bc01b54.json"; got != want {
		t.Errorf("FileName = %s, want %s", got, want)
	}
	if !safefs.IsStatusName(FileName("x")) || FileName("x") == FileName("y") {
		t.Error("name checks disagree with FileName")
	}
	for _, bad := range []string{strings.ToUpper(FileName("x")[:64]) + ".json", "." + FileName("x"), FileName("x") + "1", "x.json", FileName("x")[:68]} {
		if safefs.IsStatusName(bad) {
			t.Errorf("safefs.IsStatusName(%q) = true", bad)
		}
	}
}

func TestFreshness(t *testing.T) {
	now := t0
	for _, tt := range []struct {
		age   time.Duration
		fresh bool
	}{
		{0, true}, {30 * time.Second, true}, {30*time.Second + time.Millisecond, false},
		{-30 * time.Second, true}, {-30*time.Second - time.Millisecond, false}, {time.Hour, false}, {-time.Hour, false},
	} {
		s := Status{UpdatedAt: now.Add(-tt.age)}
		if got := s.Fresh(now); got != tt.fresh {
			t.Errorf("Fresh(age %v) = %v, want %v", tt.age, got, tt.fresh)
		}
	}
}

// Invalid UTF-8 becomes one U+FFFD per maximal subpart (SPEC.md C6). The
// wants are what Python's bytes.decode("utf-8", "replace") returns for the
// same bytes.
func TestMaximalSubparts(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\xffb", "a\ufffdb"},
		{"a\xe2\x82b", "a\ufffdb"},                 // a truncated 3-byte sequence: one
		{"a\xe2\x82\xe2\x82b", "a\ufffd\ufffdb"},   // two truncated sequences: two
		{"a\xf0\x9f\x98b", "a\ufffdb"},             // a truncated 4-byte sequence: one
		{"a\xe0\x80b", "a\ufffd\ufffdb"},           // E0 80 is never well-formed: two
		{"a\xed\xa0\x80b", "a\ufffd\ufffd\ufffdb"}, // a UTF-8 surrogate: three
		{"a\xc0\xafb", "a\ufffd\ufffdb"},           // an overlong form: two
		{"a\ufffdb", "a\ufffdb"},                   // U+FFFD itself stays
		{"\xe2\x82", "\ufffd"},                     // at the end
	}
	for _, tt := range tests {
		doc := `{"schema":"gentle-shell.agent-status/v1","session":"s","state":"idle","updatedAt":"2026-07-17T12:34:56Z","agent":"` + tt.in + `"}`
		s, err := Decode([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if s.Agent != tt.want {
			t.Errorf("Decode(%q) agent = %q, want %q", tt.in, s.Agent, tt.want)
		}
		if got := SanitizeText(tt.in); got != tt.want {
			t.Errorf("SanitizeText(%q) = %q, want %q", tt.in, got, tt.want)
		}
		rec := sample()
		rec.Agent = tt.in
		enc, err := Encode(rec)
		if err != nil {
			t.Fatal(err)
		}
		if want := `"agent":"` + tt.want + `"`; !strings.Contains(string(enc), want) {
			t.Errorf("Encode with agent %q = %s, want %s in it", tt.in, enc, want)
		}
	}
}

// overMaxPID is maxPID+1 where int can hold it; on 32-bit systems it wraps
// to a negative pid, refused as well.
func overMaxPID() int {
	pid := int64(maxPID)
	return int(pid + 1)
}
