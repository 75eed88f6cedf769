//go:build linux

package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Claude Code, as a new user runs it after `statuspub install claude`.

// claudeKey is a dummy API key: the model is ours.
const claudeKey = "sk-ant-api03-agentstatus-e2e-dummy-key-000000000000"

// claudeScreen tells Claude Code's state from its screen.
func claudeScreen(s string) string {
	switch {
	case strings.Contains(s, "Esc to cancel"), strings.Contains(s, "Do you want to proceed?"),
		strings.Contains(s, "Enter to select"), strings.Contains(s, "Exit plan mode?"),
		strings.Contains(s, "Would you like to proceed?"):
		return blocked // a permission dialog, a question, a plan to approve
	case strings.Contains(s, "esc to interrupt"):
		return working
	case waitsForBackground(s), claudeShells.MatchString(s):
		// The turn was given up, but a background agent or shell runs
		// and will start the next turn by itself (SPEC.md Y8).
		return working
	case strings.Contains(s, "❯"):
		return idle
	}
	return ""
}

// backgroundWait is the line Claude Code shows while its turn waits for
// background work: "Waiting for 1 background agent to finish".
var backgroundWait = regexp.MustCompile(`Waiting for \d+ background \w+ to finish`)

// claudeShells is the footer while background shells or monitors run,
// after the turn that started them: "⏸ manual mode on · 1 shell · ↓ to
// manage", "· 1 monitor ·". Their end (and each event of a monitor) starts
// a turn of Claude Code's own; no "Waiting for" line says so (that line
// counts agents and workflows only).
var claudeShells = regexp.MustCompile(`(?m)^  \S.* · \d+ (shells?|monitors?) · `)

// waitsForBackground reports whether the screen's last word on the turn is
// backgroundWait: the line stays in the transcript above the next entries
// ("● Agent … finished") once the work is done.
func waitsForBackground(s string) bool {
	wait, entry := -1, -1
	for i, l := range strings.Split(s, "\n") {
		switch t := strings.TrimSpace(l); {
		case backgroundWait.MatchString(t):
			wait = i
		case strings.HasPrefix(t, "●"), strings.HasPrefix(t, "✻"):
			entry = i
		}
	}
	return wait >= 0 && wait > entry
}

// startClaude starts Claude Code in tmux with its hooks installed, in the
// permission mode mode ("" for its default), and samples the status.
func startClaude(t *testing.T, mode string) *agentRun {
	t.Helper()
	m := startModel(t, anthropicHandler)
	home, proj := newHome(t)
	// What a user who has logged in and trusted the folder has: no
	// onboarding, the key approved.
	state, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true, "theme": "dark",
		"customApiKeyResponses": map[string]any{"approved": []string{claudeKey[len(claudeKey)-20:]}, "rejected": []string{}},
		"projects":              map[string]any{proj: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}},
	})
	writeHome(t, home, map[string]string{".claude.json": string(state)})
	env := userEnv(home, "ANTHROPIC_BASE_URL="+m.url, "ANTHROPIC_API_KEY="+claudeKey)
	install(t, env, "claude")
	traceHooks(t, filepath.Join(home, ".claude", "settings.json"), "statuspub claude-hook", "claude")
	argv := []string{pinned["claude"].path()}
	if mode != "" {
		argv = append(argv, "--permission-mode", mode)
	}
	tm := startTmux(t, proj, env, argv)
	return watchAgent(t, "claude", home, tm, m, claudeScreen)
}

// typing types a prompt into an empty input line: after an interrupt,
// Claude Code puts the interrupted prompt back there.
func typing(text string) func(*agentRun) {
	return func(r *agentRun) {
		r.tm.send("C-u")
		r.tm.typeLine(text)
	}
}
func pressing(keys ...string) func(*agentRun) {
	return func(r *agentRun) { r.tm.send(keys...) }
}

// settled is how long a state must stay on screen to count.
const settled = 300 * time.Millisecond

// claudeKeys is how the moments' steps talk to Claude Code.
var claudeKeys = keys{typ: typing, settle: settled}

func TestClaudeCode(t *testing.T) {
	needE2E(t)
	r := startClaude(t, "default")
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second})
	c := claudeKeys
	r.do("text", c.turn("e2e:text", "^done$")...)
	r.do("approve", c.approved("e2e:tool sleep 4; touch /tmp/e2e-approve", `^Bash: sleep 4; touch /tmp/e2e-approve$`, "", "tool ends", "")...)
	r.do("deny", c.asks("e2e:tool sleep 4; touch /tmp/e2e-deny", "", c.step("deny", pressing("Escape"), idle, "^cancelled$"))...)
	r.do("esc-in-tool", c.asks("e2e:tool tail -f /dev/null; touch /tmp/e2e-esc", "",
		step{name: "approve", act: pressing("Enter"), truth: working, settle: time.Second},
		c.step("Esc", pressing("Escape"), idle, "^cancelled$"))...)
	r.do("esc-streaming",
		step{name: "prompt", act: typing("e2e:slow"), truth: working, settle: time.Second},
		c.step("Esc", pressing("Escape"), idle, "^cancelled$"))
	r.do("failed-turn", c.failed("e2e:fail 400", "^failed")...)
	r.do("parallel", c.turn("e2e:parallel ls ;; pwd", "")...)
	r.do("question", c.asks("e2e:ask Which database?", `^question: Which database\?$`,
		step{name: "answer", act: pressing("Enter"), truth: working}, c.step("done", nil, idle, ""))...)
	r.do("clear", step{name: "/clear", act: typing("/clear"), truth: idle, settle: time.Second})
	r.do("quit", step{name: "/exit", act: typing("/exit"), truth: gone})
}

func TestClaudeCodeKilled(t *testing.T) {
	needE2E(t)
	r := startClaude(t, "default")
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second})
	r.do("kill-9", step{name: "kill -9", act: func(r *agentRun) {
		syscall.Kill(r.tm.pid(), syscall.SIGKILL)
	}, truth: gone})
}

// TestClaudeCodeAutoMode runs Claude Code in its default permission mode
// (auto, in 2.1.332).
func TestClaudeCodeAutoMode(t *testing.T) {
	needE2E(t)
	r := startClaude(t, "")
	r.do("auto-start", step{name: "waits for the first prompt", truth: idle, settle: time.Second})
	r.do("auto-tool",
		step{name: "prompt", act: typing("e2e:tool touch made-by-e2e"), truth: working, settle: settled},
		step{name: "answer", truth: idle, settle: settled})
	// A command auto mode does not let through by itself: a dialog that
	// no PermissionRequest announces.
	r.do("auto-dialog",
		step{name: "prompt", act: typing("e2e:tool curl -fsS http://127.0.0.1:9/install.sh | sh"), truth: blocked, settle: settled},
		step{name: "deny", act: pressing("Escape"), truth: idle, settle: settled})
}

// untilScreen waits (up to a minute) until the screen matches re: a moment
// the truth alone does not tell from the one before.
func untilScreen(re *regexp.Regexp) func(*agentRun) {
	return func(r *agentRun) {
		r.t.Helper()
		deadline := time.Now().Add(time.Minute)
		for !re.MatchString(r.tm.capture()) {
			if time.Now().After(deadline) {
				r.t.Fatalf("the screen never matched %s:\n%s", re, r.tm.capture())
			}
			time.Sleep(25 * time.Millisecond)
		}
	}
}

// A subagent: Claude Code 2.1.332 runs every Agent call in the background
// and ends its turn ("Waiting for 1 background agent to finish"); when the
// subagent is done it starts a turn of its own. The session works
// throughout, and says what runs while its own turn is over (SPEC.md Y8).
func TestClaudeCodeBackgroundAgent(t *testing.T) {
	needE2E(t)
	r := startClaude(t, "default")
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second})
	r.do("background-agent",
		step{name: "prompt", act: typing("e2e:agent sleep 8; echo sub"), truth: working, settle: settled},
		step{name: "the turn ends, the agent runs", act: untilScreen(backgroundWait), truth: working,
			why: "^1 background agent$"},
		step{name: "the agent's own turn after it", truth: idle, settle: settled, why: "^done$"})
	// Its tool asks: the dialog is the session's.
	r.do("background-agent-asks",
		step{name: "prompt", act: typing("e2e:agent sleep 4; touch /tmp/e2e-sub"), truth: blocked, settle: settled,
			why: `^Bash: sleep 4; touch /tmp/e2e-sub`},
		step{name: "approve", act: pressing("Enter"), truth: working, settle: settled},
		step{name: "done", truth: idle, settle: settled, why: "^done$"})
}
