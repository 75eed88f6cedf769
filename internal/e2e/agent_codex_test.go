//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Codex, as a new user runs it after `statuspub install codex --trust`:
// with its app-server daemon (its default) and without it
// (`--no-daemon` at install: [features] daemon_auto_start = false).

// codexScreen tells Codex's state from its screen.
//
// The status line "Working (… esc to interrupt)" shows while Codex waits
// for the model or runs a tool, but not while an answer streams; then the
// turn is known to run because the last prompt (a "› " line above the
// input line, itself the last "› " line) has no end below it yet: "Worked
// for …", or a "■" line (interrupted, or the model's error).
func codexScreen(s string) string {
	switch {
	case strings.Contains(s, "Would you like to run the following command?"),
		strings.Contains(s, "Press enter to confirm or esc to cancel"),
		strings.Contains(s, "enter to submit answer"),
		strings.Contains(s, "Implement this plan?"):
		return blocked // an approval, a question, or a plan to approve
	case strings.Contains(s, "esc to interrupt"):
		return working
	}
	lines := strings.Split(s, "\n")
	var prompts []int
	for i, l := range lines {
		if strings.HasPrefix(l, "› ") {
			prompts = append(prompts, i)
		}
	}
	if len(prompts) == 0 {
		return ""
	}
	last := prompts[len(prompts)-1]
	ready := false
	for _, l := range lines[last+1:] {
		ready = ready || strings.Contains(l, " · ")
	}
	if !ready {
		// Until its session is set up, Codex shows the input line with
		// only "? for shortcuts" under it, and drops a prompt's Enter; then
		// the model and folder appear there ("gpt-e2e default · ~/proj").
		return ""
	}
	if len(prompts) == 1 {
		return idle // the input line alone: no turn on screen
	}
	for _, l := range lines[prompts[len(prompts)-2]+1 : last] {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "Worked for") || strings.HasPrefix(t, "■") {
			return idle
		}
	}
	return working
}

// codexRun is a Codex session under test.
type codexRun struct {
	*agentRun
	home string
}

// startCodex starts Codex in tmux, its hooks installed and trusted with
// `statuspub install codex --trust` (plus install's extra flags), and
// samples the status.
func startCodex(t *testing.T, installFlags ...string) *codexRun {
	t.Helper()
	m := startModel(t, responsesHandler)
	home, proj := newHome(t)
	// The scripted model as the provider, the folder trusted, no update
	// check: what a user with a configured provider has.
	config := fmt.Sprintf(`model = "gpt-e2e"
model_provider = "e2e"
check_for_update_on_startup = false

[model_providers.e2e]
name = "e2e"
base_url = "%s/v1"
wire_api = "responses"
env_key = "AGENTSTATUS_E2E_KEY"

[projects.%q]
trust_level = "trusted"

[analytics]
enabled = false
`, m.url, proj)
	writeHome(t, home, map[string]string{".codex/config.toml": config})
	env := userEnv(home, "SHELL=/bin/bash", "AGENTSTATUS_E2E_KEY=sk-agentstatus-e2e-dummy")
	out := install(t, env, append([]string{"codex", "--trust"}, installFlags...)...)
	t.Logf("statuspub install codex --trust %s:\n%s", strings.Join(installFlags, " "), out)
	traceCodexHooks(t, home)
	tm := startTmux(t, proj, env, []string{pinned["codex"].path()})
	r := &codexRun{home: home}
	t.Cleanup(func() { r.killDaemon() })
	r.agentRun = watchAgent(t, "codex", home, tm, m, codexScreen)
	return r
}

// killDaemon ends the app-server daemon this test's Codex started, which
// outlives the TUI: the processes whose program lies in this HOME.
func (r *codexRun) killDaemon() {
	ents, _ := os.ReadDir("/proc")
	prefix := filepath.Join(r.home, ".codex") + "/"
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && strings.HasPrefix(exe, prefix) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// noSignal checks a moment where Codex 0.171.0 gives no signal (SPEC.md
// §13.2): once the screen shows truth, the status shows shown instead for
// at least the documented time, and (when then is not "") becomes then
// within upTo. It reports the measured wrong time as the other steps do,
// and fails when the status is right sooner: then the exception is gone
// and SPEC.md must say so.
func (r *codexRun) noSignal(scenario string, st step, shown string, atLeast time.Duration, then string, upTo time.Duration) {
	r.t.Helper()
	if only := os.Getenv("AGENTSTATUS_E2E_ONLY"); only != "" && scenario != "start" {
		if ok, _ := regexp.MatchString(only, scenario); !ok {
			return
		}
	}
	if st.act != nil {
		st.act(r.agentRun)
	}
	t0, ok := r.waitScreen(st)
	if !ok {
		r.t.Fatalf("codex %s (%s): the screen never showed %s:\n%s", scenario, st.name, st.truth, r.tm.capture())
	}
	time.Sleep(time.Until(t0.Add(atLeast)))
	if got := r.status.at(time.Now()); got != shown {
		r.t.Errorf("codex %s (%s): %v after the screen showed %s the status is %q, not the %q SPEC.md §13.2 documents:\n%s",
			scenario, st.name, atLeast, st.truth, got, shown, r.status.timeline(t0))
	}
	want := st.truth
	if then != "" {
		want = then
	}
	deadline := t0.Add(upTo)
	for time.Now().Before(deadline) {
		if at, ok := r.status.agreeAfter(t0.Add(atLeast), want); ok {
			report(r.agent, scenario, 0, st.name+" (no signal: SPEC.md §13.2)", st.truth, at.Sub(t0), true, "")
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	report(r.agent, scenario, 0, st.name+" (no signal: SPEC.md §13.2)", st.truth, time.Since(t0), false, "")
	if then != "" {
		r.t.Errorf("codex %s (%s): the status never became %s within %v:\n%s", scenario, st.name, then, upTo, r.status.timeline(t0))
	}
}

// codexSettled is how long a state must stay on screen to count.
const codexSettled = 300 * time.Millisecond

// codexKeys is how the moments' steps talk to Codex.
var codexKeys = keys{typ: typing, settle: codexSettled}

// codexTurns is the scenario matrix after the start, in Codex's default
// permission mode (on-request approvals, a workspace-write sandbox): the
// scripted tool calls ask to run outside the sandbox, so each asks for
// approval.
func codexTurns(r *codexRun) {
	r.do("text",
		step{name: "prompt", act: typing("e2e:text"), truth: working},
		step{name: "answer", truth: idle, settle: codexSettled, why: "^done$"})
	// Approval: y; the tool then runs 4 s with no hook until PostToolUse.
	x := codexKeys
	r.do("approve", x.asks("e2e:tool sleep 4", "^Bash: sleep 4$")...)
	r.noSignal("approve", step{name: "approve", act: pressing("y"), truth: working, settle: codexSettled},
		blocked, 2*time.Second, "", 10*time.Second)
	r.do("approve", step{name: "tool ends", truth: idle, settle: codexSettled})
	r.do("deny", x.asks("e2e:tool echo denied", "", x.step("deny (Esc)", pressing("Escape"), idle, "^cancelled$"))...)
	r.do("esc-in-tool", x.asks("e2e:tool sleep 60", "")...)
	r.noSignal("esc-in-tool", step{name: "approve", act: pressing("y"), truth: working, settle: codexSettled},
		blocked, 2*time.Second, "", 2*time.Second)
	r.do("esc-in-tool", x.step("Esc", pressing("Escape"), idle, "^cancelled$"))
	r.do("esc-streaming",
		step{name: "prompt", act: typing("e2e:slow"), truth: working, settle: time.Second},
		x.step("Esc", pressing("Escape"), idle, "^cancelled$"))
	// The model answers HTTP 400: no hook; the rollout file's
	// task_complete with an error is the only signal (the heartbeat owner
	// follows it).
	r.do("failed-turn", x.failed("e2e:fail 400", "^failed")...)
	r.do("parallel",
		step{name: "prompt", act: typing("e2e:parallel echo one ;; echo two"), truth: blocked, settle: codexSettled},
		step{name: "approve the first", act: pressing("y"), truth: blocked, settle: codexSettled, within: 10 * time.Second},
		step{name: "approve the second", act: pressing("y"), truth: idle, settle: codexSettled})
	// request_user_input works in Plan mode only (shift+tab).
	r.do("question",
		step{name: "Plan mode", act: pressing("BTab"), truth: idle, settle: codexSettled},
		step{name: "prompt", act: typing("e2e:ask Which database?"), truth: blocked, settle: codexSettled,
			why: `^question: Which database\?$`},
		step{name: "answer", act: pressing("Enter"), truth: idle, settle: codexSettled},
		step{name: "default mode", act: pressing("BTab"), truth: idle, settle: codexSettled})
	r.do("clear", step{name: "/clear", act: typing("/clear"), truth: idle, settle: time.Second})
	// The thread /clear left stays loaded, its record idle, until Codex
	// unloads it (SessionEnd): the first turn after /clear shows two
	// records.
	r.do("after-clear",
		step{name: "prompt", act: typing("e2e:text"), truth: working},
		step{name: "answer", truth: idle, settle: codexSettled})
}

// Codex without its daemon: each TUI runs its own hooks, and /quit sends
// SessionEnd.
func TestCodex(t *testing.T) {
	needE2E(t)
	r := startCodex(t, "--no-daemon")
	// No hook runs before the first prompt: the record appears with it.
	r.noSignal("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second},
		gone, 5*time.Second, "", 2*time.Second)
	codexTurns(r)
	r.do("quit", step{name: "/quit", act: typing("/quit"), truth: gone})
}

func TestCodexKilled(t *testing.T) {
	needE2E(t)
	r := startCodex(t, "--no-daemon")
	r.noSignal("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second},
		gone, 2*time.Second, "", time.Second)
	r.do("prompt",
		step{name: "prompt", act: typing("e2e:text"), truth: working},
		step{name: "answer", truth: idle, settle: time.Second})
	r.do("kill-9", step{name: "kill -9", act: func(ar *agentRun) {
		// The pane runs node, which runs Codex's binary: kill that one.
		for _, pid := range childPids(ar.tm.pid()) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		syscall.Kill(ar.tm.pid(), syscall.SIGKILL)
	}, truth: gone})
}

// Codex with its app-server daemon, its default: the hooks run in the
// daemon, which keeps a thread loaded about 60 s after its last client
// left, and then sends SessionEnd.
func TestCodexDaemon(t *testing.T) {
	needE2E(t)
	r := startCodex(t)
	r.noSignal("daemon-start", step{name: "waits for the first prompt", truth: idle, settle: time.Second},
		gone, 5*time.Second, "", 2*time.Second)
	r.do("daemon-text",
		step{name: "prompt", act: typing("e2e:text"), truth: working},
		step{name: "answer", truth: idle, settle: codexSettled})
	r.noSignal("daemon-quit", step{name: "/quit", act: typing("/quit"), truth: gone},
		idle, 30*time.Second, gone, 90*time.Second)
	if _, err := os.Stat(filepath.Join(r.home, ".codex", "app-server-daemon", "daemon.pid")); err != nil {
		t.Errorf("no daemon ran: %v", err)
	}
}

// childPids lists the children of pid.
func childPids(pid int) []int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, append(childPids(n), n)...)
		}
	}
	return out
}
