package remote

import (
	"time"

	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

var testNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// entryLine is the statusls --json line of a record.
func entryLine(s statusfile.Status) string {
	e := reader.Entry{Name: statusfile.FileName(s.Session), Verdict: reader.Fresh, Status: s, Age: time.Second, Alive: reader.Alive}
	return string(render.AppendJSON(nil, &e))
}

func rec(session, state, title string) statusfile.Status {
	return statusfile.Status{Schema: statusfile.Schema, Agent: "claude-code", Session: session, PID: 42, Cwd: "/src", State: statusfile.State(state), Title: title, UpdatedAt: testNow}
}

// eventLine is a statusls watch --json line.
func eventLine(kind string, s string) string {
	if s == "" {
		return `{"event":"` + kind + `","seq":1,"at":"2026-11-30T12:00:00.000Z","session":null}`
	}
	line := entryLine(rec(s, "working", "t"))
	return `{"event":"` + kind + `","seq":1,"at":"2026-11-30T12:00:00.000Z",` + line[1:]
}

// backoff returns a copy of cfg whose watch reconnects after min, doubling
// up to max (0: the defaults).
func backoff(cfg *Config, min, max time.Duration) *Config {
	c := *cfg
	c.MinBackoff, c.MaxBackoff = min, max
	return &c
}
