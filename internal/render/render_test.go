package render

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func TestAppendSeconds(t *testing.T) {
	for ms, want := range map[int64]string{0: "0", 1: "0.001", 10: "0.01", 1234: "1.234", 1500: "1.5", 2000: "2", -3600000: "-3600", -1: "-0.001", 30001: "30.001"} {
		if got := string(appendSeconds(nil, ms)); got != want {
			t.Errorf("%d ms: %s, want %s", ms, got, want)
		}
	}
}

func TestAppendTSV(t *testing.T) {
	s := statusfile.Status{Agent: `a\b`, Session: "s\tx", State: "working", Title: "line1\nline2 \\ end"}
	// Sanitizing turns the tab and newline into spaces; the backslashes
	// stay and are escaped as jq's @tsv escapes them.
	if got, want := string(AppendTSV(nil, &s)), "a\\\\b\ts x\tworking\tline1 line2 \\\\ end\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := string(appendTSVField(nil, "t\tn\nr\r\\z\x00")), `t\tn\nr\r\\z\0`; got != want {
		t.Errorf("escaping: %q, want %q", got, want)
	}
}

func TestAppendJSON(t *testing.T) {
	e := reader.Entry{Name: statusfile.FileName("s"), Verdict: reader.Fresh, Age: 1500 * time.Millisecond, Alive: reader.Reused,
		Status: statusfile.Status{Schema: statusfile.Schema, Session: "s", PID: 9, State: "idle", Title: "\x1b[1mT\u202e", UpdatedAt: now}}
	var m map[string]any
	if err := json.Unmarshal(AppendJSON(nil, &e), &m); err != nil {
		t.Fatal(err)
	}
	if m["title"] != "T" || m["agent"] != nil || m["alive"] != false || m["age"] != 1.5 || m["pid"] != 9.0 || m["updatedAt"] != "2026-11-30T12:00:00.000Z" {
		t.Errorf("%v", m)
	}
	bad := reader.Entry{Name: statusfile.FileName("x"), Verdict: reader.Invalid, Reason: "bad-json", Err: errors.New("oops\x1b[2J")}
	if err := json.Unmarshal(AppendJSON(nil, &bad), &m); err != nil {
		t.Fatal(err)
	}
	if m["session"] != nil || m["fresh"] != false || m["age"] != nil || m["reason"] != "bad-json" || m["error"] != "oops" {
		t.Errorf("%v", m)
	}
	if got := string(appendJSONString(nil, "q\"\\\x01\x7f\xffé")); got != `"q\"\\\u0001`+"\x7f\ufffdé\"" {
		t.Errorf("string escaping: %s", got)
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		s     string
		width int
		right string
		left  string
	}{
		{"hello", 10, "hello", "hello"},
		{"hello", 5, "hello", "hello"},
		{"hello", 4, "hel…", "…llo"},
		{"hello", 1, "…", "…"},
		{"hello", 0, "", ""},
		{"日本語です", 6, "日本…", "…です"},
		{"日本語です", 5, "日本…", "…です"},
		{"a👩‍💻b", 3, "a…", "…b"},
		{"ab cd", 4, "ab…", "… cd"},
	}
	for _, tt := range tests {
		if got := Truncate(tt.s, tt.width); got != tt.right {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.right)
		}
		if got := TruncateLeft(tt.s, tt.width); got != tt.left {
			t.Errorf("TruncateLeft(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.left)
		}
	}
}

func TestTildePathAndUnderPath(t *testing.T) {
	for _, tt := range []struct{ path, home, want string }{
		{"/home/u", "/home/u", "~"}, {"/home/u/x", "/home/u/", "~/x"}, {"/home/uu", "/home/u", "/home/uu"}, {"/x", "", "/x"},
	} {
		if got := TildePath(tt.path, tt.home); got != tt.want {
			t.Errorf("TildePath(%q, %q) = %q", tt.path, tt.home, got)
		}
	}
	for _, tt := range []struct {
		path, prefix string
		want         bool
	}{
		{"/a", "/a", true}, {"/a/b", "/a", true}, {"/ab", "/a", false}, {"/a/b", "/a/", true}, {"", "/", false}, {"/a", "/", true}, {"/a/../b", "/b", true},
	} {
		if got := UnderPath(tt.path, tt.prefix); got != tt.want {
			t.Errorf("UnderPath(%q, %q) = %v", tt.path, tt.prefix, got)
		}
	}
}

func TestFormatAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 59 * time.Second: "59s", time.Minute: "1m", 90 * time.Minute: "1h", 47 * time.Hour: "47h", 72 * time.Hour: "3d",
		-10 * time.Second: "0s", -time.Hour: "in 1h",
	} {
		if got := FormatAge(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}

// FuzzRender renders a record made of arbitrary strings as TSV, JSON and a
// table at an arbitrary width: no control or bidi character, no escape
// sequence (colours off) ever comes out, the JSON is valid, and no table
// line is wider than the width.
func FuzzRender(f *testing.F) {
	f.Add("pi", "s1", "working", "/home/u/x", "Fix \x1b[31mtests\x1b[0m", 80)
	f.Add("\x9b31m", "\u202e", "blocked\n", "\x1b]0;x\x07/", "日本語 👩‍💻 \u2066", 7)
	f.Add("", "", "", "", "", 1)
	f.Add("permission", "s2", "blocked", "Bash", "rm -rf \x1b[2J build\u202e", 30)
	f.Add("rate_limited", "s3", "idle", "", "server_error\x9b", 12)
	f.Fuzz(func(t *testing.T, agent, session, state, cwd, title string, width int) {
		width = width%200 + 1
		if width < 1 {
			width = -width + 1
		}
		// The reason keys, made of the same strings, for whichever of
		// blocked and idle the state is.
		e := reader.Entry{Name: statusfile.FileName(session), Verdict: reader.Fresh, Age: 3 * time.Second,
			Status: statusfile.Status{Schema: statusfile.Schema, Agent: agent, Session: session, Cwd: cwd, State: statusfile.State(state), Title: title, UpdatedAt: now,
				WaitingFor: statusfile.Waiting{Kind: agent, Tool: cwd, Detail: title, Since: now},
				Ended:      statusfile.Ended{Reason: agent, Detail: title}}}
		tsv := string(AppendTSV(nil, &e.Status))
		js := AppendJSON(nil, &e)
		table := Table([]reader.Entry{e}, TableOptions{Width: width, Home: "/home/u"})
		for what, out := range map[string]string{"tsv": tsv, "json": string(js), "table": table} {
			if !utf8.ValidString(out) {
				t.Fatalf("%s: invalid UTF-8: %q", what, out)
			}
			for _, r := range out {
				if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f ||
					r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029 {
					t.Fatalf("%s: U+%04X in %q", what, r, out)
				}
			}
		}
		if strings.Count(tsv, "\t") != 3 || strings.Count(tsv, "\n") != 1 {
			t.Fatalf("tsv row %q", tsv)
		}
		if !json.Valid(js) || strings.Contains(string(js), "\n") {
			t.Fatalf("json %s", js)
		}
		for _, l := range strings.Split(strings.TrimSuffix(table, "\n"), "\n") {
			if w := uniseg.StringWidth(l); w > width {
				t.Fatalf("width %d: line of %d: %q", width, w, l)
			}
		}
	})
}

func TestSummary(t *testing.T) {
	var es []reader.Entry
	for _, st := range []string{"idle", "zeta", "working", "blocked", "working", "alpha\x1b[1m", "idle", "idle"} {
		es = append(es, reader.Entry{Verdict: reader.Fresh, Status: statusfile.Status{State: statusfile.State(st)}})
	}
	es = append(es, reader.Entry{Verdict: reader.Invalid, Reason: "bad-json"})
	if got, want := Summary(es), "1 blocked · 2 working · 3 idle · 1 alpha · 1 zeta"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := Summary(nil); got != "" {
		t.Errorf("empty: %q", got)
	}
}

func TestShortIDs(t *testing.T) {
	ids := []string{
		"0f1e2d3c-aaaa-4bbb-8ccc-000000000001",
		"0f1e2d3c-aaaa-4bbb-8ccc-000000000002",
		"9a8b7c6d-1111-2222-3333-444444444444",
		"short",
		"demo-docs",
		"héllo-wörld-ünïcode",
		"héllo-wörld-ünïcode-2",
	}
	entries := make([]reader.Entry, len(ids))
	for i, id := range ids {
		entries[i].Status.Session = id
	}
	got := shortIDs(entries, false)
	want := []string{
		"0f1e2d3c-aaaa-4bbb-8ccc-000000000001",
		"0f1e2d3c-aaaa-4bbb-8ccc-000000000002",
		"9a8b7c6d…",
		"short",
		"demo-docs",
		"héllo-wörld-ünïcode",
		"héllo-wörld-ünïcode-2",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("shortIDs[%d] = %q, want %q", i, got[i], want[i])
		}
	}
	// Each shortened id is a prefix of its own id and of no other.
	for i, s := range got {
		p, cut := strings.CutSuffix(s, "…")
		for j, id := range ids {
			if cut && j != i && strings.HasPrefix(id, p) {
				t.Errorf("%q is ambiguous with %q", s, id)
			}
		}
	}
}

func TestAppendJSONFields(t *testing.T) {
	e := reader.Entry{Name: "x.json", Verdict: reader.Fresh, Status: statusfile.Status{
		Schema: statusfile.Schema, Session: "s", Agent: "pi", State: "idle",
		Title: `tricky ","agent":"x", \"quote`, UpdatedAt: time.Date(2026, 7, 17, 0, 0, 0, 0, time.UTC)}}
	for _, tc := range []struct {
		fields []string
		want   string
	}{
		{[]string{"session", "state", "title"}, `{"session":"s","state":"idle","title":"tricky \",\"agent\":\"x\", \\\"quote"}`},
		{[]string{"title", "session"}, `{"session":"s","title":"tricky \",\"agent\":\"x\", \\\"quote"}`},
		{[]string{"error"}, `{"error":null}`},
		{[]string{"file", "agent"}, `{"file":"x.json","agent":"pi"}`},
	} {
		if got := string(AppendJSONFields(nil, &e, tc.fields)); got != tc.want {
			t.Errorf("%v:\n got %s\nwant %s", tc.fields, got, tc.want)
		}
	}
	if got, want := string(AppendJSONFields(nil, &e, nil)), string(AppendJSON(nil, &e)); got != want {
		t.Errorf("no fields: %s, want all: %s", got, want)
	}
}

// With Hosts, HOST comes right after SESSION, capped at 24 columns, and
// gives way after the title (shortened first, dropped last).
func TestTableHosts(t *testing.T) {
	mk := func(id string) reader.Entry {
		return reader.Entry{Verdict: reader.Fresh, Age: 5 * time.Second, Status: statusfile.Status{Session: id, Agent: "claude", State: statusfile.Working, Cwd: "/w", Title: "fix it"}}
	}
	entries := []reader.Entry{mk("aaaaaaaaaaaa"), mk("bbbbbbbbbbbb")}
	hosts := []string{"devbox", "a-very-long-host-name-that-goes-on-and-on"}
	got := Table(entries, TableOptions{Width: 100, Hosts: hosts})
	lines := strings.Split(got, "\n")
	if !strings.HasPrefix(lines[0], "STATE    SESSION    HOST                      AGE") {
		t.Errorf("header %q", lines[0])
	}
	if !strings.Contains(lines[1], "aaaaaaa…  devbox  ") || !strings.Contains(lines[2], "a-very-long-host-name-t…") {
		t.Errorf("rows:\n%s", got)
	}
	if noHosts := Table(entries, TableOptions{Width: 100}); strings.Contains(noHosts, "HOST") {
		t.Errorf("HOST without Hosts:\n%s", noHosts)
	}
	// Narrow: the host is shortened, then the session goes before it.
	for _, width := range []int{30, 20, 17} {
		got := Table(entries, TableOptions{Width: width, Hosts: hosts})
		if !strings.Contains(got, "HOST") {
			t.Errorf("width %d: no HOST:\n%s", width, got)
		}
		for _, l := range strings.Split(got, "\n") {
			if uniseg.StringWidth(l) > width {
				t.Errorf("width %d: line %q too long", width, l)
			}
		}
	}
	if got := Table(entries, TableOptions{Width: 17, Hosts: hosts}); strings.Contains(got, "SESSION") || !strings.Contains(got, "devbox") {
		t.Errorf("width 17: SESSION kept before HOST:\n%s", got)
	}
}

func TestAppendJSONReasons(t *testing.T) {
	since := now.Add(-90*time.Second + 1234567*time.Nanosecond)
	mk := func(state statusfile.State, w statusfile.Waiting, e statusfile.Ended) *reader.Entry {
		return &reader.Entry{Name: statusfile.FileName("s"), Verdict: reader.Fresh, Status: statusfile.Status{
			Schema: statusfile.Schema, Session: "s", State: state, UpdatedAt: now, WaitingFor: w, Ended: e}}
	}
	perm := statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf \x1b[31mbuild\u202e", Since: since}
	failed := statusfile.Ended{Reason: "failed", Detail: "server_error", At: now}
	for _, tc := range []struct {
		name        string
		e           *reader.Entry
		wait, ended string
	}{
		{"none", mk("blocked", statusfile.Waiting{}, statusfile.Ended{}), `null`, `null`},
		{"permission", mk("blocked", perm, failed), `{"kind":"permission","tool":"Bash","detail":"rm -rf build","since":"2026-11-30T11:58:30.001Z"}`, `null`},
		{"unknown parts", mk("blocked", statusfile.Waiting{Kind: "question"}, statusfile.Ended{}), `{"kind":"question","tool":null,"detail":null,"since":null}`, `null`},
		{"failed", mk("idle", perm, failed), `null`, `{"reason":"failed","detail":"server_error","at":"2026-11-30T12:00:00.000Z"}`},
		{"cancelled", mk("idle", statusfile.Waiting{}, statusfile.Ended{Reason: "cancelled"}), `null`, `{"reason":"cancelled","detail":null,"at":null}`},
		{"working", mk("working", perm, failed), `null`, `null`},
		{"invalid", &reader.Entry{Name: "x.json", Verdict: reader.Invalid, Reason: "bad-json", Status: mk("blocked", perm, failed).Status}, `null`, `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(AppendJSON(nil, tc.e))
			if want := `,"waitingFor":` + tc.wait + `,"ended":` + tc.ended + `,"fresh":`; !strings.Contains(got, want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("invalid JSON %s", got)
			}
			// --json FIELDS: ended holds a "reason" of its own, which
			// must not be taken for the record's.
			f := string(AppendJSONFields(nil, tc.e, []string{"ended", "reason", "waitingFor"}))
			wantReason := `null`
			if tc.e.Verdict == reader.Invalid {
				wantReason = `"bad-json"`
			}
			if want := `{"waitingFor":` + tc.wait + `,"ended":` + tc.ended + `,"reason":` + wantReason + `}`; f != want {
				t.Errorf("fields:\n got %s\nwant %s", f, want)
			}
		})
	}
}

// The WHY column: last, left out when no row has a reason, and the first
// to give way when the table narrows, before the title is touched.
func TestTableWhy(t *testing.T) {
	mk := func(id string, state statusfile.State, w statusfile.Waiting, e statusfile.Ended) reader.Entry {
		return reader.Entry{Verdict: reader.Fresh, Age: 5 * time.Second, Status: statusfile.Status{
			Session: id, Agent: "claude", State: state, Cwd: "/w", Title: "fix the tests", WaitingFor: w, Ended: e}}
	}
	withWhy := []reader.Entry{
		mk("b1", statusfile.Blocked, statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build/output/of/the/last/run"}, statusfile.Ended{}),
		mk("i1", statusfile.Idle, statusfile.Waiting{}, statusfile.Ended{Reason: "rate_limited"}),
		mk("w1", statusfile.Working, statusfile.Waiting{Kind: "question"}, statusfile.Ended{Reason: "done"}),
	}
	without := []reader.Entry{mk("w1", statusfile.Working, statusfile.Waiting{}, statusfile.Ended{})}
	for _, tc := range []struct {
		name    string
		entries []reader.Entry
		width   int
		want    string
	}{
		{"none", without, 80, "" +
			"STATE    SESSION  AGE  AGENT   CWD  TITLE\n" +
			"working  w1       5s   claude  /w   fix the tests\n"},
		{"full", withWhy, 100, "" +
			"STATE    SESSION  AGE  AGENT   CWD  TITLE          WHY\n" +
			"blocked  b1       5s   claude  /w   fix the tests  Bash: rm -rf build/output/of/the/last/run\n" +
			"idle     i1       5s   claude  /w   fix the tests  rate limited\n" +
			"working  w1       5s   claude  /w   fix the tests\n"},
		{"shortened", withWhy, 70, "" +
			"STATE    SESSION  AGE  AGENT   CWD  TITLE          WHY\n" +
			"blocked  b1       5s   claude  /w   fix the tests  Bash: rm -rf build…\n" +
			"idle     i1       5s   claude  /w   fix the tests  rate limited\n" +
			"working  w1       5s   claude  /w   fix the tests\n"},
		{"dropped first", withWhy, 60, "" +
			"STATE    SESSION  AGE  AGENT   CWD  TITLE\n" +
			"blocked  b1       5s   claude  /w   fix the tests\n" +
			"idle     i1       5s   claude  /w   fix the tests\n" +
			"working  w1       5s   claude  /w   fix the tests\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Table(tc.entries, TableOptions{Width: tc.width}); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
