//go:build linux

package e2e

import (
	"fmt"
	"regexp"
	"testing"
	"time"
)

// Claude Code 2.1.332's harder moments. It starts in plan mode; the plan,
// once approved, leaves it. Its subagents are in
// TestClaudeCodeBackgroundAgent, /clear in TestClaudeCode.
func TestClaudeCodeHarder(t *testing.T) {
	needE2E(t)
	r := startClaude(t, "plan")
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second})
	c := claudeKeys
	r.do("plan", c.approved("e2e:plan", "^ExitPlanMode$", "", "done", "^done$")...)
	// A background shell (Bash's run_in_background), after the plan has
	// left plan mode: the turn is given up while it runs ("1 shell still
	// running", the footer's "· 1 shell ·"), and its end starts a turn of
	// Claude Code's own (SPEC.md Y8).
	r.do("background-shell",
		step{name: "prompt", act: typing("e2e:background sleep 8; touch /tmp/e2e-bg"), truth: blocked, settle: settled,
			why: `^Bash: sleep 8; touch /tmp/e2e-bg$`},
		step{name: "approve", act: pressing("Enter"), truth: working, settle: settled},
		step{name: "the turn ends, the shell runs", act: untilScreen(claudeShells), truth: working,
			why: "^1 background task$"},
		step{name: "the shell ends: a turn of its own", act: untilScreen(shellEnded), truth: working},
		step{name: "done", truth: idle, settle: settled, why: "^done$"})
	// A monitor (the Monitor tool, which runs without asking): the same,
	// and each line its command writes starts a turn of Claude Code's own
	// too; 2.1.332's Stop lists it as "monitor".
	r.do("background-monitor",
		step{name: "prompt", act: typing("e2e:background monitor sleep 3; echo e2e-event; sleep 5"), truth: working, settle: settled},
		step{name: "the turn ends, the monitor runs", act: untilScreen(claudeShells), truth: working,
			why: "^1 background task$"},
		step{name: "its event: a turn of its own", act: untilScreen(monitorEvent), truth: working},
		step{name: "the watch ends: a turn of its own", act: untilScreen(monitorEnded), truth: working},
		step{name: "done", truth: idle, settle: settled, why: "^done$"})
	r.do("compact-turn", c.turn("e2e:text", "")...)
	r.do("compact",
		step{name: "/compact", act: compacting("/compact", typing, 3*time.Second), truth: working, settle: settled},
		step{name: "compacted", truth: idle, settle: settled})
	noSide(r)
	r.retriesEach(typing, settled, 0, 429, 529)
	r.holds("long-idle", fmt.Sprintf("idle %v", longIdle), idle, longIdle)
	r.do("quit", step{name: "/exit", act: typing("/exit"), truth: gone})
}

// shellEnded is the line Claude Code writes when a background shell ends,
// as the turn it starts begins.
var shellEnded = regexp.MustCompile(`Background command ".*" completed`)

// monitorEvent and monitorEnded are the lines Claude Code writes when a
// monitor's command writes a line, and when it exits.
var (
	monitorEvent = regexp.MustCompile(`Monitor event: `)
	monitorEnded = regexp.MustCompile(`Monitor ".*" stream ended`)
)
