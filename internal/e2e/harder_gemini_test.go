//go:build linux

package e2e

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// geminiPlanFile is the plan Gemini CLI's plan mode asks the user to
// approve (exit_plan_mode's plan_filename), in the plans folder of
// geminiPlanSettings: written by the test, as the model would have.
const geminiPlanFile = "e2e-plan.md"

// geminiPlanSettings is geminiSettings with the plans in the project's
// folder "plans" (general.plan.directory), where the test can write one
// before the session starts: by default they go into a folder named after
// the session's id.
var geminiPlanSettings = strings.Replace(geminiSettings, `"general": {`, `"general": { "plan": { "directory": "plans" },`, 1)

// Gemini CLI 0.61.0's harder moments. It starts in plan mode
// (--approval-mode plan); the approved plan leaves it. /clear is in
// TestGeminiCLI.
func TestGeminiCLIHarder(t *testing.T) {
	needE2E(t)
	r := startGeminiWith(t, geminiPlanSettings, map[string]string{"plans/" + geminiPlanFile: "# e2e plan\n\n1. Reply done.\n"},
		"--approval-mode", "plan")
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: 90 * time.Second})
	g := geminiKeys
	r.do("plan", g.approved("e2e:plan", "^permission: Plan Approval$", "", "done", "^done$")...)
	// invoke_agent runs a subagent (the generalist) in the caller's turn;
	// its tools run the main session's hooks, its confirmations too.
	r.do("subagent", g.turn("e2e:agent echo sub", "^done$")...)
	r.do("subagent-asks", g.approved("e2e:agent sleep 4; touch e2e-sub", `^Shell: sleep 4; touch e2e-sub$`, geminiApproved, "answer", "^done$")...)
	r.do("compress-turn", g.turn("e2e:text", "")...)
	// /compress shows a spinner ("Compressing chat history") above the
	// input box, which stays open with the footer at rest ("? for
	// shortcuts"): as Copilot CLI's /compact, the session is idle
	// throughout, and so must its status be (PreCompress changes nothing).
	r.do("compress", step{name: "/compress", act: func(r *agentRun) {
		compacting("/compress", geminiTyping, 4*time.Second)(r)
		untilScreen(regexp.MustCompile(`Compressing chat history`))(r)
	}, truth: idle})
	if scenarioSelected("compress") {
		r.holds("compress", "compressing, the input open", idle, 2*time.Second)
		untilScreen(regexp.MustCompile(`Chat history compressed from`))(r)
	}
	noSide(r)
	r.retriesEach(geminiTyping, geminiSettled, 0, 429, 503)
	r.holds("long-idle", fmt.Sprintf("idle %v", longIdle), idle, longIdle)
	r.do("quit", step{name: "/quit", act: geminiTyping("/quit"), truth: gone, within: 30 * time.Second})
}

// scenarioSelected reports whether $AGENTSTATUS_E2E_ONLY selects scenario, as
// agentRun.do tells: for the checks of a scenario that are not steps.
func scenarioSelected(scenario string) bool {
	only := os.Getenv("AGENTSTATUS_E2E_ONLY")
	ok, _ := regexp.MatchString(only, scenario)
	return only == "" || ok
}
