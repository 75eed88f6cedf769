package conformance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/agentstatus/agentstatus/statusfile"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
	"github.com/agentstatus/agentstatus/internal/testmain"
)

// brokenPublishers are flawed versions of the test publisher, each with
// the checks it must fail.
var brokenPublishers = []struct {
	flaw     string
	mustFail []string
}{
	{"mode-from-umask", []string{"P6/file-0600/umask-000", "P6/file-0600/umask-022"}},
	{"dir-mode-from-umask", []string{"P3/status-dir-0700/umask-000", "P3/status-dir-0700/umask-022"}},
	{"file-mode-0640", []string{"P6/file-0600/umask-000", "P6/file-0600/umask-022", "P6/file-0600/umask-077"}},
	{"dir-mode-0750", []string{"P3/status-dir-0700/umask-000", "P3/status-dir-0700/umask-022", "P3/status-dir-0700/umask-077"}},
	{"no-heartbeat", []string{"P9/heartbeat"}},
	{"slow-heartbeat", []string{"P9/heartbeat"}},
	{"stale-heartbeat", []string{"P9/heartbeat"}},
	{"heartbeat-burst", []string{"P9/heartbeat"}},
	{"heartbeat-once", []string{"P9/heartbeat"}},
	{"follow-symlinks", []string{"P5/status-file-symlink"}},
	{"non-atomic", []string{"P8/never-partial"}},
	{"leave-temp", []string{"P8/no-temporary-file-left"}},
	{"no-checks", []string{"P2/config-home-symlink", "P2/config-home-group-writable", "P2/config-home-world-writable",
		"P4/status-dir-symlink", "P4/status-dir-0750", "P4/status-dir-0755", "P5/status-file-hardlink", "P5/status-file-fifo",
		"P5/status-file-not-owned", "P2/config-home-not-owned", "P4/status-dir-not-owned"}},
	{"chmod-existing-dir", []string{"P4/status-dir-0755", "P4/status-dir-0750"}},
	{"check-once", []string{"P7/checked-before-every-write"}},
	{"raw-title", []string{"P12/title-sanitized", "P12/title-empty-is-null", "P12/long-title-cut", "P12/title-no-controls", "P12/long-title-bounded"}},
	{"cut-by-bytes", []string{"P12/long-title-cut", "P12/long-title-bounded"}},
	{"no-removal", []string{"W4/removed-on-eof", "W4/removed-on-sigterm", "W4/removed-on-sigint"}},
	{"die-on-sigterm", []string{"W4/removed-on-sigterm"}},
	{"remove-any-file", []string{"P11/replaced-file-left-alone"}},
	{"crash-on-refusal", []string{"P2/config-home-group-writable", "P4/status-dir-symlink", "P2/config-home-not-directory", "P4/status-dir-not-directory"}},
	{"answer-before-write", []string{"W2/state-changes-land", "W2/title-changes-land"}},
	{"answer-blank-lines", []string{"W3/blank-lines-unanswered"}},
	{"accept-unknown-state", []string{"W3/malformed-lines-refused"}},
	{"no-milliseconds", []string{"T1/updated-at-utc-milliseconds", "E1/compact-encoding"}},
	{"pretty-json", []string{"E1/compact-encoding"}},
	{"html-escape", []string{"E2/json-escaping"}},
	{"uppercase-name", []string{"N1/file-name-is-hash", "N1/non-ascii-session", "W1/publishes-at-once"}},
	{"use-status-dir", []string{"L4/ignores-status-dir"}},
	{"pid-zero", []string{"P12/pid-is-live"}},
	{"relative-cwd", []string{"P12/cwd-is-absolute"}},
	{"accept-any-session", []string{"N2/session-empty", "N2/session-control-character", "N2/session-del",
		"N2/session-c1-control", "N2/session-too-long", "N2/session-invalid-utf8"}},
	{"max-1000-bytes", []string{"N2/session-1024-bytes-accepted"}},
	{"lag-one-change", []string{"P10/last-change-wins", "W2/state-changes-land"}},
	{"omit-null-task", []string{"P1/every-key", "E1/compact-encoding"}},
	{"refuse-parent-symlink", []string{"L5/config-home-parent-symlink"}},
	{"no-create-home", []string{"P3/creates-config-home"}},
	{"initial-working", []string{"W1/publishes-at-once"}},
}

// publishedOnlyFails are the hardened checks a publisher that follows only
// the published page fails: the session-id limits and creating a missing
// config home. (It passes N2/session-invalid-utf8 by accident: Python
// cannot hash an id it decoded from the environment with surrogate
// escapes, and exits with an error, which is a refusal.)
var publishedOnlyFails = []string{"N2/session-empty", "N2/session-control-character", "N2/session-del",
	"N2/session-c1-control", "N2/session-too-long", "P3/creates-config-home"}

// TestPublishers runs every publisher check against statuspub serve and
// the Python publisher (all must pass), and the broken publishers against
// the checks that target their flaws (each must fail): a check that cannot
// fail is a defect. The runs mostly wait (the heartbeat check takes 20 s),
// so they run side by side rather than as parallel subtests, which
// -parallel would serialize.
func TestPublishers(t *testing.T) {
	testmain.SkipShort(t, "watches each publisher's heartbeat for 20 s of real time, about fifty publishers")
	t.Parallel()
	var all []string
	for _, b := range brokenPublishers {
		all = append(all, b.mustFail...)
	}
	// The broken variants of the Python publisher count too
	// (TestPythonMutants).
	canFail := slices.Clone(all)
	for _, b := range pythonPublisherFlaws {
		canFail = append(canFail, b.mustFail...)
	}
	for _, c := range checks() {
		if !slices.Contains(canFail, c.ID) {
			t.Errorf("no broken publisher shows that %s can fail", c.ID)
		}
	}
	type run struct {
		name     string
		opts     Options
		mustFail []string // nil: every selected check must pass
		tool     string   // a tool the run needs
		rep      *Report
		err      error
	}
	runs := []*run{
		{name: "statuspub-serve", opts: Options{Command: []string{toolkitCommand(t, "statuspub"), "serve",
			"--config-home", "{home}", "--session", "{session}", "--agent", "{agent}"}}},
		// The same publisher without its flaws passes what they fail.
		{name: "test-publisher", opts: Options{Command: helperCommand(t, "publisher", ""), Run: all}},
		{name: "python", tool: "python3"},
	}
	if _, err := exec.LookPath("python3"); err == nil {
		py := python(t, "status_publisher.py")
		runs[2].opts = Options{Command: py}
		// A publisher that follows only the published page (no
		// session-id limits, no config home created) passes the core
		// level, and fails exactly the hardened checks of what it left
		// out.
		published := append([]string{requireTool(t, "env"), "STATUSPROTO_VARIANT=published-only"}, py...)
		runs = append(runs,
			&run{name: "python-published-only/core", tool: "python3", opts: Options{Command: published, Level: vector.Core}},
			&run{name: "python-published-only/hardened", tool: "python3", mustFail: publishedOnlyFails,
				opts: Options{Command: published, Run: publishedOnlyFails}})
	}
	for _, b := range brokenPublishers {
		runs = append(runs, &run{name: "broken/" + b.flaw, mustFail: b.mustFail,
			opts: Options{Command: helperCommand(t, "publisher", b.flaw), Run: b.mustFail, Parallel: 2}})
	}
	// The runs that watch a heartbeat for 20 s set the test's length:
	// they start first, in this order.
	firstWhere(runs, func(r *run) bool { return r.mustFail == nil || watchesHeartbeat(r.mustFail) })
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for _, r := range runs {
		if len(r.opts.Command) == 0 {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r.rep, r.err = RunPublisher(context.Background(), r.opts)
		}()
	}
	wg.Wait()
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			if r.tool != "" {
				requireTool(t, r.tool)
			}
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.mustFail == nil {
				wantAllPass(t, r.rep)
				list := r.opts
				list.List = true
				if want, _ := RunPublisher(context.Background(), list); len(r.rep.Results) != len(want.Results) {
					t.Errorf("%d results for %d checks", len(r.rep.Results), len(want.Results))
				}
				return
			}
			for _, id := range r.mustFail {
				res, ok := r.rep.find(id)
				switch {
				case !ok:
					t.Errorf("no check %s", id)
				case res.Outcome == outcomeSkip && !isRoot():
					t.Logf("%s: %s", id, res.Reason)
				case res.Outcome != outcomeFail:
					t.Errorf("%s: %s, want FAIL for a publisher that breaks it", id, res.Outcome)
				case strings.HasPrefix(res.Reason, "not decided"):
					// Failing only because another check stopped the
					// scenario shows nothing about this check.
					t.Errorf("%s: failed undecided (%s), want the check itself to fail", id, res.Reason)
				}
			}
		})
	}
}

// The titles the checks expect are what the toolkit's sanitizer makes of
// the titles they send.
func TestPublisherTitlesAgreeWithSanitizer(t *testing.T) {
	for raw, want := range map[string]string{
		hostileTitle:    hostileTitleShown,
		escapeOnlyTitle: "",
		longTitle:       longTitleShown,
		longMixedTitle:  longMixedTitleShown,
		escapingTitle:   escapingTitle,
	} {
		if got := statusfile.SanitizeTitle(raw); got != want {
			t.Errorf("SanitizeTitle(%.40q) = %.40q, want %.40q", raw, got, want)
		}
	}
	if n := len([]rune(longTitle)); n != 5000 {
		t.Errorf("the long title has %d characters, want 5000", n)
	}
	if n := len(utf16.Encode([]rune(longTitle))); n <= 4096 {
		t.Errorf("the long title has only %d UTF-16 units", n)
	}
	if err := statusfile.ValidateSession(escapingSession); err != nil {
		t.Errorf("the E2 session is not a valid id: %v", err)
	}
}

// The reason keys' texts the Y4 check expects are what the toolkit's
// decoder, which applies Y4, makes of the texts it sends; and the cuts land
// where the check says: just after a surrogate pair, between its halves.
func TestPublisherWhyAgreesWithDecoder(t *testing.T) {
	rec, err := statusfile.Encode(statusfile.Status{Session: "s", State: statusfile.Blocked, UpdatedAt: time.Now(),
		WaitingFor: statusfile.Waiting{Kind: "permission", Tool: whyTool, Detail: whyDetail}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := statusfile.Decode(rec)
	if err != nil {
		t.Fatal(err)
	}
	if got.WaitingFor.Tool != whyToolShown || got.WaitingFor.Detail != whyDetailShown {
		t.Errorf("tool %q, detail %q\nwant %q, %q", got.WaitingFor.Tool, got.WaitingFor.Detail, whyToolShown, whyDetailShown)
	}
	rec, err = statusfile.Encode(statusfile.Status{Session: "s", State: statusfile.Idle, UpdatedAt: time.Now(),
		Ended: statusfile.Ended{Reason: "failed", Detail: whyEndDetail}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err = statusfile.Decode(rec); err != nil || got.Ended.Detail != whyEndDetailShown {
		t.Errorf("ended detail %q (%v), want %q", got.Ended.Detail, err, whyEndDetailShown)
	}
	for _, c := range []struct {
		raw  string
		pair bool // the 200th unit is the second half of a pair, else the first
	}{{whyTool, true}, {whyDetail, false}} {
		u := utf16.Encode([]rune(c.raw))
		if c.pair && !utf16.IsSurrogate(rune(u[199])) || !c.pair && !(utf16.IsSurrogate(rune(u[199])) && utf16.IsSurrogate(rune(u[200]))) {
			t.Errorf("%.20q...: the cut at 200 units does not land where the check says", c.raw)
		}
		if c.pair && !(utf16.IsSurrogate(rune(u[198])) && u[198] < 0xDC00) {
			t.Errorf("%.20q...: unit 199 is not the first half of a pair", c.raw)
		}
		if len(c.raw) <= 200 || len(u) <= 200 {
			t.Errorf("%.20q...: not past the limit", c.raw)
		}
	}
}

// Every publisher rule of SPEC.md is checked, and each check quotes SPEC.md.
func TestPublisherRulesCovered(t *testing.T) {
	rules, _ := specRules(t)
	ids := map[string]bool{}
	covered := map[string]bool{}
	for _, c := range checks() {
		if ids[c.ID] {
			t.Errorf("check id %s used twice", c.ID)
		}
		ids[c.ID] = true
		if !strings.HasPrefix(c.ID, c.Rules[0]+"/") {
			t.Errorf("%s: the id does not start with its first rule %s", c.ID, c.Rules[0])
		}
		for i, r := range c.Rules {
			covered[r] = true
			q := c.Requirements[i]
			label, text, _ := strings.Cut(q, ". ")
			if label != r || !strings.Contains(rules[r], normalize(text)) {
				t.Errorf("%s: the quote of %s is not in SPEC.md's text of it:\n  quote: %s\n  rule:  %s", c.ID, r, q, rules[r])
			}
		}
	}
	for id := range rules {
		if !strings.HasPrefix(id, "P") && !strings.HasPrefix(id, "W") {
			continue
		}
		if !covered[id] {
			t.Errorf("no publisher check for %s: %s", id, rules[id])
		}
	}
	for _, id := range []string{"T1", "E1", "E2", "N1", "N2", "L2", "L4", "L5", "S2"} {
		if !covered[id] {
			t.Errorf("no publisher check for %s", id)
		}
	}
}

// A publisher that leaves a process behind holding its standard error (a
// daemon it started) is judged by its own exit, not by the daemon's.
func TestPublisherWithADaemon(t *testing.T) {
	testmain.SkipShort(t, "starts statuspub serve and signals it (W4), waiting on real processes")
	t.Parallel()
	sh := requireTool(t, "sh")
	serve := toolkitCommand(t, "statuspub") + " serve --config-home {home} --session {session} --agent {agent}"
	rep, err := RunPublisher(context.Background(), Options{
		Command: []string{sh, "-c", "sleep 20 & exec " + serve},
		Run:     []string{"W4/*"},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantAllPass(t, rep)
}

// The options W1 gives statuspub serve beyond what the suite passes:
// --dir in place of --config-home, and the first record's --state and
// --title (sanitized, P12).
func TestServeStartOptions(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "home", "status")
	cmd := exec.Command(toolkitCommand(t, "statuspub"), "serve", "--dir", dir, "--session", "s-opts",
		"--agent", "a", "--state", "blocked", "--title", "Start \x1b[1mhere\x1b[0m")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	path := filepath.Join(dir, fileName("s-opts"))
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, err := os.ReadFile(path)
		if err == nil {
			rec, err := statusfile.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			if rec.State != statusfile.Blocked || rec.Title != "Start here" {
				t.Errorf("the first record says state %q title %q, want blocked and %q", rec.State, rec.Title, "Start here")
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no record at %s: %v", path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// watchesHeartbeat reports whether a run that must fail ids watches a
// heartbeat (P9) for 20 s, which sets a test's length.
func watchesHeartbeat(ids []string) bool {
	return slices.ContainsFunc(ids, func(id string) bool { return strings.HasPrefix(id, "P9/") })
}

// firstWhere stably moves the elements for which first holds to the front:
// the long runs start first, so that they set a test's length and no more.
func firstWhere[E any](s []E, first func(E) bool) {
	slices.SortStableFunc(s, func(a, b E) int {
		switch {
		case first(a) && !first(b):
			return -1
		case first(b) && !first(a):
			return 1
		}
		return 0
	})
}
