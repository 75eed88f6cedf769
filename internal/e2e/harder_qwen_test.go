//go:build linux

package e2e

import (
	"fmt"
	"testing"
	"time"
)

// Qwen Code 0.24.4's harder moments ("default" approval mode). /new is
// its /clear (TestQwenCode).
func TestQwenCodeHarder(t *testing.T) {
	needE2E(t)
	r := startQwen(t)
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: 90 * time.Second})
	r.do("compress-turn",
		step{name: "prompt", act: typingSlowly("e2e:text"), truth: working, settle: qwenSettled},
		step{name: "answer", truth: idle, settle: qwenSettled})
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
