//go:build linux

package e2e

import (
	"fmt"
	"testing"
	"time"
)

// askBashButSleep is askBash, except for sleep, which the subagent that
// does not ask runs (OpenCode matches each command of a line on its own,
// and its last matching rule wins).
var askBashButSleep = map[string]any{"bash": map[string]any{"*": "ask", "sleep *": "allow"}}

// OpenCode 1.18.33's harder moments. Its plan agent asks nothing (its
// plan_exit tool is behind OPENCODE_EXPERIMENTAL_PLAN_MODE); /clear is in
// TestOpenCode, resume in TestOpenCodeResume.
func TestOpenCodeHarder(t *testing.T) {
	needE2E(t)
	r := startOpenCode(t, askBashButSleep)
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: opencodeStartup})
	// The task tool runs a subagent in a session of its own (parentID):
	// the caller's turn waits for it.
	o := opencodeKeys
	r.do("subagent", o.turn("e2e:agent sleep 5", "^done$")...)
	r.do("subagent-asks", o.approved("e2e:agent touch e2e-asks; sleep 3", `^bash: touch e2e-asks; sleep 3$`, "", "answer", "^done$")...)
	r.do("compact-turn", o.turn("e2e:text", "")...)
	r.do("compact", slow(
		step{name: "/compact", act: func(r *agentRun) {
			r.model.setSide(3 * time.Second)
			slash("/compact", "Compact session", nil)(r)
		}, truth: working, settle: settled},
		step{name: "compacted", truth: idle, settle: settled})...)
	noSide(r)
	r.retriesEach(typing, settled, opencodeTurn, 500, 429)
	r.holds("long-idle", fmt.Sprintf("idle %v", longIdle), idle, longIdle)
	r.do("quit", slow(step{name: "/exit", act: slash("/exit", "Exit the app", nil), truth: gone})...)
}
