package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/fsnotify/fsnotify"
)

// Titles the checks send, and what a conforming publisher writes for them
// (go test checks these against statusfile.SanitizeTitle).
var (
	hostileTitle      = "\x1b[31mred\x1b[0m \u202eevil\a \x1b]0;pwned\aok  done\u200b!"
	hostileTitleShown = "red evil ok done !"
	escapeOnlyTitle   = "\x1b]0;only an escape sequence, never terminated"
	// 5,000 characters; the cut at 4,096 UTF-16 units falls inside the
	// ZWJ sequence 👩‍💻 (4,094 + 5 units), whose partial cluster is dropped.
	longTitle      = strings.Repeat("x", 4094) + "\U0001F469\u200d\U0001F4BB" + strings.Repeat("y", 903)
	longTitleShown = strings.Repeat("x", 4094)
	// 2-, 3- and 4-byte characters from the start: the cut at 4,096
	// UTF-16 units falls between the halves of the last 😀 (units 4,096
	// and 4,097), which is left out. A count of code points or of UTF-8
	// bytes cuts elsewhere.
	longMixedTitle      = strings.Repeat(whyMix, 818) + "abcde😀" + strings.Repeat("ü€", 50)
	longMixedTitleShown = strings.Repeat(whyMix, 818) + "abcde"
	// E2: characters JSON.stringify leaves alone, or escapes with a
	// backslash; a session id may hold them all (N2 forbids controls only).
	escapingSession = "e2 \"quoted\" \\back <tag>&amp; \u2028\u2029 é ☕"
	escapingTitle   = "say \"hi\" \\ <b>&c"
)

// The reason keys' limits (Y4) through 2-, 3- and 4-byte characters: the
// texts the check sends and what a conforming publisher writes for them
// (go test checks these against statusfile's decoder, which applies Y4).
// whyMix is 5 UTF-16 units and 10 UTF-8 bytes.
const whyMix = "é€😀 "

var (
	// The 200th unit is the second half of 😀: the cut keeps the pair,
	// which is then dropped as the last cluster.
	whyTool      = "ab" + strings.Repeat(whyMix, 39) + "é😀zz€ü"
	whyToolShown = "ab" + strings.Repeat(whyMix, 39) + "é"
	// The cut falls between the halves of 😀 (units 200 and 201): the
	// first half is left out, and nothing else is dropped.
	whyDetail      = "rm " + strings.Repeat(whyMix, 39) + "a😀tail é€😀"
	whyDetailShown = "rm " + strings.Repeat(whyMix, 39) + "a"
	// 3- and 2-byte characters past the limit.
	whyEndDetail      = "Error: " + strings.Repeat("€ü", 130)
	whyEndDetailShown = "Error: " + strings.Repeat("€ü", 96)
)

// controlAgent is an agent name with every kind of control character E2
// escapes (a publisher writes the agent it is given; only titles are
// sanitized) and invalid UTF-8, and controlAgentJSON the JSON string
// JSON.stringify makes of it: short forms, lowercase hex, DEL and U+2028
// as they are, and one U+FFFD per maximal subpart of the invalid bytes.
const (
	controlAgent     = "e2\x01\x1f\t\n\b\f\r\x7f\u2028é\xffb\xc0\xaf"
	controlAgentJSON = `"e2\u0001\u001f\t\n\b\f\r` + "\x7f\u2028é\ufffdb\ufffd\ufffd" + `"`
)

// noDetailEnv is Y5's environment variable.
const noDetailEnv = "AGENTSTATUS_NO_DETAIL"

func scenarios() []scenario {
	s := []scenario{
		{checks: []Result{
			coreCheck("W1/publishes-at-once", "W1"),
			coreCheck("P1/every-key", "P1"),
			check("E1/compact-encoding", "E1"),
			coreCheck("N1/file-name-is-hash", "N1", "L2"),
			coreCheck("T1/updated-at-utc-milliseconds", "T1"),
			coreCheck("P12/pid-is-live", "P12"),
			coreCheck("P12/cwd-is-absolute", "P12"),
			check("L4/ignores-status-dir", "L4"),
		}, run: basicScenario},
		{checks: []Result{check("P3/creates-config-home", "P3")}, run: createsConfigHome},
		{checks: []Result{coreCheck("L5/config-home-parent-symlink", "L5")}, run: parentSymlink},
		{checks: []Result{coreCheck("W2/state-changes-land", "W2", "W3")}, run: stateChanges},
		{checks: []Result{coreCheck("W2/title-changes-land", "W2", "W3", "F1")}, run: titleChanges},
		{checks: []Result{
			check("Y1/why-with-its-state", "Y1", "Y2", "Y3", "W2"),
			check("E1/why-compact-encoding", "E1", "Y1"),
		}, run: whyKeys},
		{checks: []Result{check("Y4/why-cut-utf16-units", "Y4", "W2")}, run: whyCut},
		{checks: []Result{check("Y5/no-detail-flag", "Y5", "W2")}, run: noDetail([]string{"--no-detail"}, nil, true)},
		{checks: []Result{check("Y5/no-detail-env", "Y5", "W2")}, run: noDetail(nil, map[string]string{noDetailEnv: "1"}, true)},
		{checks: []Result{check("Y5/no-detail-env-0-keeps-detail", "Y5", "W2")}, run: noDetail(nil, map[string]string{noDetailEnv: "0"}, false)},
		{checks: []Result{check("Y5/no-detail-env-empty-keeps-detail", "Y5", "W2")}, run: noDetail(nil, map[string]string{noDetailEnv: ""}, false)},
		{checks: []Result{
			coreCheck("W3/malformed-lines-refused", "W3", "S2"),
			coreCheck("W3/blank-lines-unanswered", "W3"),
		}, run: malformedLines},
		{checks: []Result{
			coreCheck("P12/title-no-controls", "P12"),
			coreCheck("P12/long-title-bounded", "P12"),
			check("P12/title-sanitized", "P12"),
			check("P12/title-empty-is-null", "P12", "F1"),
			check("P12/long-title-cut", "P12"),
			check("P12/long-title-cut-non-ascii", "P12"),
		}, run: titles},
		{checks: []Result{
			coreCheck("N1/non-ascii-session", "N1"),
			check("E2/json-escaping", "E2"),
		}, run: escaping},
		{checks: []Result{check("E2/control-characters-escaped", "E2")}, run: controlEscaping},
		{checks: []Result{
			coreCheck("P8/never-partial", "P8"),
			coreCheck("P8/no-temporary-file-left", "P8"),
			check("P8/temporary-file-dot-named", "P8"),
			check("P8/temporary-file-in-status-dir", "P8"),
			check("P10/last-change-wins", "P10"),
		}, run: atomicity},
		{checks: []Result{coreCheck("P9/heartbeat", "P9", "W5")}, long: true, run: heartbeat(false)},
		{checks: []Result{coreCheck("P9/heartbeat-keeps-state", "P9", "W5")}, long: true, run: heartbeat(true)},
		{checks: []Result{coreCheck("W4/removed-on-eof", "W4")}, run: removal("eof")},
		{checks: []Result{coreCheck("W4/removed-on-sigterm", "W4")}, run: removal("TERM")},
		{checks: []Result{coreCheck("W4/removed-on-sigint", "W4")}, run: removal("INT")},
		{checks: []Result{check("P11/replaced-file-left-alone", "P11")}, run: replacedFile},
		{checks: []Result{check("P7/checked-before-every-write", "P7", "P13")}, run: checkedEveryWrite(false)},
		{checks: []Result{check("N2/session-1024-bytes-accepted", "N2")}, run: longSessionAccepted},
		{checks: []Result{check("P7/config-home-checked-before-every-write", "P7", "P2", "P13")}, run: checkedEveryWrite(true)},
		{checks: []Result{check("P7/status-file-symlink-after-start", "P7", "P5", "P13")}, run: fileSwappedAfterStart("symlink")},
		{checks: []Result{check("P7/status-file-hardlink-after-start", "P7", "P5", "P13")}, run: fileSwappedAfterStart("hardlink")},
		{checks: []Result{check("P7/status-file-mode-after-start", "P7", "P6")}, run: fileModeAfterStart},
		{checks: []Result{check("P7/status-dir-symlink-after-start", "P7", "P4", "P13")}, run: dirSwappedAfterStart},
	}
	for _, u := range []int{0o000, 0o022, 0o077} {
		s = append(s, scenario{checks: []Result{
			coreCheck(fmt.Sprintf("P3/status-dir-0700/umask-%03o", u), "P3"),
			coreCheck(fmt.Sprintf("P6/file-0600/umask-%03o", u), "P6"),
		}, run: modes(u)})
	}
	// The published page refuses symbolic links at the config home, the
	// status directory and the status file, a config home owned by
	// another account or writable by group or others, and a status
	// directory with any group or other permission; the rest is SPEC.md's.
	for _, r := range []struct {
		id, root string
		core     bool // the published page states it, or it follows from it
		setup    func(p *pubRun)
	}{
		{"P2/config-home-symlink", "", true, func(p *pubRun) {
			p.must(mkdir(filepath.Join(p.base, "real-home"), privateDir))
			p.must(os.Symlink(filepath.Join(p.base, "real-home"), p.home))
		}},
		{"P2/config-home-group-writable", "", true, func(p *pubRun) { p.must(mkdir(p.home, 0o770)) }},
		{"P2/config-home-world-writable", "", true, func(p *pubRun) { p.must(mkdir(p.home, 0o757)) }},
		{"P2/config-home-not-owned", "the config home must be owned by another account (chown needs root)", true, func(p *pubRun) {
			p.must(mkdir(p.home, 0o755))
			p.must(lchown(p.home))
		}},
		{"P2/config-home-not-directory", "", true, func(p *pubRun) { p.must(writeFile(p.home, []byte("not a directory\n"), 0o600)) }},
		{"P4/status-dir-symlink", "", true, func(p *pubRun) {
			p.must(mkdir(p.home, privateDir))
			p.must(mkdir(filepath.Join(p.base, "real-status"), privateDir))
			p.must(os.Symlink(filepath.Join(p.base, "real-status"), p.statusDir()))
		}},
		{"P4/status-dir-0750", "", true, func(p *pubRun) { p.makeDirs(0o750) }},
		{"P4/status-dir-0755", "", true, func(p *pubRun) { p.makeDirs(0o755) }},
		{"P4/status-dir-not-owned", "the status directory must be owned by another account (chown needs root)", false, func(p *pubRun) {
			p.makeDirs(privateDir)
			p.must(lchown(p.statusDir()))
		}},
		{"P4/status-dir-not-directory", "", true, func(p *pubRun) {
			p.must(mkdir(p.home, privateDir))
			p.must(writeFile(p.statusDir(), []byte("not a directory\n"), 0o600))
		}},
		{"P5/status-file-symlink", "", true, func(p *pubRun) { p.must(os.Symlink(makeVictim(p), p.statusPath())) }},
		{"P5/status-file-hardlink", "", false, func(p *pubRun) { p.must(os.Link(makeVictim(p), p.statusPath())) }},
		{"P5/status-file-fifo", "", false, func(p *pubRun) {
			makeVictim(p)
			p.must(mkfifo(p.statusPath(), 0o600))
		}},
		{"P5/status-file-not-owned", "the status file must be owned by another account (chown needs root)", false, func(p *pubRun) {
			makeVictim(p)
			p.must(writeFile(p.statusPath(), record(p.session, "someone-else", "working", "not yours", time.Now()), 0o644))
			p.must(lchown(p.statusPath()))
		}},
	} {
		rule, _, _ := strings.Cut(r.id, "/")
		c := check(r.id, rule, "W3", "P13")
		if r.core {
			c.Level = vector.Core
		}
		s = append(s, scenario{checks: []Result{c}, root: r.root, run: refusal(r.setup)})
	}
	for _, b := range []struct{ id, session string }{
		{"N2/session-empty", ""},
		{"N2/session-control-character", "s\x1b[31mx"},
		{"N2/session-del", "s\x7fx"},
		{"N2/session-c1-control", "s\u0085x"},
		{"N2/session-invalid-utf8", "s\xffx"},
		{"N2/session-too-long", strings.Repeat("a", 1025)},
		// 1,025 bytes of UTF-8 but 512 UTF-16 units and 257 code points:
		// only a count of bytes refuses it.
		{"N2/session-too-long-multibyte", strings.Repeat("\U0001F600", 255) + "é€"},
	} {
		s = append(s, scenario{checks: []Result{check(b.id, "N2")}, run: badSession(b.session)})
	}
	return s
}

// makeDirs creates the config home (0700) and the status directory with
// mode.
func (p *pubRun) makeDirs(mode fs.FileMode) {
	p.must(mkdir(p.home, privateDir))
	p.must(mkdir(p.statusDir(), mode))
}

// makeVictim creates the config home and status directory and a file
// outside them that a refused publisher must leave as it is; it returns
// the victim's path.
func makeVictim(p *pubRun) string {
	p.makeDirs(privateDir)
	victim := filepath.Join(p.base, "victim")
	p.must(writeFile(victim, []byte("victim: must stay as it is\n"), 0o600))
	return victim
}

// recordKeys are the keys of §4, in order (E1).
var recordKeys = []string{"schema", "agent", "session", "pid", "cwd", "state", "task", "updatedAt"}

// topKeys returns the keys of the top-level object in data, in order.
func topKeys(data []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

var toISOString = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$`)

func basicScenario(p *pubRun, w1 string) {
	p.must(mkdir(p.home, privateDir))
	before := time.Now()
	rec, data := p.startAndWait(w1, func() {
		// Something else there is a publisher that got the name wrong
		// (N1) or published where it should not (L4), not one that did
		// not publish.
		names, _ := dirNames(p.statusDir(), func(n string) bool { return !strings.HasPrefix(n, ".") })
		if len(names) > 0 {
			p.fail("N1/file-name-is-hash", "no %s in %s, which holds %v", fileName(p.session), p.rel(p.statusDir()), names)
		}
		if decoy, _ := os.ReadDir(p.decoy); len(decoy) > 0 {
			p.fail("L4/ignores-status-dir", "the publisher wrote into $STATUS_DIR (%d entries there) and not into its config home", len(decoy))
		}
	})
	after := time.Now()

	p.expect(rec.Session == p.session, w1, "session is %q, want %q", rec.Session, p.session)
	p.expect(rec.Agent == p.agent, w1, "agent is %q, want %q", rec.Agent, p.agent)
	p.expect(rec.State == statusfile.Idle, w1, "state is %q, want idle", rec.State)
	p.expect(rec.Title == "", w1, "task has the title %q, want null", rec.Title)
	p.pass(w1)

	keys, err := topKeys(data)
	if p.expect(err == nil, "P1/every-key", "the file is not one JSON object: %v", err) {
		missing := slices.DeleteFunc(slices.Clone(recordKeys), func(k string) bool { return slices.Contains(keys, k) })
		p.expect(len(missing) == 0, "P1/every-key", "keys missing: %s (a publisher writes every key of §4)", strings.Join(missing, ", "))
		p.setExpected("P1/every-key", strings.Join(recordKeys, ","), strings.Join(keys, ","))
	}
	p.pass("P1/every-key")

	if want, err := statusfile.Encode(rec); p.expect(err == nil, "E1/compact-encoding", "the record cannot be encoded: %v", err) {
		if !bytes.Equal(data, want) {
			p.fail("E1/compact-encoding", "the file is not compact JSON with the keys in order and one newline")
			p.setExpected("E1/compact-encoding", fmt.Sprintf("%q", want), fmt.Sprintf("%q", data))
		}
	}
	p.pass("E1/compact-encoding")

	names, err := dirNames(p.statusDir(), nil)
	p.must(err)
	p.expect(slices.Contains(names, fileName(p.session)), "N1/file-name-is-hash", "no %s in %s (it holds %v)", fileName(p.session), p.rel(p.statusDir()), names)
	p.pass("N1/file-name-is-hash")

	var raw map[string]json.RawMessage
	var ts string
	json.Unmarshal(data, &raw)
	json.Unmarshal(raw["updatedAt"], &ts)
	const t1 = "T1/updated-at-utc-milliseconds"
	p.expect(toISOString.MatchString(ts), t1, "updatedAt is %q, want YYYY-MM-DDTHH:MM:SS.sssZ", ts)
	slack := p.d(1)
	p.expect(!rec.UpdatedAt.Before(before.Truncate(time.Millisecond).Add(-slack)) && !rec.UpdatedAt.After(after.Add(slack)), t1,
		"updatedAt %s is not within %v of the harness's clock (the file appeared between %s and %s)",
		ts, slack, before.UTC().Format(vector.TimeLayout), after.UTC().Format(vector.TimeLayout))
	p.pass(t1)

	p.expect(rec.PID > 0 && processAlive(rec.PID), "P12/pid-is-live", "pid %d is not a live process", rec.PID)
	p.pass("P12/pid-is-live")
	p.expect(strings.HasPrefix(rec.Cwd, "/"), "P12/cwd-is-absolute", "cwd %q is not absolute", rec.Cwd)
	p.pass("P12/cwd-is-absolute")

	decoy, _ := os.ReadDir(p.decoy)
	p.expect(len(decoy) == 0, "L4/ignores-status-dir", "the publisher wrote into $STATUS_DIR (%d entries there)", len(decoy))
}

func modes(umask int) func(p *pubRun, dirID string) {
	return func(p *pubRun, dirID string) {
		fileID := fmt.Sprintf("P6/file-0600/umask-%03o", umask)
		p.umask = umask
		p.startInHome(fileID)
		checkModes := func(when string) {
			if fi, err := os.Lstat(p.statusDir()); p.expect(err == nil, dirID, "%v", err) {
				p.expect(fi.IsDir() && fi.Mode().Perm() == 0o700, dirID, "%s: the status directory has mode %v, want drwx------", when, fi.Mode())
			}
			if fi, err := os.Lstat(p.statusPath()); p.expect(err == nil, fileID, "%v", err) {
				p.expect(fi.Mode().IsRegular() && fi.Mode().Perm() == 0o600, fileID, "%s: the status file has mode %v, want -rw-------", when, fi.Mode())
			}
		}
		checkModes("after the first write")
		p.sendOK(fileID, `{"state":"working"}`)
		checkModes("after a change")
	}
}

func createsConfigHome(p *pubRun, id string) {
	p.home = filepath.Join(p.base, "missing", "parent", "home")
	p.umask = 0o022
	p.startAndWait(id, nil)
	for _, d := range []string{p.home, p.statusDir()} {
		fi, err := os.Lstat(d)
		if p.expect(err == nil, id, "%v", err) {
			p.expect(fi.IsDir() && fi.Mode().Perm() == 0o700, id, "%s has mode %v, want drwx------", p.rel(d), fi.Mode())
		}
	}
}

func parentSymlink(p *pubRun, id string) {
	real := filepath.Join(p.base, "real")
	p.must(mkdir(real, privateDir))
	p.must(mkdir(filepath.Join(real, "home"), privateDir))
	p.must(os.Symlink(real, filepath.Join(p.base, "link")))
	p.home = filepath.Join(p.base, "link", "home")
	p.startAndWait(id, nil)
	_, err := os.Lstat(filepath.Join(real, "home", statusName, fileName(p.session)))
	p.expect(err == nil, id, "the status file is not in the directory the link leads to: %v", err)
}

func stateChanges(p *pubRun, id string) {
	p.startInHome(id)
	for _, st := range []string{"working", "blocked", "idle", "working"} {
		line := fmt.Sprintf(`{"state":%q}`, st)
		if rec, _, ok := p.change(id, line); ok {
			p.expect(string(rec.State) == st, id, "answered ok for %s, but the file says state %q", line, rec.State)
			p.expect(rec.Title == "", id, "a state change set the title to %q", rec.Title)
		}
	}
}

func titleChanges(p *pubRun, id string) {
	p.startInHome(id)
	steps := []struct {
		line, state, title string
	}{
		{`{"title":"Fix the tests"}`, "idle", "Fix the tests"},
		{`{"state":"working"}`, "working", "Fix the tests"},
		{`{"title":null}`, "working", ""},
		{`{"state":"blocked","title":"Review the plan"}`, "blocked", "Review the plan"},
	}
	for _, s := range steps {
		if rec, _, ok := p.change(id, s.line); ok {
			p.expect(string(rec.State) == s.state && rec.Title == s.title, id,
				"after %s the file says state %q title %q, want state %q title %q", s.line, rec.State, rec.Title, s.state, s.title)
		}
	}
}

// whyKeys: waitingFor and ended (SPEC.md §4.4) land with their state,
// after updatedAt, and go when the state leaves it.
func whyKeys(p *pubRun, id string) {
	p.startInHome(id)
	steps := []struct {
		line, state, why string
		wait, ended      bool // the keys on disk
	}{
		{`{"waitingFor":{"kind":"permission","tool":"Bash","detail":"rm -rf build"}}`, "blocked", "Bash: rm -rf build", true, false},
		{`{"title":"still waiting"}`, "blocked", "Bash: rm -rf build", true, false},
		{`{"state":"working"}`, "working", "", false, false},
		{`{"state":"blocked"}`, "blocked", "", false, false},
		{`{"ended":{"reason":"rate_limited","detail":"rate_limit"}}`, "idle", "rate limited", false, true},
		{`{"state":"idle"}`, "idle", "rate limited", false, true},
		{`{"state":"working"}`, "working", "", false, false},
		{`{"waitingFor":{"kind":"question","tool":null,"detail":"Which database?"},"state":"blocked"}`, "blocked", "question: Which database?", true, false},
		{`{"ended":{"reason":"cancelled","detail":null}}`, "idle", "cancelled", false, true},
	}
	const e1 = "E1/why-compact-encoding"
	for _, s := range steps {
		rec, data, ok := p.change(id, s.line)
		if !ok {
			break
		}
		// Byte for byte the §4.3 encoding: waitingFor and ended after
		// updatedAt, their members in the order Y1 shows.
		if want, err := statusfile.Encode(rec); p.expect(err == nil, e1, "the record cannot be encoded: %v", err) && !bytes.Equal(data, want) {
			if p.result(e1).Outcome != outcomeFail {
				p.setExpected(e1, fmt.Sprintf("%q", want), fmt.Sprintf("%q", data))
			}
			p.fail(e1, "after %s the file is not compact JSON with the keys and members in order and one newline", s.line)
		}
		p.expect(string(rec.State) == s.state && rec.Why() == s.why, id,
			"after %s the file says state %q and %q, want state %q and %q", s.line, rec.State, rec.Why(), s.state, s.why)
		at := bytes.Index(data, []byte(`"updatedAt"`))
		for key, want := range map[string]bool{`"waitingFor"`: s.wait, `"ended"`: s.ended} {
			i := bytes.Index(data, []byte(key))
			p.expect((i >= 0) == want, id, "after %s the file has %s: %v, want %v (Y1: only with its state, left out otherwise)", s.line, key, i >= 0, want)
			p.expect(i < 0 || i > at, id, "after %s, %s comes before updatedAt (Y1)", s.line, key)
		}
		if s.wait {
			p.expect(!rec.WaitingFor.Since.IsZero(), id, "after %s waitingFor has no since (Y2)", s.line)
		}
		if s.ended {
			p.expect(!rec.Ended.At.IsZero(), id, "after %s ended has no at (Y3)", s.line)
		}
	}
	p.pass(e1)
}

// whyMembers returns the members of the written record's waitingFor and
// ended as written (nil when the key is absent), not as a reader shows
// them: a reader applies Y4 again.
func whyMembers(data []byte) (wait, ended map[string]json.RawMessage, err error) {
	var rec struct {
		WaitingFor map[string]json.RawMessage `json:"waitingFor"`
		Ended      map[string]json.RawMessage `json:"ended"`
	}
	err = json.Unmarshal(data, &rec)
	return rec.WaitingFor, rec.Ended, err
}

// member is a member as written: a string, or "null" for JSON null (and
// for an absent member, which says "absent").
func member(obj map[string]json.RawMessage, key string) string {
	v, ok := obj[key]
	if !ok {
		return "absent"
	}
	var s *string
	if json.Unmarshal(v, &s) != nil {
		return "not a string: " + string(v)
	}
	if s == nil {
		return "null"
	}
	return *s
}

func units(s string) int { return len(utf16.Encode([]rune(s))) }

// whyCut: tool and detail are cut at 200 UTF-16 units (Y4) when the text
// past the cut is not ASCII, the cut landing just after a surrogate pair
// and between its halves.
func whyCut(p *pubRun, id string) {
	p.startInHome(id)
	for _, s := range []struct {
		key  string
		why  map[string]any
		want map[string]string
	}{
		{"waitingFor", map[string]any{"kind": "permission", "tool": whyTool, "detail": whyDetail},
			map[string]string{"kind": "permission", "tool": whyToolShown, "detail": whyDetailShown}},
		{"ended", map[string]any{"reason": "failed", "detail": whyEndDetail},
			map[string]string{"reason": "failed", "detail": whyEndDetailShown}},
	} {
		line, _ := json.Marshal(map[string]any{s.key: s.why})
		obj, ok := p.whyAfter(id, string(line), s.key)
		if !ok {
			return
		}
		for _, m := range slices.Sorted(maps.Keys(s.want)) {
			got, want := member(obj, m), s.want[m]
			if got != want {
				if p.result(id).Outcome != outcomeFail {
					p.setExpected(id, strconv.Quote(want), strconv.Quote(got))
				}
				p.fail(id, "%s.%s written is not the text sanitized and cut at %d UTF-16 units: %d units, want %d (a count of UTF-8 bytes or of code points cuts elsewhere)",
					s.key, m, map[bool]int{true: 64, false: 200}[m == "kind" || m == "reason"], units(got), units(want))
			}
		}
	}
	p.pass(id)
}

// whyAfter sends line and returns the object under key ("waitingFor" or
// "ended") in the record written, nil when there is none; ok is false when
// the scenario stops (no record came, or it did not decode: failed).
func (p *pubRun) whyAfter(id, line, key string) (obj map[string]json.RawMessage, ok bool) {
	_, data, ok := p.change(id, line)
	if !ok {
		return nil, false
	}
	wait, ended, err := whyMembers(data)
	if !p.expect(err == nil, id, "the record: %v", err) {
		return nil, false
	}
	return map[string]map[string]json.RawMessage{"waitingFor": wait, "ended": ended}[key], true
}

// noDetail: with Y5's switch on (args or env), every detail under both
// keys is null, while kind, tool and reason are still written; with
// AGENTSTATUS_NO_DETAIL set to 0 or empty (on false), details are kept.
func noDetail(args []string, env map[string]string, on bool) func(p *pubRun, id string) {
	return func(p *pubRun, id string) {
		p.args, p.env = args, env
		how := strings.Join(args, " ")
		for k, v := range env {
			how = k + "=" + strconv.Quote(v)
		}
		p.startInHome(id)
		for _, s := range []struct {
			key, line string
			want      map[string]string // the members that must be written so
		}{
			{"waitingFor", `{"waitingFor":{"kind":"permission","tool":"Bash","detail":"rm -rf build"}}`,
				map[string]string{"kind": "permission", "tool": "Bash", "detail": "rm -rf build"}},
			{"waitingFor", `{"waitingFor":{"kind":"question","tool":null,"detail":"Which database?"}}`,
				map[string]string{"kind": "question", "tool": "null", "detail": "Which database?"}},
			{"ended", `{"ended":{"reason":"failed","detail":"overloaded"}}`,
				map[string]string{"reason": "failed", "detail": "overloaded"}},
		} {
			if on {
				s.want["detail"] = "null"
			}
			obj, ok := p.whyAfter(id, s.line, s.key)
			if !ok {
				return
			}
			if !p.expect(obj != nil, id, "after %s (with %s) the record has no %s", s.line, how, s.key) {
				continue
			}
			for _, m := range slices.Sorted(maps.Keys(s.want)) {
				got, want := member(obj, m), s.want[m]
				switch {
				case got == want:
				case m == "detail" && on:
					p.fail(id, "after %s, with %s, %s.detail is %q: with the switch on every detail is null (Y5)", s.line, how, s.key, got)
				case m == "detail":
					p.fail(id, "after %s, with %s, %s.detail is %q, want %q: only a value other than empty and 0 turns details off (Y5)", s.line, how, s.key, got, want)
				default:
					p.fail(id, "after %s, with %s, %s.%s is %q, want %q: the switch leaves out details only (Y5)", s.line, how, s.key, m, got, want)
				}
			}
		}
		p.pass(id)
	}
}

func malformedLines(p *pubRun, id string) {
	const blank = "W3/blank-lines-unanswered"
	p.startInHome(id)
	p.sendOK(id, `{"state":"working","title":"Keep me"}`)
	for _, line := range []string{
		`not json`, `[1,2]`, `"working"`, `{"state":"sleeping"}`, `{"state":"Working"}`, `{"state":"idle "}`, `{"state":5}`,
		`{"state":null}`, `{"title":5}`, `{"title":{"text":"x"}}`, `{"state":"blocked","title":7}`,
	} {
		a := p.send(id, line)
		p.expect(!a.ok, id, "%s was answered ok:true; a malformed line gets ok:false", line)
		p.expect(a.ok || a.msg != "", id, "%s: ok:false without an error message", line)
		rec, _, err := p.readRecord()
		if p.expect(err == nil, id, "after %s: %v", line, err) {
			p.expect(rec.State == "working" && rec.Title == "Keep me", id, "%s changed the record to state %q title %q", line, rec.State, rec.Title)
		}
	}
	// Other keys are ignored (W2).
	p.sendOK(id, `{"state":"blocked","colour":"red"}`)
	p.pass(id)

	// Blank lines get no answer: the next answer is the next line's.
	// Spaces, tabs and carriage returns only are blank too (W3).
	p.write("")
	p.write("   ")
	p.write("\t \r")
	a := p.send(blank, `{"state":"idle"}`)
	p.expect(a.ok, blank, "the answer after two blank lines and {\"state\":\"idle\"} is %s: a blank line was answered", a.raw)
	select {
	case extra, ok := <-p.answers:
		if ok {
			p.fail(blank, "an extra answer %s: a blank line was answered", extra.raw)
		}
	case <-time.After(p.d(0.3)):
	}
}

func titles(p *pubRun, id string) {
	p.startInHome(id)
	for _, t := range []struct {
		id, raw, want string
		core          string // the core check decided by the same title
	}{
		{"P12/title-sanitized", hostileTitle, hostileTitleShown, "P12/title-no-controls"},
		{"P12/title-empty-is-null", escapeOnlyTitle, "", ""},
		{"P12/long-title-cut", longTitle, longTitleShown, "P12/long-title-bounded"},
		{"P12/long-title-cut-non-ascii", longMixedTitle, longMixedTitleShown, ""},
	} {
		line, _ := json.Marshal(map[string]string{"title": t.raw})
		p.sendOK(t.id, string(line))
		rec, _, err := p.readRecord()
		if p.expect(err == nil, t.id, "%v", err) && rec.Title != t.want {
			p.fail(t.id, "the title written is not the sanitized title (%d UTF-16 units; want %d)",
				len(utf16.Encode([]rune(rec.Title))), len(utf16.Encode([]rune(t.want))))
			p.setExpected(t.id, showTitle(t.want), showTitle(rec.Title))
		}
		p.pass(t.id)
		if t.core == "" || !p.expect(err == nil, t.core, "%v", err) {
			continue
		}
		switch t.core {
		case "P12/title-no-controls":
			// The published page: titles "strip terminal/control/bidi
			// sequences". Whatever else a sanitizer does, the words stay
			// and no control or bidi character does.
			if bad := firstControl(rec.Title); bad >= 0 {
				p.fail(t.core, "the title written holds U+%04X, a terminal control or bidi character", bad)
			}
			for _, w := range []string{"red", "evil", "done"} {
				p.expect(strings.Contains(rec.Title, w), t.core, "the title written, %q, lost the word %q", rec.Title, w)
			}
		case "P12/long-title-bounded":
			// The published page: "bounded to a 4096 UTF-16-unit sample,
			// preserve whole graphemes".
			units := len(utf16.Encode([]rune(rec.Title)))
			p.expect(units <= 4096, t.core, "the title written has %d UTF-16 units, more than 4096", units)
			p.expect(rec.Title != "" && strings.HasPrefix(longTitleShown, rec.Title), t.core,
				"the title written is not a non-empty run of the title's first letters, without the cluster the bound splits (it ends %q)",
				lastRunes(rec.Title, 3))
		}
		p.pass(t.core)
	}
}

// firstControl returns the first ESC, C0 or C1 control, DEL or bidi
// control in s, or -1.
func firstControl(s string) rune {
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return r
		}
	}
	return -1
}

func lastRunes(s string, n int) string {
	r := []rune(s)
	return string(r[max(0, len(r)-n):])
}

func showTitle(t string) string {
	if t == "" {
		return `"task":null`
	}
	b, _ := json.Marshal(t)
	return string(b)
}

func escaping(p *pubRun, n1 string) {
	p.session = escapingSession
	p.startInHome(n1)
	p.pass(n1)
	const id = "E2/json-escaping"
	line, _ := json.Marshal(map[string]string{"title": escapingTitle})
	p.sendOK(id, string(line))
	_, data, err := p.readRecord()
	p.must(err)
	for _, want := range []string{
		`"session":"e2 \"quoted\" \\back <tag>&amp; ` + "\u2028\u2029" + ` é ☕"`,
		`"task":{"title":"say \"hi\" \\ <b>&c"}`,
	} {
		if !bytes.Contains(data, []byte(want)) {
			p.fail(id, "the file does not contain %s", printableQuote(want))
			p.setExpected(id, printableQuote(want), printableQuote(string(data)))
		}
	}
}

// controlEscaping: an agent name with control characters and invalid
// UTF-8 is written as JSON.stringify writes it (E2): \b \f \n \r \t in
// short form, other characters below U+0020 as \u00XX in lowercase hex,
// DEL and U+2028 as they are, invalid bytes as U+FFFD.
func controlEscaping(p *pubRun, id string) {
	p.agent = controlAgent
	_, data := p.startInHome(id)
	want := `"agent":` + controlAgentJSON + `,`
	if !bytes.Contains(data, []byte(want)) {
		p.fail(id, "the file does not contain %s", strconv.Quote(want))
		p.setExpected(id, strconv.Quote(want), strconv.Quote(strings.TrimRight(string(data), "\n")))
	}
	p.pass(id)
}

// printableQuote shows bytes with U+2028 and U+2029 visible.
func printableQuote(s string) string {
	return strings.NewReplacer("\u2028", `<U+2028>`, "\u2029", `<U+2029>`).Replace(strings.TrimRight(s, "\n"))
}

func atomicity(p *pubRun, partial string) {
	const temp, last = "P8/no-temporary-file-left", "P10/last-change-wins"
	const dotted, inDir = "P8/temporary-file-dot-named", "P8/temporary-file-in-status-dir"
	p.startInHome(partial)
	// Two loops run during the writes. One reads the file, which must hold
	// a valid record every time. The other lists the status directory and
	// the config home: a temporary file must be in the status directory,
	// under a name that starts with a dot. Each write's temporary file
	// lives for a moment only, so this samples; 200 writes make a miss
	// very unlikely.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	loop := func(f func()) {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					f()
				}
			}
		})
	}
	stopLoops := sync.OnceFunc(func() {
		close(stop)
		wg.Wait()
	})
	defer stopLoops()
	var listings, reads, bad int
	var undotted, outside []string
	var firstBad string
	var seenMu sync.Mutex
	oddInDir := func(n string) bool { return n != fileName(p.session) && !strings.HasPrefix(n, ".") }
	oddInHome := func(n string) bool { return n != statusName }
	add := func(seen *[]string, names ...string) {
		seenMu.Lock()
		defer seenMu.Unlock()
		for _, n := range names {
			if !slices.Contains(*seen, n) && len(*seen) < 5 {
				*seen = append(*seen, n)
			}
		}
	}
	collect := func(seen *[]string, dir string, odd func(name string) bool) {
		names, _ := dirNames(dir, odd)
		add(seen, names...)
	}
	loop(func() {
		listings++
		collect(&undotted, p.statusDir(), oddInDir)
		collect(&outside, p.home, oddInHome)
	})
	// The listings sample. Where the system notifies each file made in a
	// directory (inotify), every temporary file is seen however briefly
	// it lives: on a tmpfs, where a sync costs nothing, it lives for
	// microseconds and the listings miss it.
	if w, err := fsnotify.NewWatcher(); err == nil {
		defer w.Close()
		statusDir, home := filepath.Clean(p.statusDir()), filepath.Clean(p.home)
		if w.Add(statusDir) == nil && w.Add(home) == nil {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					case <-w.Errors:
					case ev, ok := <-w.Events:
						if !ok {
							return
						}
						if !ev.Has(fsnotify.Create) {
							continue
						}
						switch dir, name := filepath.Dir(ev.Name), filepath.Base(ev.Name); {
						case dir == statusDir && oddInDir(name):
							add(&undotted, name)
						case dir == home && oddInHome(name):
							add(&outside, name)
						}
					}
				}
			})
		}
	}
	loop(func() {
		data, err := os.ReadFile(p.statusPath())
		reads++
		if err == nil {
			_, err = statusfile.Decode(data)
		}
		if err != nil {
			if bad == 0 {
				firstBad = fmt.Sprintf("%v: %q", err, truncate(string(data), 120))
			}
			bad++
		}
	})
	states := []string{"working", "blocked", "idle"}
	const n = 200
	for i := 1; i <= n; i++ {
		p.write(fmt.Sprintf(`{"state":%q,"title":"change %d"}`, states[i%3], i))
	}
	for i := 1; i <= n; i++ {
		a, err := p.next(p.d(5))
		if err != nil || !a.ok {
			if err == nil {
				err = fmt.Errorf("answered %s", a.raw)
			}
			p.fail(last, "change %d of %d: %v", i, n, err)
			p.stopNow("a rapid change was not applied")
		}
	}
	stopLoops()
	p.note(dotted, "the status directory and the config home were listed %d times during %d rapid changes", listings, n)
	p.expect(len(undotted) == 0, dotted, "during the writes the status directory held %q: a temporary file's name starts with a dot", undotted)
	p.pass(dotted)
	p.expect(len(outside) == 0, inDir, "during the writes the config home held %q: a temporary file is made in the status directory itself", outside)
	p.pass(inDir)
	p.note(partial, "a reader loop read the file %d times during %d rapid changes", reads, n)
	p.expect(bad == 0, partial, "%d of %d reads during %d rapid changes were not a valid record (the first: %s)", bad, reads, n, firstBad)
	p.pass(partial)

	rec, _, err := p.readRecord()
	if p.expect(err == nil, last, "%v", err) {
		p.expect(string(rec.State) == states[n%3] && rec.Title == fmt.Sprintf("change %d", n), last,
			"after %d changes the file says state %q title %q, want the last change: state %q title \"change %d\"", n, rec.State, rec.Title, states[n%3], n)
	}
	p.pass(last)

	// A write may be in flight (a heartbeat); only what stays counts.
	var extra []string
	for attempt := 0; attempt < 2; attempt++ {
		var err error
		extra, err = dirNames(p.statusDir(), func(n string) bool { return n != fileName(p.session) })
		p.must(err)
		if len(extra) == 0 {
			break
		}
		p.pause(p.d(0.5))
	}
	p.expect(len(extra) == 0, temp, "left in the status directory after the writes: %v", extra)
}

// A heartbeat check watches a window of heartbeatObserve (two limits and
// a second, when --timeout-scale stretches the limit further) for a gap
// over the limit, and fails at once when one passes. It ends early, at a
// heartbeat less than one limit before the window's end, when the rest of
// the window can no longer fail: what it shows is what watching the whole
// window shows. At least heartbeatsSeen heartbeats are seen: a timer that
// is re-armed, not a publisher that writes a few times, once more a
// heartbeat later, and then stops. A publisher that heartbeats every 10 s
// is done in about 20 s instead of 25.
const (
	heartbeatsSeen   = 2
	heartbeatObserve = 25 * time.Second
)

// heartbeatsDone reports whether a heartbeat check that began at start,
// with this limit, has seen enough: beats heartbeats, the last at lastBeat.
// It watches for observe, and ends early at a heartbeat after endAfter.
func heartbeatsDone(start, lastBeat time.Time, beats int, limit time.Duration) bool {
	observe := max(heartbeatObserve, 2*limit+time.Second)
	endAfter := max(statusfile.HeartbeatInterval, observe-limit)
	return beats >= heartbeatsSeen && lastBeat.Sub(start) >= endAfter || time.Since(start) >= observe
}

// heartbeat watches updatedAt move while nothing changes (P9). With
// lines, it first sets a state and a title, then sends a line every 2 s
// that changes nothing (a malformed one, then a blank one): the heartbeat
// must still move updatedAt at least every 10 s (W5), and every record it
// writes must keep the state and title set (P9 rewrites the record, not
// some earlier copy of it).
func heartbeat(lines bool) func(p *pubRun, id string) {
	return func(p *pubRun, id string) {
		exited, still := "the publisher exited while idle: %s", "with no input (P9: at least every 10 s)"
		limit := statusfile.HeartbeatInterval + p.opts.heartbeatSlack()
		rec, _ := p.startInHome(id)
		if lines {
			exited, still = "the publisher exited: %s",
				"while lines that change nothing arrived every 2 s (W5: a heartbeat whether or not lines arrive)"
			p.sendOK(id, `{"state":"blocked","title":"Keep me"}`)
			var err error
			rec, _, err = p.readRecord()
			p.must(err)
		}
		start := time.Now()
		last, lastChange, lastLine := rec.UpdatedAt, start, start
		var gaps []string
		report := func() { p.note(id, "updatedAt moved after %s (limit %v with slack)", strings.Join(gaps, ", "), limit) }
		blank := false
		for beats := 0; !heartbeatsDone(start, lastChange, beats, limit); {
			p.pause(50 * time.Millisecond)
			if !p.running() {
				p.fail(id, exited, p.exitString())
				p.stopNow("the publisher exited")
			}
			if lines && time.Since(lastLine) >= 2*time.Second {
				lastLine = time.Now()
				if blank {
					p.write("  ")
				} else {
					a := p.send(id, `{"state":"sleeping"}`)
					p.expect(!a.ok, id, "{\"state\":\"sleeping\"} was answered ok:true")
				}
				blank = !blank
			}
			rec, _, err := p.readRecord()
			now := time.Now()
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					p.fail(id, "the status file disappeared while the session lives")
					p.stopNow("the file disappeared")
				}
				continue // the next read decides; P8 is checked elsewhere
			}
			if !rec.UpdatedAt.Equal(last) {
				beats++
				gaps = append(gaps, fmt.Sprintf("%.2fs", now.Sub(lastChange).Seconds()))
				if lines {
					p.event("heartbeat: %s", describe(rec))
					if rec.State != statusfile.Blocked || rec.Title != "Keep me" {
						p.fail(id, "a heartbeat wrote %s, not the record as last set (state blocked, title \"Keep me\")", describe(rec))
						p.stopNow("a heartbeat changed the record")
					}
				} else {
					p.event("heartbeat: updatedAt %s", rec.UpdatedAt.UTC().Format(vector.TimeLayout))
					if d := now.Sub(rec.UpdatedAt); d > p.d(2) || d < -p.d(2) {
						p.fail(id, "a heartbeat wrote updatedAt %s, %v away from the harness's clock: not a fresh updatedAt",
							rec.UpdatedAt.UTC().Format(vector.TimeLayout), d.Round(time.Millisecond))
					}
				}
				last, lastChange = rec.UpdatedAt, now
			}
			if since := now.Sub(lastChange); since > limit {
				gaps = append(gaps, fmt.Sprintf("no change for %.2fs", since.Seconds()))
				report()
				p.fail(id, "updatedAt did not move for %v "+still, since.Round(time.Millisecond))
				p.stopNow("no heartbeat")
			}
		}
		if !lines {
			gaps = append(gaps, fmt.Sprintf("(%.2fs since the last, at the end)", time.Since(lastChange).Seconds()))
		}
		report()
	}
}

func removal(how string) func(p *pubRun, id string) {
	return func(p *pubRun, id string) {
		p.startInHome(id)
		p.sendOK(id, `{"state":"working","title":"About to stop"}`)
		if how == "eof" {
			p.closeStdin()
		} else {
			p.signal(how)
		}
		from := time.Now()
		if !p.waitGone(p.d(2)) {
			p.fail(id, "the status file is still there %v later%s", p.d(2), p.lateness(from, p.d(2), p.waitGone))
		}
		p.exits(id, from, "")
	}
}

func replacedFile(p *pubRun, id string) {
	p.startInHome(id)
	mine := record(p.session, "someone-else", "blocked", "replaced by someone else", time.Now())
	tmp := filepath.Join(p.statusDir(), ".replacement")
	p.must(writeFile(tmp, mine, 0o600))
	p.must(os.Rename(tmp, p.statusPath()))
	p.event("replaced the status file with another one")
	p.exitsAtEOF(id)
	data, err := os.ReadFile(p.statusPath())
	p.expect(err == nil && bytes.Equal(data, mine), id, "a status file the publisher did not write was removed or changed on shutdown (%v)", err)
}

// checkedEveryWrite is P7: after the first write, the status directory is
// made 0755 (or, with home, the config home 0770). The next change must be
// refused, leaving the file and the mode as they are: checking once, or
// only until the first write succeeds, is not enough. Once the mode is
// fixed, changes land again.
func checkedEveryWrite(home bool) func(p *pubRun, id string) {
	return func(p *pubRun, id string) {
		dir, mode, name, short, into, in := p.statusDir(), fs.FileMode(0o755), "the status directory", "the directory",
			"into a status directory made 0755", "in a 0755 directory"
		if home {
			dir, mode, name, short, into, in = p.home, 0o770, "the config home", "the config home",
				"under a config home made group-writable", "under a group-writable config home"
		}
		_, before := p.startInHome(id)
		p.must(os.Chmod(dir, mode))
		p.event("made %s %#o", name, uint32(mode))
		a := p.send(id, `{"state":"working"}`)
		p.expect(!a.ok, id, "a change was written %s after the start (answered %s)", into, a.raw)
		data, _ := os.ReadFile(p.statusPath())
		p.expect(bytes.Equal(data, before), id, "the status file was rewritten %s", in)
		if fi, err := os.Lstat(dir); p.expect(err == nil, id, "%s is gone: %v", name, err) {
			p.expect(fi.Mode().Perm() == mode, id, "the publisher changed %s's mode back (%v)", short, fi.Mode())
		}
		p.must(os.Chmod(dir, privateDir))
		p.event("made %s 0700 again", name)
		p.sendOK(id, `{"state":"blocked"}`)
		rec, _, err := p.readRecord()
		p.expect(err == nil && rec.State == statusfile.Blocked, id, "after %s was fixed, the change did not land (state %q, %v)", short, rec.State, err)
		p.expect(p.running(), id, "the publisher stopped: %s", p.exitString())
	}
}

func refusal(setup func(p *pubRun)) func(p *pubRun, id string) {
	return func(p *pubRun, id string) {
		setup(p)
		before := p.snapshot()
		p.start()
		for _, line := range []string{`{"state":"working"}`, `{"title":"Write through this"}`} {
			p.refused(id, line, "%s was answered ok:true: the publisher wrote where it must refuse to", line)
		}
		p.expect(p.running(), id, "the publisher stopped after a refused write: %s", p.exitString())
		p.unchanged(id, before, "the publisher changed what it must leave alone")
		p.exitsAtEOF(id)
		p.unchanged(id, before, "on exit the publisher changed what it must leave alone")
	}
}

func badSession(session string) func(p *pubRun, id string) {
	return func(p *pubRun, id string) {
		p.session = session
		p.must(mkdir(p.home, privateDir))
		p.start()
		// A refusal is either an exit with an error, or ok:false answers.
		var a answer
		var err error
		if !p.waitExit(p.d(1)) {
			if err = p.tryWrite(`{"state":"working"}`); err == nil {
				a, err = p.next(p.d(2))
			}
		}
		if err != nil || !p.running() {
			if p.expect(p.waitExit(p.d(2)), id, "no answer and no exit: %v", err) {
				p.expect(p.exit.exitedByItself() && p.exit.code != 0, id, "the publisher ended with %s; refusing an id is a non-zero exit or ok:false answers", p.exit)
				p.expect(strings.TrimSpace(p.stderrText(p.d(2))) != "", id, "the publisher exited without an error message")
			}
		} else {
			p.expect(!a.ok, id, "the publisher accepted the session id %q (answered %s)", session, a.raw)
			p.expect(a.ok || a.msg != "", id, "ok:false without an error message")
		}
		if names, err := dirNames(p.statusDir(), nil); err == nil {
			p.expect(len(names) == 0, id, "the publisher wrote %v for the session id %q", names, session)
		}
	}
}

func longSessionAccepted(p *pubRun, id string) {
	p.session = strings.Repeat("é", 512) // 1,024 bytes
	rec, _ := p.startInHome(id)
	p.expect(rec.Session == p.session, id, "the session written is not the 1,024-byte id given")
}

// fileSwappedAfterStart is P7 for the status file (P5): after the first
// write, the file is replaced (atomically, by rename) with a symbolic link
// to a victim outside, or with a hard link to it. The next change must be
// refused and leave the link and the victim as they are; once the link is
// gone, changes land again.
func fileSwappedAfterStart(kind string) func(p *pubRun, id string) {
	return func(p *pubRun, id string) {
		p.startInHome(id)
		victim := filepath.Join(p.base, "victim")
		p.must(writeFile(victim, []byte("victim: must stay as it is\n"), 0o600))
		swap := filepath.Join(p.statusDir(), ".swap")
		if kind == "symlink" {
			p.must(os.Symlink(victim, swap))
		} else {
			p.must(os.Link(victim, swap))
		}
		p.must(os.Rename(swap, p.statusPath()))
		p.event("replaced the status file with a %s to a file outside", kind)
		before := p.snapshot()
		p.refused(id, `{"state":"working","title":"Write through this"}`, "a change was answered ok:true although the status file had become a %s after the start", kind)
		p.unchanged(id, before, "the publisher replaced or wrote through a status file that had become a %s after the start", kind)
		p.must(os.Remove(p.statusPath()))
		p.event("removed the %s", kind)
		p.sendOK(id, `{"state":"blocked"}`)
		rec, _, err := p.readRecord()
		p.expect(err == nil && rec.State == statusfile.Blocked, id, "once the %s was removed, the change did not land (state %q, %v)", kind, rec.State, err)
		data, _ := os.ReadFile(victim)
		p.expect(string(data) == "victim: must stay as it is\n", id, "the victim was changed: %q", truncate(string(data), 100))
		p.expect(p.running(), id, "the publisher stopped: %s", p.exitString())
	}
}

// fileModeAfterStart is P6 across writes: a status file whose mode was
// widened after the start is 0600 again after the next write (a writer
// that keeps the existing file's mode keeps 0644).
func fileModeAfterStart(p *pubRun, id string) {
	p.startInHome(id)
	p.must(os.Chmod(p.statusPath(), 0o644))
	p.event("made the status file 0644")
	p.sendOK(id, `{"state":"working"}`)
	if fi, err := os.Lstat(p.statusPath()); p.expect(err == nil, id, "no status file after the change: %v", err) {
		p.expect(fi.Mode().IsRegular() && fi.Mode().Perm() == 0o600, id, "after a change the status file has mode %v, want 0600 (P6)", fi.Mode())
	}
}

// dirSwappedAfterStart is P7 for the status directory itself: after the
// first write it is moved aside and a symbolic link to it takes its place.
// The next change must be refused (P4), not written through the link or
// through a descriptor kept from the start.
func dirSwappedAfterStart(p *pubRun, id string) {
	p.startInHome(id)
	moved := filepath.Join(p.base, "moved-status")
	p.must(os.Rename(p.statusDir(), moved))
	p.must(os.Symlink(moved, p.statusDir()))
	p.event("moved the status directory aside and put a symbolic link to it in its place")
	before := p.snapshot()
	p.refused(id, `{"state":"working","title":"Write through this"}`, "a change was answered ok:true although the status directory had become a symbolic link after the start")
	p.unchanged(id, before, "the publisher wrote through a status directory that had become a symbolic link after the start")
	p.expect(p.running(), id, "the publisher stopped: %s", p.exitString())
}
