package conformance

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/testmain"
)

// The misreadings of SPEC.md §6 (freshness), §7 (sanitizing), C4 (what
// readers drop), C7 (which text the name hashes), P8 (atomic replace) and
// P9 (heartbeat) an implementer could plausibly make, each as a broken
// variant of the Python adapters (STATUSPROTO_FLAW=<flaw>), with the cases
// or checks that must fail it. conformance/README.md lists them; the same
// adapters without a flaw pass everything (TestPythonReader,
// TestPublishers).
var pythonReaderFlaws = []struct {
	flaw     string
	mustFail []string
}{
	{"esc-interrupt-kept", []string{"sanitize/title-esc-interrupts-csi"}},
	{"no-8bit-strings", []string{"sanitize/title-8bit-osc", "sanitize/title-8bit-control-strings"}},
	{"sos-pm-apc-as-escape", []string{"sanitize/title-sos-pm-apc"}},
	{"bel-ends-any-string", []string{"sanitize/title-bel-inside-dcs"}},
	{"no-8bit-st", []string{"sanitize/title-8bit-st"}},
	{"esc-aborts-string", []string{"sanitize/title-esc-inside-osc"}},
	{"osc-printable-only", []string{"sanitize/title-osc-holds-anything"}},
	{"drop-last-code-point", []string{"sanitize/title-cut-inside-combining-sequence", "sanitize/title-cut-after-whole-flag"}},
	{"drop-only-when-split", []string{"sanitize/title-cut-after-whole-flag"}},
	{"drop-before-trim", []string{"sanitize/title-cut-drop-after-trim"}},
	{"cut-after-sanitize", []string{"sanitize/title-cut-before-removing-escapes"}},
	{"round-updated-to-ms", []string{"freshness/stale-at-30.0005s"}},
	{"truncate-updated-to-ms", []string{"freshness/future-30.0005s-stale"}},
	{"strip-bom", []string{"records/byte-order-mark"}},
	{"exact-pid", []string{"records/pid-double-rounding-kept"}},
	{"minus-means-negative", []string{"records/pid-negative-zero-kept"}},
	{"int-before-range", []string{"records/pid-infinite"}},
	{"hash-raw-bytes", []string{"names/hash-after-replacement"}},
	{"interrupter-dropped", []string{"sanitize/title-interrupted-by-non-ascii"}},
	{"esc-swallows-next", []string{"sanitize/title-esc-esc-st-ends-string"}},
	{"not-dir-empty", []string{"dir/not-a-directory-file"}},
	{"refuse-silently", []string{"dir/symlink-refused", "dir/group-writable-refused", "dir/not-a-directory-fifo"}},
	{"uppercase-t-z-only", []string{"time/lowercase-t-and-z"}},
	{"unicode-digits", []string{"time/non-ascii-digits"}},
	{"schema-case-insensitive", []string{"records/schema-case"}},
	{"first-key-wins", []string{"compat/duplicate-key-last-wins"}},
	{"one-fffd-per-run", []string{"compat/invalid-utf8-maximal-subparts"}},
	{"hide-dead-pid", []string{"freshness/fresh-with-dead-pid"}},
	{"strict-task-keys", []string{"compat/unknown-keys-in-task"}},
	{"title-null-invalid", []string{"records/task-title-null"}},
	{"why-wrong-type-drops", []string{"records/why-wrong-types"}},
	{"why-any-state", []string{"records/why-wrong-state"}},
	{"why-unsanitized", []string{"records/why-sanitized-capped"}},
	{"why-cut-utf8-bytes", []string{"records/why-cut-counts-utf16-units", "records/why-words-cut-counts-utf16-units"}},
	{"invisible-range-short", []string{"sanitize/invisible-and-space-range-ends"}},
	{"spaces-range-short", []string{"sanitize/invisible-and-space-range-ends"}},
	{"strip-any-white-space", []string{"records/white-space-around-object"}},
	{"why-cut-code-points", []string{"records/why-cut-counts-utf16-units", "records/why-words-cut-counts-utf16-units"}},
	{"background-wrong-type-drops", []string{"records/background-wrong-types-kept"}},
}

var pythonPublisherFlaws = []struct {
	flaw     string
	mustFail []string
}{
	{"temp-without-dot", []string{"P8/temporary-file-dot-named"}},
	{"why-outlives-state", []string{"Y1/why-with-its-state"}},
	{"why-written-cut-utf8-bytes", []string{"Y4/why-cut-utf16-units"}},
	{"no-detail-ended-kept", []string{"Y5/no-detail-flag", "Y5/no-detail-env"}},
	{"no-detail-tool-dropped", []string{"Y5/no-detail-flag", "Y5/no-detail-env"}},
	{"no-detail-flag-ignored", []string{"Y5/no-detail-flag"}},
	{"no-detail-env-ignored", []string{"Y5/no-detail-env"}},
	{"no-detail-env-zero-on", []string{"Y5/no-detail-env-0-keeps-detail"}},
	{"title-cut-code-points", []string{"P12/long-title-cut-non-ascii"}},
	{"escape-uppercase-hex", []string{"E2/control-characters-escaped"}},
	{"escape-controls-as-hex", []string{"E2/control-characters-escaped"}},
	{"surrogates-escaped", []string{"E2/control-characters-escaped"}},
	{"why-members-sorted", []string{"E1/why-compact-encoding"}},
	{"state-any-case", []string{"W3/malformed-lines-refused"}},
	{"no-detail-env-set-on", []string{"Y5/no-detail-env-0-keeps-detail", "Y5/no-detail-env-empty-keeps-detail"}},
	{"temp-in-config-home", []string{"P8/temporary-file-in-status-dir"}},
	{"heartbeat-reset-by-input", []string{"P9/heartbeat-keeps-state"}},
	{"heartbeat-stale-copy", []string{"P9/heartbeat-keeps-state"}},
	{"session-limit-utf16", []string{"N2/session-too-long-multibyte"}},
	{"home-checked-once", []string{"P7/config-home-checked-before-every-write"}},
	{"file-checked-once", []string{"P7/status-file-symlink-after-start", "P7/status-file-hardlink-after-start"}},
	{"keep-file-mode", []string{"P7/status-file-mode-after-start"}},
	{"dir-opened-once", []string{"P7/status-dir-symlink-after-start", "P7/checked-before-every-write", "P7/config-home-checked-before-every-write"}},
}

func pythonFlawCommand(t *testing.T, flaw, script string) []string {
	return append([]string{requireTool(t, "env"), "STATUSPROTO_FLAW=" + flaw}, python(t, script)...)
}

func TestPythonMutants(t *testing.T) {
	testmain.SkipShort(t, "starts the Python publisher and reader under every flaw, heartbeat checks (20 s of real time) included")
	t.Parallel()
	requireTool(t, "python3")
	var wg sync.WaitGroup
	pubReports := make([]*Report, len(pythonPublisherFlaws))
	// Each run starts an interpreter per scenario and calibrates first:
	// not all at once, so that thirty of them do not starve each other
	// into missing the calibration's 20 s on a busy machine. A run mostly
	// waits (a failing check waits out its deadline, a heartbeat check
	// 25 s), so eight at a time, the heartbeat runs first: they set the
	// test's length. (Four at a time, in no order, took 200 s.)
	sem := make(chan struct{}, 8)
	order := make([]int, len(pythonPublisherFlaws))
	for i := range order {
		order[i] = i
	}
	firstWhere(order, func(i int) bool { return watchesHeartbeat(pythonPublisherFlaws[i].mustFail) })
	cmds := make([][]string, len(pythonPublisherFlaws))
	for i, m := range pythonPublisherFlaws {
		cmds[i] = pythonFlawCommand(t, m.flaw, "status_publisher.py")
	}
	// Started in order from a goroutine of their own, while the reader
	// variants below run.
	wg.Go(func() {
		var runs sync.WaitGroup
		for _, i := range order {
			sem <- struct{}{}
			runs.Go(func() {
				defer func() { <-sem }()
				pubReports[i], _ = RunPublisher(context.Background(), Options{Command: cmds[i], Run: pythonPublisherFlaws[i].mustFail})
			})
		}
		runs.Wait()
	})
	wantFailed := func(t *testing.T, rep *Report, flaw string, ids []string) {
		t.Helper()
		if rep == nil {
			t.Fatal("no report")
		}
		for _, id := range ids {
			r, ok := rep.find(id)
			switch {
			case !ok:
				t.Errorf("no case or check %s", id)
			case r.Outcome != outcomeFail:
				t.Errorf("%s: %s, want FAIL for the variant %s", id, r.Outcome, flaw)
			case strings.HasPrefix(r.Reason, "not decided"):
				t.Errorf("%s: failed undecided (%s), want the check itself to fail", id, r.Reason)
			}
		}
	}
	// None of these variants hangs, so a generous timeout without a
	// calibration run cannot turn a failure into a pass; it saves an
	// interpreter start per variant. The variants' cases are forked by one
	// server (as in TestPythonReader), which imports statusproto afresh
	// for each, under the variant's STATUSPROTO_FLAW.
	t.Run("reader", func(t *testing.T) {
		var forked []string
		if forkServerOK {
			forked = pythonForkServer(t, python(t, "status_reader.py"))
		}
		for _, m := range pythonReaderFlaws {
			t.Run(m.flaw, func(t *testing.T) {
				t.Parallel()
				cmd := pythonFlawCommand(t, m.flaw, "status_reader.py")
				if forked != nil {
					cmd = append(cmd[:2:2], forked...)
				}
				rep := runReader(t, Options{Command: cmd, Run: m.mustFail,
					NoCalibrate: true, Timeout: 30 * time.Second})
				wantFailed(t, rep, m.flaw, m.mustFail)
			})
		}
	})
	wg.Wait()
	for i, m := range pythonPublisherFlaws {
		t.Run("publisher/"+m.flaw, func(t *testing.T) { wantFailed(t, pubReports[i], m.flaw, m.mustFail) })
	}
}

// README.md lists every misreading with its variant, and no other.
func TestMisreadingsListed(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "## Misreadings the suite catches")
	section, _, _ = strings.Cut(section, "\n## ")
	listed := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\|").FindAllStringSubmatch(section, -1)
	var names []string
	for _, l := range listed {
		names = append(names, l[1])
	}
	var want []string
	for _, m := range pythonReaderFlaws {
		want = append(want, m.flaw)
	}
	for _, m := range pythonPublisherFlaws {
		want = append(want, m.flaw)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("README.md lists the variants\n  %v\nwant\n  %v", names, want)
	}
	for _, m := range pythonReaderFlaws {
		for _, id := range m.mustFail {
			if !strings.Contains(section, "`"+id+"`") {
				t.Errorf("README.md does not name %s for %s", id, m.flaw)
			}
		}
	}
}

// misreadings lists every mutant the suite's own tests run and require to
// fail: the Python adapters' variants (TestPythonMutants) and the test
// reader's and publisher's flaws (TestBrokenReaders, TestBrokenPublishers),
// each with the cases or checks it must fail.
func misreadings() map[string][]string {
	m := map[string][]string{}
	for _, f := range pythonReaderFlaws {
		m["python reader "+f.flaw] = f.mustFail
	}
	for _, f := range pythonPublisherFlaws {
		m["python publisher "+f.flaw] = f.mustFail
	}
	for _, f := range brokenReaders {
		m["test reader "+f.flaw] = f.mustFail
	}
	for _, f := range brokenPublishers {
		m["test publisher "+f.flaw] = f.mustFail
	}
	return m
}

// Every SPEC.md rule that a reader case or a publisher check names has at
// least one misreading among the mutants above, which the suite is shown
// to catch: a mutant that must fail a case or check of that rule. A new
// rule with a vector but no misreading fails here.
func TestEveryRuleHasMisreading(t *testing.T) {
	rules, _ := specRules(t)
	of := map[string][]string{} // case or check id -> its rules
	for _, c := range loadCases(t) {
		of[c.ID] = c.Rules
	}
	for _, c := range checks() {
		of[c.ID] = c.Rules
	}
	caught := map[string][]string{}
	for name, ids := range misreadings() {
		for _, id := range ids {
			rs, ok := of[id]
			if !ok {
				t.Errorf("%s must fail %s, which is no case or check", name, id)
			}
			for _, r := range rs {
				caught[r] = append(caught[r], name)
			}
		}
	}
	var missing []string
	for id, rs := range of {
		for _, r := range rs {
			if rules[r] != "" && len(caught[r]) == 0 && !slices.Contains(missing, r) {
				missing = append(missing, r)
				t.Errorf("no misreading of %s (checked by %s and maybe others) is shown to be caught: add a mutant that fails a case or check of %s", r, id, r)
			}
		}
	}
}

// README.md's audit table: every row says what exercises its rule and
// names a mutant that fails one of the row's cases or checks, or says why
// the suite holds none.
func TestAuditTable(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Audit: limits, positions, character classes and options")
	if !ok {
		t.Fatal("README.md has no audit section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	ids := map[string]bool{}
	for _, c := range loadCases(t) {
		ids[c.ID] = true
	}
	for _, c := range checks() {
		ids[c.ID] = true
	}
	mutants := misreadings()
	idRE := regexp.MustCompile("`([A-Za-z0-9.-]+/[^`]+)`")
	mutantRE := regexp.MustCompile("`([a-z0-9-]+)`(?:, `[a-z0-9-]+`)* \\((?:each an? )?(Python|test) (reader|publisher)\\)")
	nameRE := regexp.MustCompile("`([a-z0-9-]+)`")
	rows := 0
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) != 4 || strings.HasPrefix(line, "| rule |") || strings.HasPrefix(line, "| --- |") {
			continue
		}
		rows++
		rule, exercised, proof := strings.TrimPrefix(cells[0], "| "), cells[2], strings.TrimSuffix(cells[3], " |")
		if strings.TrimSpace(exercised) == "" || strings.TrimSpace(proof) == "" {
			t.Errorf("%s: an empty cell", rule)
			continue
		}
		var rowIDs []string
		for _, m := range idRE.FindAllStringSubmatch(exercised, -1) {
			switch {
			case ids[m[1]]:
				rowIDs = append(rowIDs, m[1])
			case !strings.HasPrefix(m[1], "internal/"): // a package's tests
				t.Errorf("%s: %s is no case or check", rule, m[1])
			}
		}
		if strings.HasPrefix(proof, "outside the suite: ") {
			continue
		}
		groups := mutantRE.FindAllStringSubmatch(proof, -1)
		if len(groups) == 0 {
			t.Errorf("%s: no mutant named in %q", rule, proof)
		}
		for _, g := range mutantRE.FindAllString(proof, -1) {
			kind := mutantRE.FindStringSubmatch(g)
			prefix := strings.ToLower(kind[2]) + " " + kind[3] + " "
			for _, n := range nameRE.FindAllStringSubmatch(g, -1) {
				mustFail, ok := mutants[prefix+n[1]]
				switch {
				case !ok:
					t.Errorf("%s: no mutant %s%s", rule, prefix, n[1])
				case !slices.ContainsFunc(mustFail, func(id string) bool { return slices.Contains(rowIDs, id) }):
					t.Errorf("%s: %s%s fails none of the row's cases or checks (it fails %v)", rule, prefix, n[1], mustFail)
				}
			}
		}
	}
	if rows < 40 {
		t.Errorf("only %d rows in the audit table", rows)
	}
}
