package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
)

// specRules parses SPEC.md: every rule "**X<n>.** text" with its text
// (markdown emphasis removed, white space collapsed), and the whole
// document normalized the same way.
func specRules(t testing.TB) (map[string]string, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "SPEC.md"))
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	re := regexp.MustCompile(`(?m)^- \*\*([A-Z]{1,2}[0-9]{1,2})\.\*\* ((?:.*\n)(?:  .*\n)*)`)
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		if _, dup := rules[m[1]]; dup {
			t.Errorf("SPEC.md defines %s twice", m[1])
		}
		rules[m[1]] = normalize(m[1] + ". " + m[2])
	}
	if len(rules) < 50 {
		t.Fatalf("found only %d rules in SPEC.md", len(rules))
	}
	return rules, normalize(string(data))
}

func normalize(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "**", "")), " ")
}

func TestVectorsAreWellFormed(t *testing.T) {
	rules, spec := specRules(t)
	cases := loadCases(t)
	if len(cases) < 100 {
		t.Errorf("only %d cases", len(cases))
	}
	ids := map[string]bool{}
	for _, c := range cases {
		if ids[c.ID] {
			t.Errorf("%s: id used twice", c.ID)
		}
		ids[c.ID] = true
		if _, err := os.Stat(filepath.Join("testdata", "reader", filepath.FromSlash(c.ID)+".txt")); err != nil {
			t.Errorf("%s: the id is not the path of its file: %v", c.ID, err)
		}
		if c.Description == "" {
			t.Errorf("%s: no description", c.ID)
		}
		quoted := map[string]bool{}
		for _, q := range c.Requirements {
			label, text, ok := strings.Cut(q, ". ")
			if !ok || text == "" {
				t.Errorf("%s: requirement %q is not 'ID. quoted text'", c.ID, q)
				continue
			}
			switch {
			case strings.HasPrefix(label, "§"):
				if !strings.Contains(spec, normalize(text)) {
					t.Errorf("%s: quote not found in SPEC.md: %q", c.ID, text)
				}
			case rules[label] == "":
				t.Errorf("%s: requirement of unknown rule %q", c.ID, label)
			case !slices.Contains(c.Rules, label):
				t.Errorf("%s: quotes %s, which its rules do not list", c.ID, label)
			case !strings.Contains(rules[label], normalize(text)):
				t.Errorf("%s: the quote of %s is not in SPEC.md's text of it:\n  quote: %s\n  rule:  %s", c.ID, label, text, rules[label])
			default:
				quoted[label] = true
			}
		}
		for _, r := range c.Rules {
			if rules[r] == "" {
				t.Errorf("%s: SPEC.md has no rule %s", c.ID, r)
			} else if !quoted[r] {
				t.Errorf("%s: lists rule %s but does not quote it", c.ID, r)
			}
		}
		for _, s := range c.Sessions {
			if s.Session == "" || s.State == "" {
				t.Errorf("%s: expected session without session or state", c.ID)
			}
		}
	}
}

// Every rule of SPEC.md is checked by a reader case or a publisher check,
// or is exempt for a stated reason.
func TestEveryRuleCovered(t *testing.T) {
	rules, _ := specRules(t)
	covered := map[string][]string{}
	byCase := map[string]bool{}
	for _, c := range loadCases(t) {
		for _, r := range c.Rules {
			covered[r] = append(covered[r], c.ID)
			byCase[r] = true
		}
	}
	for _, c := range checks() {
		for _, r := range c.Rules {
			covered[r] = append(covered[r], c.ID)
		}
	}
	// The ACP traces, which statusconform acp replays through a bridge.
	acp, err := ACPTraces("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range acp {
		for _, r := range acpRules {
			covered[r] = append(covered[r], "acp/"+tr.ID)
		}
	}
	for id := range rules {
		if why, ok := exempt[id]; ok {
			if len(covered[id]) > 0 {
				t.Errorf("%s is exempt (%s) but %v check it; drop the exemption", id, why, covered[id])
			}
			continue
		}
		if len(covered[id]) == 0 {
			t.Errorf("nothing checks %s: %s", id, rules[id])
		}
	}
	for id := range exempt {
		if rules[id] == "" {
			t.Errorf("exemption of %s, which SPEC.md does not define", id)
		}
	}
	// The reader's rules are checked by reader cases.
	readerRule := regexp.MustCompile(`^(R[0-9]+|FR[0-9]+|C[0-9]+|T2)$`)
	for id := range rules {
		if readerRule.MatchString(id) && exempt[id] == "" && !byCase[id] {
			t.Errorf("no reader case checks %s", id)
		}
	}
}

// exempt are the rules nothing in the suite can check, and why.
var exempt = map[string]string{
	"L1":  "the harness always names the config home (W1, STATUS_DIR); checking the default ~/.pi/gentle-ai would read or write the real home directory. internal/location's tests cover it",
	"H9":  "an adapter's exit status is the command's, not the reader or publisher protocol's; the hook traces check it on every payload (statusconform hooks fails an adapter that exits non-zero), and internal/cli/clitest/testdata/hook_never_exits_2.txtar on broken command lines",
	"S3":  "how a reader's user selects states is its command line, not its output; internal/cli/clitest/testdata/state_typos.txtar checks statusls",
	"H1":  "hook publishers (§13) are short-lived commands, not line-protocol publishers the harness can drive; internal/cli/statuspub's tests check the locks, the owner and its lifetime, the agent pid and the exit status",
	"H2":  "hook publishers (§13) are short-lived commands, not line-protocol publishers the harness can drive; internal/cli/statuspub's tests check the locks, the owner and its lifetime, the agent pid and the exit status",
	"H3":  "hook publishers (§13) are short-lived commands, not line-protocol publishers the harness can drive; internal/cli/statuspub's tests check the locks, the owner and its lifetime, the agent pid and the exit status",
	"H4":  "hook publishers (§13) are short-lived commands, not line-protocol publishers the harness can drive; internal/cli/statuspub's tests check the locks, the owner and its lifetime, the agent pid and the exit status",
	"H5":  "hook publishers (§13) are short-lived commands, not line-protocol publishers the harness can drive; internal/cli/statuspub's tests check the locks, the owner and its lifetime, the agent pid and the exit status",
	"H6":  "hook publishers (§13) are short-lived commands, not line-protocol publishers the harness can drive; internal/cli/statuspub's tests check the locks, the owner and its lifetime, the agent pid and the exit status",
	"H7":  "hook publishers (§13) are short-lived commands, not line-protocol publishers the harness can drive; internal/cli/statuspub's tests check the locks, the owner and its lifetime, the agent pid and the exit status",
	"H8":  "hook publishers (§13) are short-lived commands, not line-protocol publishers the harness can drive; internal/cli/statuspub's tests check the locks, the owner and its lifetime, the agent pid and the exit status",
	"H14": "the agent's way of running hooks is outside any harness; internal/cli/statuspub's tests run the adapters under sh -c, bash -c, bash -lc and exec form, and examples/ runs the OpenCode plugin",
	"H21": "the hook traces check it (the why: lines of claude/late-permission-prompt and codex/real-parallel-approvals, with the notification-replaces-wait flaw), and internal/cli/statuspub's TestChangeApplyWhy",
	"H22": "what a source file says of a turn's end is the heartbeat owner's: internal/agenthook's TestCodexRolloutEvent (CodexRolloutEnded on the recorded rollout) and SourceEnded, and the real-agent harness (internal/e2e)",
	"A2":  "how the bridge writes (a goroutine of its own, the heartbeat owner) is seen only in timing and process trees: internal/acpbridge's TestRunFailedWriteKeepsTheStream and internal/cli/statuspub's TestACPKillOfTheProcessTree check it",
	"A6":  "a negative rule (what the bridge never guesses): the ACP traces' unchanged lines check that the rest writes nothing (A5), and internal/acpbridge's TestTracker the messages named here",
	"A7":  "it names the traces and statusconform acp themselves: TestACPTracesParse and TestACPTracesAgainstStatuspub run them, and TestPythonACPBridge shows that they catch a flawed bridge",
	"Y7":  "the words of this toolkit's displays, not of the reader protocol (which compares the keys themselves): statusfile's TestWhy, and the hook traces' why: lines",
	"H15": "the hook traces check it ('unchanged' steps), not the reader or publisher suites",
	"H16": "a negative rule about adapters' mappings: the hook traces hold no timed steps, and internal/agenthook is pure (no clock)",
	"H17": "following an agent's own state file is the heartbeat owner's, not a line-protocol publisher's; internal/cli/statuspub's TestOwnerFollowsClaudeSessionFile and the real-agent harness (internal/e2e) check it",
	"H18": "following an agent's own state file is the heartbeat owner's, not a line-protocol publisher's; internal/cli/statuspub's TestOwnerFollowsClaudeSessionFile and the real-agent harness (internal/e2e) check it",
	"H19": "following an agent's own state file is the heartbeat owner's, not a line-protocol publisher's; internal/cli/statuspub's TestOwnerFollowsClaudeSessionFile and the real-agent harness (internal/e2e) check it",
	"H20": "what a source file says is read by internal/agenthook's pure SourceState, table-tested and fuzzed on the recorded files",
	"R15": "watching (SPEC.md §8.1) is not part of the reader protocol, which runs a reader once per case; watch/'s script tests check it",
	"R16": "watching (SPEC.md §8.1) is not part of the reader protocol, which runs a reader once per case; watch/'s script tests check it",
	"R17": "watching (SPEC.md §8.1) is not part of the reader protocol, which runs a reader once per case; watch/'s script tests check it",
	"R18": "watching (SPEC.md §8.1) is not part of the reader protocol, which runs a reader once per case; watch/'s script tests check it",
	"R19": "watching (SPEC.md §8.1) is not part of the reader protocol, which runs a reader once per case; watch/'s script tests check it",
	"R20": "programs over records (SPEC.md §8.2) are statusls's --jq, not part of the reader protocol; internal/cli/statusls's jq tests check them",
	"R21": "programs over records (SPEC.md §8.2) are statusls's --jq-files, not part of the reader protocol; internal/cli/statusls's jq tests check them",
	"R22": "programs over records (SPEC.md §8.2) are statusls's jq modes, not part of the reader protocol; internal/jqrun/gojqrun's and internal/cli/statusls's jq tests check the time limit",
	"R24": "statusls's table is this toolkit's display, not the reader protocol; internal/render's and internal/cli/statusls's table tests check the WHY column",
	"R25": "statusls's own output; the reader cases records/why-* check the same keys through the reader protocol (statusls --ndjson), and internal/render's tests the --json forms",
	"R26": "watching is this toolkit's (SPEC.md §8.1); watch's script test reasons.txt checks it",
	"R27": "other machines are this toolkit's (SPEC.md §15); remote's tests check it against a real sshd, and its fuzz target the decoding",
	"V6":  "the event stream of statusls watch (SPEC.md §12) is this toolkit's interface, not something other readers or publishers implement; internal/cli/statusls's watch tests check it",
	"V7":  "the event stream of statusls watch (SPEC.md §12) is this toolkit's interface, not something other readers or publishers implement; internal/cli/statusls's watch tests check it on a fake clock",
	"V1":  "the event stream of statusls watch (SPEC.md §12) is this toolkit's interface, not something other readers or publishers implement; internal/cli/statusls's watch tests check it",
	"V2":  "the event stream of statusls watch (SPEC.md §12) is this toolkit's interface, not something other readers or publishers implement; internal/cli/statusls's watch tests check it",
	"V3":  "the event stream of statusls watch (SPEC.md §12) is this toolkit's interface, not something other readers or publishers implement; internal/cli/statusls's watch tests check it",
	"V4":  "the event stream of statusls watch (SPEC.md §12) is this toolkit's interface, not something other readers or publishers implement; internal/cli/statusls's watch tests check it",
	"V5":  "the event stream of statusls watch (SPEC.md §12) is this toolkit's interface, not something other readers or publishers implement; internal/cli/statusls's watch tests check it",
	"H10": "hook publishers (§13) are short-lived commands, not line-protocol publishers the harness can drive; internal/cli/statuspub's tests check the locks, the owner and its lifetime, the agent pid and the exit status",
	"H11": "hook publishers (§13) are short-lived commands, not line-protocol publishers the harness can drive; internal/cli/statuspub's tests check the locks, the owner and its lifetime, the agent pid and the exit status",
	"H12": "hook publishers (§13) are short-lived commands, not line-protocol publishers the harness can drive; internal/cli/statuspub's tests check the locks, the owner and its lifetime, the agent pid and the exit status",
	"H13": "hook publishers (§13) are short-lived commands, not line-protocol publishers the harness can drive; internal/cli/statuspub's tests check the locks, the owner and its lifetime, the agent pid and the exit status",
	"D1":  "pruning (SPEC.md §8.3) is statusls prune, a command, not part of the reader protocol; internal/cli/statusls's prune tests and perm's removal tests check it",
	"D2":  "pruning (SPEC.md §8.3) is statusls prune, a command, not part of the reader protocol; internal/cli/statusls's prune tests and perm's removal tests check it",
	"D3":  "pruning (SPEC.md §8.3) is statusls prune, a command, not part of the reader protocol; internal/cli/statusls's prune tests and perm's removal tests check it",
	"D4":  "pruning (SPEC.md §8.3) is statusls prune, a command, not part of the reader protocol; internal/cli/statusls's prune tests and perm's removal tests check it",
	"D5":  "pruning (SPEC.md §8.3) is statusls prune, a command, not part of the reader protocol; internal/cli/statusls's prune tests and perm's removal tests check it",
	"FR5": "pid liveness is not part of the reader protocol's output; reader's liveness tests and statusls prune's tests check that a seemingly reused pid is not taken for proof",
	"M1":  "statusls --host (SPEC.md §15) is this toolkit's own use of ssh, not something other readers or publishers implement; remote/ and internal/cli/statusls's tests check it against a real sshd",
	"M2":  "statusls --host (SPEC.md §15) is this toolkit's own use of ssh, not something other readers or publishers implement; remote/ and internal/cli/statusls's tests check it against a real sshd",
	"M3":  "statusls --host (SPEC.md §15) is this toolkit's own use of ssh, not something other readers or publishers implement; remote/ and internal/cli/statusls's tests check it against a real sshd",
	"M4":  "statusls --host (SPEC.md §15) is this toolkit's own use of ssh, not something other readers or publishers implement; remote/ and internal/cli/statusls's tests check it against a real sshd",
	"M5":  "statusls --host (SPEC.md §15) is this toolkit's own use of ssh, not something other readers or publishers implement; remote/ and internal/cli/statusls's tests check it against a real sshd",
	"M6":  "statusls --host (SPEC.md §15) is this toolkit's own use of ssh, not something other readers or publishers implement; remote/ and internal/cli/statusls's tests check it against a real sshd",
	"M7":  "statusls --host (SPEC.md §15) is this toolkit's own use of ssh, not something other readers or publishers implement; remote/ and internal/cli/statusls's tests check it against a real sshd",
	"M8":  "statusls --host (SPEC.md §15) is this toolkit's own use of ssh, not something other readers or publishers implement; remote/ and internal/cli/statusls's tests check it against a real sshd",
	"M9":  "statusls --host (SPEC.md §15) is this toolkit's own use of ssh, not something other readers or publishers implement; remote/ and internal/cli/statusls's tests check it against a real sshd",
	"M10": "statusls --host (SPEC.md §15) is this toolkit's own use of ssh, not something other readers or publishers implement; remote/ and internal/cli/statusls's tests check it against a real sshd",
	"R14": "the reader protocol compares the set of sessions, in any order (issue 6); the order of a listing is for people and statusls's own tests check it",
}

func TestMaterializeAll(t *testing.T) {
	t.Parallel()
	cases := loadCases(t)
	dir := t.TempDir()
	_, skipped, err := Materialize(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeAll(dir) })
	for _, c := range cases {
		root := filepath.Join(dir, filepath.FromSlash(c.ID))
		if why, ok := skipped[c.ID]; ok {
			if isRoot() {
				t.Errorf("%s skipped as root: %s", c.ID, why)
			}
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, expectedFile))
		if err != nil {
			t.Error(err)
			continue
		}
		var e expectedJSON
		if err := json.Unmarshal(data, &e); err != nil {
			t.Errorf("%s: expected.json: %v", c.ID, err)
			continue
		}
		if e.ID != c.ID || e.Now != c.NowText || len(e.Sessions) != len(c.Sessions) {
			t.Errorf("%s: expected.json says %+v", c.ID, e)
		}
		statusDir := filepath.Join(root, filepath.FromSlash(e.Env["STATUS_DIR"]))
		fi, err := os.Lstat(statusDir)
		switch {
		case c.Dir.NotDir != "":
			if err != nil || c.Dir.NotDir == vector.File && !fi.Mode().IsRegular() || c.Dir.NotDir == vector.FIFO && fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("%s: the status directory's path is %v (%v), want a %s", c.ID, fi, err, c.Dir.NotDir)
			}
		case c.Dir.Missing:
			if !os.IsNotExist(err) {
				t.Errorf("%s: the status directory exists", c.ID)
			}
		case err != nil:
			t.Errorf("%s: %v", c.ID, err)
		case c.Dir.Symlink != (fi.Mode()&os.ModeSymlink != 0):
			t.Errorf("%s: status directory mode %v", c.ID, fi.Mode())
		case !c.Dir.Symlink && unixLike && fi.Mode().Perm() != c.Dir.Mode:
			t.Errorf("%s: status directory mode %v, want %v", c.ID, fi.Mode().Perm(), c.Dir.Mode)
		}
		for _, en := range c.Entries {
			fi, err := os.Lstat(filepath.Join(statusDir, en.Name))
			if err != nil {
				t.Errorf("%s: %v", c.ID, err)
				continue
			}
			if en.Kind == vector.File && (fi.Size() != int64(len(en.Data)) || unixLike && fi.Mode().Perm() != en.Mode) {
				t.Errorf("%s: %s: %d bytes mode %v, want %d bytes mode %v", c.ID, en.Name, fi.Size(), fi.Mode(), len(en.Data), en.Mode)
			}
		}
	}
}

func BenchmarkMaterialize(b *testing.B) {
	cases, err := cases()
	if err != nil {
		b.Fatal(err)
	}
	var c *vector.Case
	for _, x := range cases {
		if x.ID == "files/size-1mib" {
			c = x
		}
	}
	for b.Loop() {
		dir := b.TempDir()
		if _, err := writeCase(c, dir); err != nil {
			b.Fatal(err)
		}
	}
}
