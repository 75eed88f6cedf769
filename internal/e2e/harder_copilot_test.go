//go:build linux

package e2e

import (
	"fmt"
	"os"
	"regexp"
	"testing"
	"time"
)

// Copilot CLI 1.0.102's harder moments (Manual Approval). /clear is in
// TestCopilotCLI.
func TestCopilotCLIHarder(t *testing.T) {
	needE2E(t)
	r := startCopilotWaiting(t)
	r.do("compact-turn",
		step{name: "prompt", act: typingSlowly("e2e:text"), truth: working, settle: copilotSettled},
		step{name: "answer", truth: idle, settle: copilotSettled})
	// /compact summarizes beside the input box, which stays open (the
	// footer at rest): the session is idle throughout, and so must its
	// status be. Its session log's compaction_start and _complete say
	// nothing else (and come from the automatic compaction in the middle
	// of a turn too).
	if copilotRuns("compact") {
		r.do("compact", step{name: "/compact", act: func(r *agentRun) {
			compacting("/compact", typingSlowly, 4*time.Second)(r)
			untilScreen(regexp.MustCompile(`Compacting conversation history`))(r)
		}, truth: idle})
		r.holds("compact", "compacting, the input open", idle, 2*time.Second)
		untilScreen(regexp.MustCompile(`Compaction completed`))(r)
		noSide(r)
	}
	// Each failed attempt runs ErrorOccurred (model_call, recoverable),
	// the same as a failure that ends the turn: the status stays working
	// until the answer, and the session log's session.error, which only
	// the end writes, says when it failed (SPEC §13.1, §13.3).
	r.retries("retry-429",
		step{name: "prompt", act: typingSlowly("e2e:flaky 429"), truth: working, settle: copilotSettled},
		step{name: "answer after retries", truth: idle, settle: copilotSettled, why: "^done$"}, "")
	// A request that fails every time: 1.0.102 retries it five times
	// (about 52 s of waiting), then gives the turn up.
	r.retries("retry-429-exhausted",
		step{name: "prompt", act: typingSlowly("e2e:fail 429"), truth: working, settle: copilotSettled},
		step{name: "retries run out", truth: idle, settle: copilotSettled, within: 2 * time.Minute, why: "^rate limited$"}, "")
	// A server error, retried as a 429 is (the screen works throughout).
	r.retries("retry-500",
		step{name: "prompt", act: typingSlowly("e2e:flaky 500"), truth: working, settle: copilotSettled},
		step{name: "answer after retries", truth: idle, settle: copilotSettled, why: "^done$"}, "")
	r.retries("retry-503",
		step{name: "prompt", act: typingSlowly("e2e:flaky 503"), truth: working, settle: copilotSettled},
		step{name: "answer after retries", truth: idle, settle: copilotSettled, why: "^done$"}, "")
	// Plan mode (Shift+Tab): exit_plan_mode asks the user to approve
	// the plan, in a dialog no notification announces; its PreToolUse
	// does (SPEC.md Y2: a permission, the tool's).
	planning := func(plan string) func(*agentRun) {
		return func(r *agentRun) {
			pressing("BTab")(r) // Interactive, then Plan
			untilScreen(regexp.MustCompile(`Plan · `))(r)
			typingSlowly("e2e:plan " + plan)(r)
		}
	}
	r.do("plan",
		step{name: "prompt", act: planning("Add a README"), truth: blocked, settle: copilotSettled,
			why: "^exit_plan_mode: Add a README$"},
		step{name: "approve", act: pressing("Enter"), truth: idle, settle: copilotSettled, why: "^done$"})
	r.do("plan-dismissed",
		step{name: "prompt", act: planning("Add a LICENSE"), truth: blocked, settle: copilotSettled},
		step{name: "Esc", act: pressing("Escape"), truth: idle, settle: copilotSettled})
	if copilotRuns("long-idle") {
		r.holds("long-idle", fmt.Sprintf("idle %v", longIdle), idle, longIdle)
	}
	r.do("quit", step{name: "/exit", act: typingSlowly("/exit"), truth: gone, within: 30 * time.Second})
	copilotResumes(r)
}

// Copilot CLI 1.0.102's subagents (its task tool), Manual Approval.
func TestCopilotCLISubagents(t *testing.T) {
	needE2E(t)
	r := startCopilotWaiting(t)
	// A subagent (the task tool, sync): its bash asks, in the session's
	// own dialog.
	r.do("subagent",
		step{name: "prompt", act: typingSlowly("e2e:agent sleep 4; touch e2e-sub"), truth: blocked, settle: copilotSettled,
			why: `^permission: sleep 4; touch e2e-sub$`},
		step{name: "approve", act: pressing("Enter"), truth: working, settle: copilotSettled},
		step{name: "done", truth: idle, settle: copilotSettled, why: "^done$"})
	// A background subagent (task mode "background"): the turn that
	// started it ends at once ("done.", Stop), and its bash asks in the
	// session's dialog. Approved, the footer says "Waiting for background
	// agents" until it is done; then the agent takes a turn of its own (a
	// system notification as its prompt) and ends it.
	r.do("background-agent",
		step{name: "prompt", act: typingSlowly("e2e:bgagent sleep 8; echo sub"), truth: blocked, settle: copilotSettled,
			why: `^permission: sleep 8; echo sub`},
		step{name: "approve", act: pressing("Enter"), truth: working, settle: copilotSettled, why: "^1 background agent$"},
		step{name: "the agent's own turn after it", truth: idle, settle: copilotSettled, why: "^done$"})
	// A subagent whose model request fails (HTTP 400, which 1.0.102 does
	// not retry): its own turn ends, with its session.error in the
	// session's log, and the task tool gives the failure to the session's
	// turn, which goes on and answers. The status stays working
	// throughout, and never says the turn failed: the subagent's
	// session.error once ended it in the record, idle and failed until
	// the answer's Stop (1.53 s in one run).
	fails := time.Now()
	r.throughout("subagent-fails", "the subagent fails, the turn goes on (working throughout)",
		step{name: "prompt", act: typingSlowly("e2e:agent e2e:fail 400"), truth: working, settle: copilotSettled},
		step{name: "answer", truth: idle, settle: copilotSettled, why: "^done$"}, "")
	if said, ok := r.status.said(fails, regexp.MustCompile(`^failed`)); copilotRuns("subagent-fails") && ok {
		r.t.Errorf("copilot subagent-fails: the status said %s %q while the session's turn went on\nstatus timeline:\n%s",
			said.state, said.why, r.status.timeline(fails))
	}
	// A background shell (bash mode "async", attached to the session):
	// the turn that starts it ends, and the footer says "Waiting for
	// background shells" until the shell ends; then the agent takes a
	// turn of its own (a system notification as its prompt).
	r.do("background-shell",
		step{name: "prompt", act: typingSlowly("e2e:background sleep 8; echo bg"), truth: blocked, settle: copilotSettled,
			why: `^permission: sleep 8; echo bg$`},
		step{name: "approve", act: pressing("Enter"), truth: working, settle: copilotSettled},
		step{name: "the turn ends, the shell runs", act: untilScreen(regexp.MustCompile(`Waiting for background shells`)),
			truth: working, why: "^1 background task$"},
		step{name: "the agent's own turn after it", truth: idle, settle: copilotSettled, why: "^done$"})
}

// copilotRuns reports whether $AGENTSTATUS_E2E_ONLY lets scenario run, for
// the checks that are not steps (agentRun.holds, untilScreen).
func copilotRuns(scenario string) bool {
	only := os.Getenv("AGENTSTATUS_E2E_ONLY")
	ok, _ := regexp.MatchString(only, scenario)
	return only == "" || ok
}

// said returns the first change since from whose words for why match re.
func (s *sampler) said(from time.Time, re *regexp.Regexp) (sample, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.changes {
		if !c.at.Before(from) && re.MatchString(c.why) {
			return c, true
		}
	}
	return sample{}, false
}
