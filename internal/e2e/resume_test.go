//go:build linux

package e2e

import (
	"regexp"
	"testing"
	"time"
)

// Resuming a session: the user quits the agent, then starts it again in
// the same terminal with its resume flag (claude --continue, codex resume
// --last, gemini --resume latest, opencode --continue, copilot --continue,
// qwen --continue). The resumed session shows its old conversation and
// waits for a prompt; its next turn works as any other.

// respawn runs argv in the pane again, in the folder and environment the
// first command had: the agent started anew in the same terminal (the
// pane stays after the agent exits, remain-on-exit).
func (tm *tmux) respawn(argv []string) {
	args := []string{"respawn-pane", "-k", "-t", "e2e", "-c", tm.dir}
	for _, kv := range tm.env {
		args = append(args, "-e", kv)
	}
	tm.run(append(args, argv...)...)
}

// restarting starts argv in the agent's pane again.
func restarting(argv ...string) func(*agentRun) {
	return func(r *agentRun) { r.tm.respawn(argv) }
}

func TestClaudeCodeResume(t *testing.T) {
	needE2E(t)
	r := startClaude(t, "default")
	claude := pinned["claude"].path()
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second})
	r.do("resume-first",
		step{name: "prompt", act: typing("e2e:text"), truth: working, settle: settled},
		step{name: "answer", truth: idle, settle: settled},
		step{name: "/exit", act: typing("/exit"), truth: gone})
	for _, flag := range []string{"--continue", "--resume"} {
		var pick func(*agentRun)
		if flag == "--resume" {
			// --resume without an id lists the sessions: Enter picks the
			// latest.
			pick = func(r *agentRun) {
				untilScreen(regexp.MustCompile(`(?i)resume session|search`))(r)
				time.Sleep(300 * time.Millisecond)
				r.tm.send("Enter")
			}
		}
		r.do("resume"+flag,
			step{name: "claude " + flag, act: func(r *agentRun) {
				restarting(claude, "--permission-mode", "default", flag)(r)
				if pick != nil {
					pick(r)
				}
			}, truth: idle, settle: time.Second},
			step{name: "prompt", act: typing("e2e:text"), truth: working, settle: settled},
			step{name: "answer", truth: idle, settle: settled, why: "^done$"},
			step{name: "/exit", act: typing("/exit"), truth: gone})
	}
}

func TestGeminiCLIResume(t *testing.T) {
	needE2E(t)
	r := startGemini(t)
	gemini := pinned["gemini"].path()
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: 90 * time.Second})
	r.do("resume-first",
		step{name: "prompt", act: geminiTyping("e2e:text"), truth: working, settle: geminiSettled},
		step{name: "answer", truth: idle, settle: geminiSettled},
		step{name: "/quit", act: geminiTyping("/quit"), truth: gone, within: 30 * time.Second})
	r.do("resume",
		step{name: "gemini --resume latest", act: restarting(gemini, "--resume", "latest"), truth: idle, settle: time.Second,
			within: 90 * time.Second},
		step{name: "prompt", act: geminiTyping("e2e:text"), truth: working, settle: geminiSettled},
		step{name: "answer", truth: idle, settle: geminiSettled, why: "^done$"},
		step{name: "/quit", act: geminiTyping("/quit"), truth: gone, within: 30 * time.Second})
}

func TestOpenCodeResume(t *testing.T) {
	needE2E(t)
	r := startOpenCode(t, askBash)
	opencode := pinned["opencode"].path()
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: opencodeStartup})
	r.do("resume-first", slow(
		step{name: "prompt", act: typing("e2e:text"), truth: working, settle: settled},
		step{name: "answer", truth: idle, settle: settled},
		step{name: "/exit", act: slash("/exit", "Exit the app", nil), truth: gone})...)
	r.do("resume", slow(
		step{name: "opencode --continue", act: restarting(opencode, r.tm.dir, "--continue"), truth: idle, settle: time.Second,
			within: opencodeStartup},
		step{name: "prompt", act: typing("e2e:text"), truth: working, settle: settled},
		step{name: "answer", truth: idle, settle: settled},
		step{name: "/exit", act: slash("/exit", "Exit the app", nil), truth: gone})...)
}

// Codex, Copilot CLI and Qwen Code resume at the end of their harder
// moments (harder_*_test.go), after their /quit: one start fewer.

// codexResumes starts the Codex session that quit last again. Like a new
// session, a resumed one runs no hook before its first prompt (SPEC.md
// §13.2).
func codexResumes(r *codexRun) {
	r.t.Helper()
	r.noSignal("resume", step{name: "codex resume --last", act: restarting(pinned["codex"].path(), "resume", "--last"), truth: idle, settle: time.Second},
		gone, 2*time.Second, "", time.Second)
	r.do("resume",
		step{name: "prompt", act: typing("e2e:text"), truth: working},
		step{name: "answer", truth: idle, settle: codexSettled, why: "^done$"},
		step{name: "/quit", act: typing("/quit"), truth: gone})
}

// copilotResumes is codexResumes for Copilot CLI, which runs sessionStart
// (source resume) with the first prompt, as at a new start.
func copilotResumes(r *agentRun) {
	r.t.Helper()
	r.do("resume",
		step{name: "copilot --continue", act: restarting(pinned["copilot"].path(), "--continue"), truth: idle, settle: time.Second,
			within: 90 * time.Second, unsignalled: copilotFirstPrompt},
		step{name: "prompt", act: typingSlowly("e2e:text"), truth: working, settle: copilotSettled},
		step{name: "answer", truth: idle, settle: copilotSettled, why: "^done$"},
		step{name: "/exit", act: typingSlowly("/exit"), truth: gone, within: 30 * time.Second})
}

// qwenResumes is codexResumes for Qwen Code (SessionStart resume).
func qwenResumes(r *agentRun) {
	r.t.Helper()
	r.do("resume",
		step{name: "qwen --continue", act: restarting(pinned["qwen"].path(), "--continue"), truth: idle, settle: time.Second,
			within: 90 * time.Second},
		step{name: "prompt", act: typingSlowly("e2e:text"), truth: working, settle: qwenSettled},
		step{name: "answer", truth: idle, settle: qwenSettled, why: "^done$"},
		step{name: "/quit", act: typingSlowly("/quit"), truth: gone, within: 30 * time.Second})
}
