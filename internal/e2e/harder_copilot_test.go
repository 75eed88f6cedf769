//go:build linux

package e2e

import (
	"fmt"
	"regexp"
	"testing"
	"time"
)

// Copilot CLI 1.0.102's harder moments (Manual Approval). /clear is in
// TestCopilotCLI.
func TestCopilotCLIHarder(t *testing.T) {
	needE2E(t)
	r := startCopilot(t)
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: 90 * time.Second,
		unsignalled: copilotFirstPrompt})
	r.do("compact-turn",
		step{name: "prompt", act: typingSlowly("e2e:text"), truth: working, settle: copilotSettled},
		step{name: "answer", truth: idle, settle: copilotSettled})
	// /compact summarizes beside the input box, which stays open (the
	// footer at rest): the session is idle throughout, and so must its
	// status be. Its session log's compaction_start and _complete say
	// nothing else (and come from the automatic compaction in the middle
	// of a turn too).
	r.do("compact", step{name: "/compact", act: func(r *agentRun) {
		compacting("/compact", typingSlowly, 4*time.Second)(r)
		untilScreen(regexp.MustCompile(`Compacting conversation history`))(r)
	}, truth: idle})
	r.holds("compact", "compacting, the input open", idle, 2*time.Second)
	untilScreen(regexp.MustCompile(`Compaction completed`))(r)
	noSide(r)
	// Each failed attempt runs ErrorOccurred, the same as a failure
	// that ends the turn: the status says failed until the retry's answer
	// (SPEC §13.2).
	r.retries("retry-429",
		step{name: "prompt", act: typingSlowly("e2e:flaky 429"), truth: working, settle: copilotSettled},
		step{name: "answer after retries", truth: idle, settle: copilotSettled, why: "^done$"}, copilotRetried)
	r.holds("long-idle", fmt.Sprintf("idle %v", longIdle), idle, longIdle)
	r.do("quit", step{name: "/exit", act: typingSlowly("/exit"), truth: gone, within: 30 * time.Second})
	copilotResumes(r)
}

// copilotRetried is why a retried model error shows failed.
const copilotRetried = "Copilot CLI 1.0.102 runs the same errorOccurred (model_call, recoverable) for a request it retries (429) " +
	"as for one that ends the turn (400), which statuspub maps to failed; only its session log's session.error tells the end: SPEC §13.2"
