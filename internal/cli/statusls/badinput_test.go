//go:build unix

package statusls

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

// rec returns a record's JSON in the publishers' key order, with fields
// replaced by kv (raw JSON values; "" deletes the key).
func rec(session string, kv ...string) []byte {
	keys := []string{"schema", "agent", "session", "pid", "cwd", "state", "task", "updatedAt"}
	vals := map[string]string{
		"schema": `"` + statusfile.Schema + `"`, "agent": `"pi"`, "session": jsonString(session),
		"pid": "0", "cwd": `"/home/user/src/app"`, "state": `"working"`,
		"task": `{"title":"Case ` + session + `"}`, "updatedAt": `"2026-11-30T11:59:55.000Z"`,
	}
	for i := 0; i < len(kv); i += 2 {
		if _, ok := vals[kv[i]]; !ok {
			keys = append(keys, kv[i])
		}
		vals[kv[i]] = kv[i+1]
	}
	var b strings.Builder
	b.WriteByte('{')
	first := true
	for _, k := range keys {
		if vals[k] == "" {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(jsonString(k) + ":" + vals[k])
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// badCase is one file of the bad-input directory.
type badCase struct {
	session string // the file is named after it (unless name is set)
	name    string
	setup   func(t *testing.T, dir, name string)
	// What statusls --json --all says: "" when the entry is not listed.
	verdict, reason string
}

func content(data []byte) func(t *testing.T, dir, name string) {
	return func(t *testing.T, dir, name string) { writeFile(t, dir, name, data) }
}

// badCases are the "Bad input" list, each a file in one directory.
func badCases() []badCase {
	cs := []badCase{
		{session: "valid", setup: content(rec("valid")), verdict: "fresh"},
		{session: "malformed-json", setup: content([]byte(`{"schema":"gentle-shell.agent-status/v1",`)), verdict: "invalid", reason: "bad-json"},
		{session: "truncated", setup: content(rec("truncated")[:60]), verdict: "invalid", reason: "bad-json"},
		{session: "empty", setup: content(nil), verdict: "invalid", reason: "empty"},
		{session: "1-mib", setup: content(rec("1-mib", "pad", jsonString(strings.Repeat("x", 1<<20)))), verdict: "invalid", reason: "too-large"},
		{session: "top-level-array", setup: content([]byte(`[{"schema":"gentle-shell.agent-status/v1"}]`)), verdict: "invalid", reason: "not-object"},
		{session: "top-level-string", setup: content([]byte(`"gentle-shell.agent-status/v1"`)), verdict: "invalid", reason: "not-object"},
		{session: "top-level-number", setup: content([]byte(`42`)), verdict: "invalid", reason: "not-object"},
		{session: "unknown-schema", setup: content(rec("unknown-schema", "schema", `"gentle-shell.agent-status/v2"`)), verdict: "invalid", reason: "unsupported-schema"},
		{session: "unknown-state", setup: content(rec("unknown-state", "state", `"thinking"`)), verdict: "fresh"},
		{session: "unknown-keys", setup: content(rec("unknown-keys", "model", `{"id":"x","nested":[1,{"a":null}]}`, "tokens", "12")), verdict: "fresh"},
		{session: "name-mismatch", name: statusfile.FileName("someone-else"), setup: content(rec("name-mismatch")), verdict: "invalid", reason: "name-mismatch"},
		{session: "uppercase-name", name: strings.ToUpper(statusfile.FileName("uppercase-name")[:64]) + ".json", setup: content(rec("uppercase-name"))},
		{session: "dot-file", name: "." + statusfile.FileName("dot-file"), setup: content(rec("dot-file"))},
		{session: "renameio-temp", name: "." + statusfile.FileName("renameio-temp") + "1234567890", setup: content(rec("renameio-temp")[:30])},
		{session: "dir-x-json", name: "x.json", setup: func(t *testing.T, dir, name string) {
			if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{session: "dir-status-name", setup: func(t *testing.T, dir, name string) {
			if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil {
				t.Fatal(err)
			}
		}, verdict: "invalid", reason: "not-regular"},
		{session: "fifo", setup: func(t *testing.T, dir, name string) {
			if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
				t.Fatal(err)
			}
		}, verdict: "invalid", reason: "not-regular"},
		{session: "socket", setup: func(t *testing.T, dir, name string) {
			// Unix socket paths are short: bind in a short directory, then
			// move the socket in.
			short, err := os.MkdirTemp("", "sock")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(short) })
			l, err := net.Listen("unix", filepath.Join(short, "s"))
			if err != nil {
				t.Fatal(err)
			}
			l.(*net.UnixListener).SetUnlinkOnClose(false)
			t.Cleanup(func() { l.Close() })
			if err := os.Rename(filepath.Join(short, "s"), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}, verdict: "invalid", reason: "not-regular"},
		{session: "symlink-outside", setup: func(t *testing.T, dir, name string) {
			outside := filepath.Join(filepath.Dir(filepath.Dir(dir)), "outside.json")
			writeFile(t, filepath.Dir(outside), "outside.json", rec("symlink-outside"))
			if err := os.Symlink(outside, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}, verdict: "invalid", reason: "symlink"},
		{session: "hostile", setup: content(rec("hostile",
			"agent", `"\u001b]0;pwned\u0007ag\u009b31ment"`,
			"cwd", `"/home/user/\u202egnp.exe\u202c/\u001b[2J"`,
			"task", `{"title":"\u001b[31mred\u001b[0m \u001b]8;;http://evil\u001b\\link\u001b]8;;\u001b\\ \u202ereversed\u2066 \u009b1mX \u001bPdcs\u001b\\ok\u0007\u0000\r\nend"}`,
		)), verdict: "fresh"},
		{session: "exactly-30s", setup: content(rec("exactly-30s", "updatedAt", `"2026-11-30T11:59:30.000Z"`)), verdict: "fresh"},
		{session: "30.001s", setup: content(rec("30.001s", "updatedAt", `"2026-11-30T11:59:29.999Z"`, "pid", "2147483647")), verdict: "stale"},
		{session: "1h-future", setup: content(rec("1h-future", "updatedAt", `"2026-11-30T13:00:00.000Z"`)), verdict: "stale"},
		{session: "non-utc-offset", setup: content(rec("non-utc-offset", "updatedAt", `"2026-11-30T13:59:50+02:00"`)), verdict: "fresh"},
		{session: "fraction-0-digits", setup: content(rec("fraction-0-digits", "updatedAt", `"2026-11-30T11:59:50Z"`)), verdict: "fresh"},
		{session: "fraction-3-digits", setup: content(rec("fraction-3-digits", "updatedAt", `"2026-11-30T11:59:50.123Z"`)), verdict: "fresh"},
		{session: "fraction-9-digits", setup: content(rec("fraction-9-digits", "updatedAt", `"2026-11-30T11:59:50.123456789Z"`)), verdict: "fresh"},
		{session: "backslash-title", setup: content(rec("backslash-title", "task", `{"title":"C:\\path\\to"}`, "agent", "null", "cwd", "null")), verdict: "fresh"},
		{session: "stale-dead-pid", setup: content(rec("stale-dead-pid", "updatedAt", `"2026-11-30T10:00:00.000Z"`, "pid", "2147483647", "state", `"idle"`, "task", "null")), verdict: "stale"},
		// The reason keys never make a record invalid (C4): a wrong type
		// is ignored, a key of another state too.
		{session: "waiting-for", setup: content(rec("waiting-for", "state", `"blocked"`,
			"waitingFor", `{"kind":"permission","tool":"Bash","detail":"rm -rf build \u001b]0;pwned\u0007\u202e","since":"2026-11-30T11:59:00.000Z"}`)), verdict: "fresh"},
		{session: "waiting-for-odd-parts", setup: content(rec("waiting-for-odd-parts", "state", `"blocked"`,
			"waitingFor", `{"kind":"question","tool":7,"detail":"Which database?","since":"yesterday","extra":[1]}`)), verdict: "fresh"},
		{session: "waiting-for-wrong-type", setup: content(rec("waiting-for-wrong-type", "state", `"blocked"`, "waitingFor", `"Bash"`)), verdict: "fresh"},
		{session: "waiting-for-no-kind", setup: content(rec("waiting-for-no-kind", "state", `"blocked"`, "waitingFor", `{"kind":1,"tool":"Bash"}`)), verdict: "fresh"},
		{session: "waiting-for-working", setup: content(rec("waiting-for-working", "waitingFor", `{"kind":"permission","tool":"Bash"}`)), verdict: "fresh"},
		{session: "ended-rate-limited", setup: content(rec("ended-rate-limited", "state", `"idle"`, "ended", `{"reason":"rate_limited","detail":null,"at":"2026-11-30T11:59:55.000Z"}`)), verdict: "fresh"},
		{session: "ended-wrong-type", setup: content(rec("ended-wrong-type", "state", `"idle"`, "ended", `["cancelled"]`)), verdict: "fresh"},
	}
	// Wrong types, one field at a time.
	for _, w := range []struct{ field, value string }{
		{"schema", "1"}, {"agent", "1"}, {"session", "1"}, {"pid", `"1"`}, {"cwd", "true"},
		{"state", "1"}, {"task", `"x"`}, {"updatedAt", "1"},
	} {
		s := "wrong-type-" + w.field
		reason := "wrong-type"
		if w.field == "schema" {
			reason = "unsupported-schema" // a non-string schema is another schema (C2)
		}
		cs = append(cs, badCase{session: s, setup: content(rec(s, w.field, w.value)), verdict: "invalid", reason: reason})
	}
	cs = append(cs, badCase{session: "wrong-type-title", setup: content(rec("wrong-type-title", "task", `{"title":7}`)), verdict: "invalid", reason: "wrong-type"})
	// Missing fields, one at a time: required ones make the file invalid,
	// optional ones do not.
	for _, m := range []struct{ field, verdict, reason string }{
		{"schema", "invalid", "unsupported-schema"}, {"session", "invalid", "missing-field"},
		{"state", "invalid", "missing-field"}, {"updatedAt", "invalid", "missing-field"},
		{"agent", "fresh", ""}, {"pid", "fresh", ""}, {"cwd", "fresh", ""}, {"task", "fresh", ""},
	} {
		s := "missing-" + m.field
		data := rec(s, m.field, "")
		name := ""
		if m.field == "session" {
			name = statusfile.FileName(s)
		}
		cs = append(cs, badCase{session: s, name: name, setup: content(data), verdict: m.verdict, reason: m.reason})
	}
	return cs
}

// badDir makes the bad-input directory.
func badDir(t *testing.T) (dir string, cases []badCase) {
	t.Helper()
	dir = privateDir(t)
	cases = badCases()
	for i := range cases {
		c := &cases[i]
		if c.name == "" {
			c.name = statusfile.FileName(c.session)
		}
		c.setup(t, dir, c.name)
	}
	return dir, cases
}

// TestBadInput runs statusls, --json --all, the table and doctor over a
// directory holding every bad input at once, checks each file's verdict,
// and compares the outputs with golden files.
func TestBadInput(t *testing.T) {
	dir, cases := badDir(t)
	home := filepath.Dir(dir)
	repl := []string{dir, "$DIR", home, "$HOME"}
	env := map[string]string{"HOME": "/home/user"}

	// Nothing in the directory may hang statusls (the FIFO).
	runBounded := func(o runOpts, args ...string) result {
		t.Helper()
		ch := make(chan result, 1)
		go func() { ch <- run(t, o, args...) }()
		select {
		case r := <-ch:
			return r
		case <-time.After(20 * time.Second):
			t.Fatalf("statusls %v hung", args)
			return result{}
		}
	}

	tsv := runBounded(runOpts{env: env}, "--dir", dir)
	js := runBounded(runOpts{env: env}, "--dir", dir, "--json", "--all")
	table := runBounded(runOpts{env: env, terminal: true, width: 120}, "--dir", dir, "--all", "--color", "never")
	doc := runBounded(runOpts{env: env}, "doctor", "--dir", dir)
	for _, r := range []struct {
		name string
		res  result
		code int
	}{{"tsv", tsv, 0}, {"json", js, 0}, {"table", table, 0}, {"doctor", doc, 0}} {
		if r.res.code != r.code {
			t.Errorf("%s: exit %d, want %d; stderr: %s", r.name, r.res.code, r.code, r.res.stderr)
		}
		noControls(t, r.name, r.res.stdout)
		noControls(t, r.name+" stderr", r.res.stderr)
	}

	// Each case's verdict, from the JSON.
	var objs []map[string]any
	if err := json.Unmarshal([]byte(js.stdout), &objs); err != nil {
		t.Fatalf("--json is not a JSON array: %v\n%s", err, js.stdout)
	}
	byFile := map[string]map[string]any{}
	for _, o := range objs {
		byFile[o["file"].(string)] = o
	}
	tsvLines := strings.Split(strings.TrimSuffix(tsv.stdout, "\n"), "\n")
	for _, c := range cases {
		o, listed := byFile[c.name]
		switch {
		case c.verdict == "" && listed:
			t.Errorf("%s: listed as %v, want it ignored", c.session, o["verdict"])
		case c.verdict != "" && !listed:
			t.Errorf("%s: not listed, want %s", c.session, c.verdict)
		case listed && (o["verdict"] != c.verdict || c.reason != "" && o["reason"] != c.reason):
			t.Errorf("%s: %v/%v (%v), want %s/%s", c.session, o["verdict"], o["reason"], o["error"], c.verdict, c.reason)
		}
		if !strings.Contains(doc.stdout, c.name) && !strings.Contains(doc.stdout, jsonString(c.name)) {
			t.Errorf("%s: doctor does not mention %s", c.session, c.name)
		}
		inTSV := false
		for _, l := range tsvLines {
			if f := strings.Split(l, "\t"); len(f) == 4 && f[1] == c.session {
				inTSV = true
			}
		}
		if inTSV != (c.verdict == "fresh") {
			t.Errorf("%s: in TSV %v, verdict %s", c.session, inTSV, c.verdict)
		}
	}
	if len(tsvLines) != strings.Count(js.stdout, `"verdict":"fresh"`) {
		t.Errorf("%d TSV rows for %d fresh sessions", len(tsvLines), strings.Count(js.stdout, `"verdict":"fresh"`))
	}
	// The hostile title, agent and cwd reach every output only sanitized.
	for _, out := range []string{tsv.stdout, js.stdout, table.stdout, doc.stdout} {
		if strings.Contains(out, "pwned") || strings.Contains(out, "evil") || strings.Contains(out, "dcs") {
			t.Errorf("escape sequence payload printed:\n%s", out)
		}
	}

	golden(t, "badinput.tsv", subst(tsv.stdout, repl...))
	golden(t, "badinput.json", subst(js.stdout, repl...))
	golden(t, "badinput.table", subst(table.stdout, repl...))
	golden(t, "badinput.doctor", subst(doc.stdout, repl...))
}
