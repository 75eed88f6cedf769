//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Qwen Code 0.24.4's harder moments ("default" approval mode). /new is
// its /clear (TestQwenCode).
func TestQwenCodeHarder(t *testing.T) {
	needE2E(t)
	r := startQwen(t)
	press := pressing
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: 90 * time.Second})
	// A subagent: in the approval mode "default" the agent tool asks
	// first; the subagent runs in the foreground of the turn, and a
	// confirmation of its own tool is the session's.
	q := qwenKeys
	r.do("subagent", q.approved("e2e:agent pwd", `^agent: e2e subagent$`, "", "done", "^done$")...)
	r.do("subagent-asks",
		step{name: "prompt", act: typingSlowly("e2e:agent timeout 3 tail -f /dev/null; touch e2e-sub"), truth: blocked, settle: qwenSettled,
			why: `^agent: e2e subagent$`},
		step{name: "approve the agent", act: press("Enter"), truth: working, settle: qwenSettled},
		step{name: "its tool asks", truth: blocked, settle: qwenSettled,
			why: `^run_shell_command: timeout 3 tail -f /dev/null; touch e2e-sub$`},
		step{name: "approve its tool", act: press("Enter"), truth: working, settle: qwenSettled},
		step{name: "done", truth: idle, settle: qwenSettled, why: "^done$"})
	// Plan approval: the approval mode "plan", and exit_plan_mode's
	// dialog, which waits for the user's decision.
	r.do("plan",
		step{name: "/approval-mode plan", act: qwenApprovalMode("plan", "plan mode"), truth: idle, settle: time.Second},
		step{name: "prompt", act: typingSlowly("e2e:plan Add a file named e2e-plan"), truth: blocked, settle: qwenSettled,
			why: `^exit_plan_mode`},
		step{name: "approve", act: press("Enter"), truth: working},
		step{name: "done", truth: idle, settle: qwenSettled, why: "^done$"})
	r.do("plan-rejected",
		step{name: "/approval-mode plan", act: qwenApprovalMode("plan", "plan mode"), truth: idle, settle: time.Second},
		step{name: "prompt", act: typingSlowly("e2e:plan Remove nothing"), truth: blocked, settle: qwenSettled,
			why: `^exit_plan_mode`},
		step{name: "Esc", act: press("Escape"), truth: idle, settle: qwenSettled},
		step{name: "/approval-mode default", act: qwenApprovalMode("default", "Ask permissions"), truth: idle, settle: time.Second})
	// Background work: a subagent (the agent tool's default for a
	// top-level call) and a shell (is_background) outlive the turn, and
	// their end starts a turn of Qwen Code's own; the footer counts them
	// meanwhile.
	r.do("background-agent",
		step{name: "prompt", act: typingSlowly("e2e:background agent pwd"), truth: blocked, settle: qwenSettled,
			why: `^agent: e2e background subagent$`},
		step{name: "approve", act: press("Enter"), truth: working, settle: qwenSettled},
		step{name: "the turn ends, the agent runs", act: untilQwenBackground, truth: working,
			why: "^1 background agent$"},
		step{name: "the turn its end starts", truth: idle, settle: qwenSettled, why: "^done$"})
	// A background agent's tool that asks: 0.24.4 runs the
	// PermissionRequest hook (with the agent's agent_id) but shows no
	// dialog; it denies the call at once ("background agents cannot
	// prompt for confirmation") and the agent goes on. The footer lists
	// the agent's shell call until the agent ends.
	r.do("background-agent-asks",
		step{name: "prompt", act: typingSlowly("e2e:background agent timeout 5 tail -f /dev/null; touch e2e-bgask"), truth: blocked, settle: qwenSettled,
			why: `^agent: e2e background subagent$`},
		step{name: "approve", act: press("Enter"), truth: working, settle: qwenSettled},
		// Checked as one span, from the turn's end: the agent is quick.
		step{name: "its tool asks, no dialog; the agent ends, then the turn it starts", act: qwenNoDialog("background-agent-asks"),
			truth: idle, settle: qwenSettled, why: "^done$"})
	r.do("background-shell",
		step{name: "prompt", act: typingSlowly("e2e:background timeout 8 tail -f /dev/null"), truth: blocked, settle: qwenSettled,
			why: `^run_shell_command: timeout 8 tail -f /dev/null$`},
		step{name: "approve", act: press("Enter"), truth: working, settle: qwenSettled},
		// No hook counts a shell: the owner follows its status file
		// (background-shells/<session>/shell-<id>.status).
		step{name: "the turn ends, the shell runs", act: untilQwenBackground, truth: working,
			why: "^1 background task$"},
		step{name: "the turn its end starts", truth: idle, settle: qwenSettled, why: "^done$"})
	// A turn of the user's while a background agent runs: a denial and
	// Esc end that turn, not the agent's work, whose end wakes Qwen Code
	// (the footer still counts it). The subagent reads a FIFO (cat, which
	// asks nothing: 0.24.4 shows no dialog for a background agent's tool)
	// until the harness writes it.
	r.do("background-agent-new-turn",
		step{name: "prompt", act: qwenFIFO(typingSlowly("e2e:background agent cat e2e-bg-fifo")), truth: blocked, settle: qwenSettled,
			why: `^agent: e2e background subagent$`},
		step{name: "approve", act: press("Enter"), truth: working, settle: qwenSettled},
		step{name: "the turn ends, the agent runs", act: untilQwenBackground, truth: working, why: "^1 background agent$"},
		step{name: "a new turn asks", act: typingSlowly("e2e:tool touch e2e-bg-deny"), truth: blocked, settle: qwenSettled,
			why: `^run_shell_command: touch e2e-bg-deny; 1 background agent$`},
		step{name: "deny", act: press("Escape"), truth: working, settle: qwenSettled, why: "^1 background agent$"},
		step{name: "another new turn asks", act: typingSlowly("e2e:tool timeout 9 tail -f /dev/null"), truth: blocked, settle: qwenSettled,
			why: `^run_shell_command: timeout 9 tail -f /dev/null; 1 background agent$`},
		step{name: "approve", act: press("Enter"), truth: working, settle: qwenSettled},
		step{name: "Esc in the tool", act: press("Escape"), truth: working, settle: qwenSettled, why: "^1 background agent$"},
		step{name: "the agent ends, then the turn it starts", act: func(r *agentRun) {
			// The screen stays working after Esc: the status must too.
			r.holds("background-agent-new-turn", "working after Esc while the agent runs", working, 3*time.Second)
			qwenFIFO(nil)(r)
		}, truth: idle, settle: qwenSettled, why: "^done$"})
	r.do("compress-turn", q.turn("e2e:text", "")...)
	r.do("compress",
		step{name: "/compress", act: compacting("/compress", typingSlowly, 3*time.Second), truth: working, settle: qwenSettled},
		step{name: "compressed", truth: idle, settle: qwenSettled})
	noSide(r)
	r.retries("retry-429",
		step{name: "prompt", act: typingSlowly("e2e:flaky 429"), truth: working, settle: qwenSettled},
		step{name: "answer after retries", truth: idle, settle: qwenSettled, why: "^done$"}, "")
	r.holds("long-idle", fmt.Sprintf("idle %v", longIdle), idle, longIdle)
	r.do("quit", step{name: "/quit", act: typingSlowly("/quit"), truth: gone, within: 30 * time.Second})
	qwenResumes(r)
}

// qwenApprovalMode sets Qwen Code's approval mode with /approval-mode and
// waits until the footer shows it by the name it gives it ("plan mode",
// "Ask permissions").
func qwenApprovalMode(mode, shown string) func(*agentRun) {
	return func(r *agentRun) {
		typingSlowly("/approval-mode " + mode)(r)
		untilScreen(regexp.MustCompile(regexp.QuoteMeta(shown) + ` \(shift \+ tab to cycle\)`))(r)
	}
}

// untilQwenBackground waits until Qwen Code's turn is over while the
// footer still counts background work.
func untilQwenBackground(r *agentRun) {
	r.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for s := r.tm.capture(); strings.Contains(s, "esc to cancel") || !qwenBackground.MatchString(s); s = r.tm.capture() {
		if time.Now().After(deadline) {
			r.t.Fatalf("the turn never ended with background work on the footer:\n%s", s)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// qwenFIFO makes the FIFO e2e-bg-fifo in the project, then acts (act not
// nil); with act nil it writes the FIFO, which ends the cat reading it.
func qwenFIFO(act func(*agentRun)) func(*agentRun) {
	return func(r *agentRun) {
		r.t.Helper()
		fifo := filepath.Join(r.tm.dir, "e2e-bg-fifo")
		if act != nil {
			if err := unix.Mkfifo(fifo, 0o600); err != nil {
				r.t.Fatal(err)
			}
			act(r)
			return
		}
		// Opening blocks until the reader is there; never the test.
		go func() {
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.WriteString("end\n")
				f.Close()
			}
		}()
	}
}

// qwenNoDialog checks that, from the end of the turn that started the
// background agent of the scenario background-agent-asks until the agent
// has ended (its footer row ticked, or no agent counted), the screen shows
// no dialog and the status says working throughout; that the footer
// showed the agent's shell call meanwhile (the call that asked); and that
// the denied command never ran.
func qwenNoDialog(scenario string) func(*agentRun) {
	call := regexp.MustCompile(`e2e background subagent \(Shell timeout 5 tail -f /dev/null; touch e2e-bgask`)
	done := regexp.MustCompile(`✔ e2e background subagent \(Shell timeout 5`)
	running := regexp.MustCompile(`· [0-9]+ local agents?\b`)
	return func(r *agentRun) {
		r.t.Helper()
		const name = "no dialog until the agent ends"
		untilQwenBackground(r)
		from := time.Now()
		deadline := from.Add(time.Minute)
		seen := false
		for s := r.tm.capture(); !done.MatchString(s) && running.MatchString(s); s = r.tm.capture() {
			seen = seen || call.MatchString(s)
			if r.classify(s) == blocked {
				r.t.Fatalf("%s %s (%s): the screen shows a dialog:\n%s", r.agent, scenario, name, s)
			}
			if time.Now().After(deadline) {
				r.t.Fatalf("%s %s (%s): the agent never ended:\n%s", r.agent, scenario, name, s)
			}
			time.Sleep(25 * time.Millisecond)
		}
		to := time.Now()
		if !seen {
			r.t.Errorf("%s %s (%s): the footer never showed the agent's call", r.agent, scenario, name)
		}
		wrong := r.status.wrongWithin(from, to, working)
		report(r.agent, scenario, -1, name, working, wrong, true, "")
		if wrong > 0 {
			r.t.Errorf("%s %s (%s): the screen showed working, with no dialog, for %.1f s; the status disagreed for %.2f s of it\nstatus timeline:\n%s",
				r.agent, scenario, name, to.Sub(from).Seconds(), wrong.Seconds(), r.status.timeline(from))
		}
		if _, err := os.Stat(filepath.Join(r.tm.dir, "e2e-bgask")); err == nil {
			r.t.Errorf("%s %s: the background agent's command ran; it should have been denied", r.agent, scenario)
		}
	}
}
