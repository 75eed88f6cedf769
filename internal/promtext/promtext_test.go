package promtext_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/goldentest"
	"github.com/agentstatus/agentstatus/internal/promtest"
	"github.com/agentstatus/agentstatus/internal/promtext"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

var now = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// fresh returns a fresh entry of a session.
func fresh(session, agent string, state statusfile.State) reader.Entry {
	return reader.Entry{
		Name:    statusfile.FileName(session),
		Verdict: reader.Fresh,
		Status: statusfile.Status{
			Schema: statusfile.Schema, Agent: agent, Session: session, Cwd: "/home/ana/src/" + session,
			State: state, Title: "a title that never becomes a label", UpdatedAt: now.Add(-2 * time.Second),
		},
		Age: 2 * time.Second,
	}
}

func blocked(session, agent string, since time.Duration) reader.Entry {
	e := fresh(session, agent, statusfile.Blocked)
	e.Status.WaitingFor = statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build"}
	if since > 0 {
		e.Status.WaitingFor.Since = now.Add(-since)
	}
	return e
}

func idle(session, agent string, ended time.Duration) reader.Entry {
	e := fresh(session, agent, statusfile.Idle)
	e.Status.Ended = statusfile.Ended{Reason: "done", At: now.Add(-ended)}
	return e
}

func stale(session, agent string) reader.Entry {
	e := fresh(session, agent, statusfile.Working)
	e.Verdict, e.Age = reader.Stale, time.Hour
	return e
}

func invalid(name, reason string) reader.Entry {
	return reader.Entry{Name: name, Verdict: reader.Invalid, Reason: reason}
}

// fixtures are listings, each of one host unless hosts says otherwise.
var fixtures = []struct {
	name    string
	entries []reader.Entry
}{
	{"empty", nil},
	{"mixed", []reader.Entry{
		fresh("w1", "pi", statusfile.Working),
		fresh("w2", "claude-code", statusfile.Working),
		blocked("b1", "claude-code", 90*time.Second+500*time.Millisecond),
		blocked("b2", "claude-code", 12*time.Minute),
		blocked("b3", "codex", 0), // no since: waits now
		idle("i1", "codex", 30*time.Second),
		fresh("r1", "pi", "reviewing"),
		stale("s1", "gemini"),
		stale("s2", "pi"),
		invalid(statusfile.FileName("x1"), "bad-json"),
		invalid(statusfile.FileName("x2"), "bad-json"),
		invalid(statusfile.FileName("x3"), "symlink"),
		invalid(statusfile.FileName("x4"), "a-newer-reason"),
		{Name: "notes.txt", Verdict: reader.Ignored, Reason: "not-status-name"},
	}},
	{"hostile", hostile()},
}

// hostile are records whose fields try to break the exposition: quotes,
// backslashes, line feeds, escape sequences, other controls, long and
// multi-byte values, labels equal once sanitized and cut.
func hostile() []reader.Entry {
	long := strings.Repeat("é", 200) // 400 bytes: cut inside a character
	a := fresh(`quote"back\slash`+"\nnewline", `agent"\`+"\n\x1b[31mred\x00", statusfile.Working)
	a.Status.Cwd = "/tmp/" + long
	a.Status.Title = strings.Repeat("t", 4096)
	b := fresh(strings.Repeat("s", 200)+"-1", "pi", statusfile.Blocked)
	c := fresh(strings.Repeat("s", 200)+"-2", "pi", statusfile.Blocked) // same label once cut
	d := fresh("tab\there", "pi", "state\"with\nnewline")
	e := fresh("tab here", "pi", statusfile.Idle) // same label as d once sanitized
	f := fresh("future", "pi", statusfile.Blocked)
	f.Status.WaitingFor.Since = now.Add(time.Hour) // ahead of the clock: 0
	return []reader.Entry{a, b, c, d, e, f}
}

func TestAppendGolden(t *testing.T) {
	for _, fx := range fixtures {
		for _, v := range []struct {
			suffix string
			o      promtext.Options
		}{
			{".prom", promtext.Options{}},
			{".per-session.prom", promtext.Options{PerSession: true}},
			{".om.txt", promtext.Options{OpenMetrics: true, PerSession: true}},
		} {
			t.Run(fx.name+v.suffix, func(t *testing.T) {
				h := promtext.NewHost("", now, v.o.PerSession)
				for i := range fx.entries {
					h.Add(&fx.entries[i])
				}
				got := promtext.Append(nil, []*promtext.Host{h}, v.o)
				golden(t, fx.name+v.suffix, got)
				checkSyntax(t, got, v.o)
				promtest.CheckMetrics(t, fx.name+v.suffix, got)
			})
		}
	}
}

// TestAppendHosts: with the host label, this machine is host="" and a
// failed host has only agentstatus_host_up 0.
func TestAppendHosts(t *testing.T) {
	local := promtext.NewHost("", now, true)
	e := blocked("b1", "pi", time.Minute)
	local.Add(&e)
	remote := promtext.NewHost(`dev"box`, now, true)
	e2 := blocked("b1", "pi", 2*time.Minute) // the same session id on another host
	remote.Add(&e2)
	down := promtext.NewHost("down", now, true)
	down.Failed = true
	o := promtext.Options{PerSession: true, HostLabel: true}
	got := promtext.Append(nil, []*promtext.Host{local, remote, down}, o)
	golden(t, "hosts.prom", got)
	checkSyntax(t, got, o)
	promtest.CheckMetrics(t, "hosts.prom", got)
}

// checkSyntax checks, without promtool, what must hold of every output:
// every line a comment or a sample of a declared family, no sample twice,
// valid UTF-8, the last line ending in a line feed, "# EOF" last exactly
// with OpenMetrics.
func checkSyntax(t *testing.T, out []byte, o promtext.Options) {
	t.Helper()
	s := string(out)
	if !strings.HasSuffix(s, "\n") {
		t.Fatalf("the output does not end with a line feed")
	}
	if strings.HasSuffix(s, "# EOF\n") != o.OpenMetrics || strings.Count(s, "# EOF") > 1 {
		t.Errorf("# EOF: OpenMetrics=%v, output ends %q", o.OpenMetrics, s[max(0, len(s)-20):])
	}
	seen := map[string]bool{}
	families := map[string]bool{}
	for line := range strings.SplitSeq(strings.TrimSuffix(s, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "# TYPE "):
			families[strings.Fields(line)[2]] = true
			continue
		case strings.HasPrefix(line, "# "):
			continue
		}
		series, _, ok := cutLast(line, ' ')
		if !ok {
			t.Errorf("not a sample: %q", line)
			continue
		}
		name, _, _ := strings.Cut(series, "{")
		if !families[name] {
			t.Errorf("sample of an undeclared family: %q", line)
		}
		if seen[series] {
			t.Errorf("series written twice: %q", series)
		}
		seen[series] = true
	}
}

func cutLast(s string, sep byte) (string, string, bool) {
	i := strings.LastIndexByte(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldentest.Check(t, filepath.Join("testdata", name), got)
}

// TestPromtoolRejects makes sure the promtool checks above can fail: an
// unescaped quote, a line feed inside a label value and invalid UTF-8 are
// each rejected.
func TestPromtoolRejects(t *testing.T) {
	for _, bad := range []string{
		"agentstatus_sessions{agent=\"a\"b\"} 1\n",
		"agentstatus_sessions{agent=\"a\nb\"} 1\n",
		"agentstatus_sessions{agent=\"\xff\"} 1\n",
	} {
		if err := promtest.CheckMetricsErr(t, []byte(bad)); err == nil {
			t.Errorf("promtool accepts %q", bad)
		}
	}
}
