//go:build linux

package e2e

import (
	"fmt"
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
	r.do("plan",
		step{name: "prompt", act: typing("e2e:plan"), truth: blocked, settle: settled, why: "^ExitPlanMode$"},
		step{name: "approve", act: pressing("Enter"), truth: working, settle: settled},
		step{name: "done", truth: idle, settle: settled, why: "^done$"})
	r.do("compact-turn",
		step{name: "prompt", act: typing("e2e:text"), truth: working, settle: settled},
		step{name: "answer", truth: idle, settle: settled})
	r.do("compact",
		step{name: "/compact", act: compacting("/compact", typing, 3*time.Second), truth: working, settle: settled},
		step{name: "compacted", truth: idle, settle: settled})
	noSide(r)
	r.retriesEach(typing, settled, 0, 429, 529)
	r.holds("long-idle", fmt.Sprintf("idle %v", longIdle), idle, longIdle)
	r.do("quit", step{name: "/exit", act: typing("/exit"), truth: gone})
}
