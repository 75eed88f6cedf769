//go:build linux

package e2e

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Qwen Code, as a new user runs it after `statuspub install qwen`, signed
// in with an OpenAI-compatible key pointed at the model.

// qwenTools are Qwen Code's shell tool, run_shell_command (command,
// description, is_background), and its ask_user_question (Claude Code's
// AskUserQuestion shape).
var qwenTools = chatTools{
	shell: "run_shell_command",
	shellArgs: func(c string, i int) map[string]any {
		return map[string]any{"command": c, "description": fmt.Sprintf("e2e command %d", i+1), "is_background": false}
	},
	ask: "ask_user_question",
	askArgs: func(q string) map[string]any {
		return map[string]any{"questions": []any{map[string]any{
			"question": q + "?", "header": "e2e", "multiSelect": false,
			"options": []any{map[string]any{"label": "yes", "description": "say yes"}, map[string]any{"label": "no", "description": "say no"}},
		}}}
	},
}

// qwenScreen tells Qwen Code 0.24.4's state from its screen: a
// confirmation (a command, an edit, ask_user_question's question), the
// spinner's "esc to cancel", or the input box.
func qwenScreen(s string) string {
	switch {
	case strings.Contains(s, "Allow execution of"), strings.Contains(s, "Apply this change?"),
		strings.Contains(s, "Do you want to proceed?"), strings.Contains(s, "Waiting for user confirmation"):
		return blocked
	case strings.Contains(s, "esc to cancel"):
		return working
	case strings.Contains(s, "Type your message"), strings.Contains(s, "(shift + tab to cycle)"):
		// The input box, empty or holding the prompt that Esc gave back;
		// the approval mode below it is drawn once the CLI is ready.
		return idle
	}
	return ""
}

// qwenSettings is a user's settings.json as they may write it, with
// comments (which Qwen Code reads): the OpenAI-compatible sign-in chosen.
// install must keep it as it is and add its hooks.
const qwenSettings = `{
  // chosen in the first-run dialog
  "security": { "auth": { "selectedType": "openai" } },
  "model": { "name": "e2e-model" },
  // ask before a tool that changes something (0.24.4's default, "auto",
  // asks the model whether a call is safe instead)
  "tools": { "approvalMode": "default" },
  /* no update checks */
  "general": { "enableAutoUpdate": false },
  // no suggested next prompt in the input box (it is asked of the model),
  // no "how is it going?" survey (it takes a digit typed as its answer)
  "ui": { "enableFollowupSuggestions": false, "enableUserFeedback": false }
}
`

// startQwen starts Qwen Code in tmux with its hooks installed and samples
// the status.
func startQwen(t *testing.T) *agentRun {
	t.Helper()
	m := startModel(t, func(m *model) http.Handler { return chatHandlerWith(m, qwenTools) })
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(home, ".qwen"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	trusted := `{"` + proj + `": "TRUST_FOLDER"}`
	for name, data := range map[string]string{"settings.json": qwenSettings, "trustedFolders.json": trusted} {
		if err := os.WriteFile(filepath.Join(home, ".qwen", name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8",
		"OPENAI_BASE_URL=" + m.url + "/v1", "OPENAI_API_KEY=agentstatus-e2e-dummy-key", "OPENAI_MODEL=e2e-model"}
	install := exec.Command("statuspub", "install", "qwen")
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("statuspub install qwen: %v\n%s", err, out)
	}
	settings := filepath.Join(home, ".qwen", "settings.json")
	if data, _ := os.ReadFile(settings); !strings.Contains(string(data), "// chosen in the first-run dialog") ||
		!strings.Contains(string(data), "qwen-hook") {
		t.Fatalf("install did not keep the comments and add the hooks:\n%s", data)
	}
	traceHooks(t, settings, "statuspub qwen-hook", "qwen")
	tm := startTmux(t, proj, env, []string{pinned["qwen"].path()})
	t.Cleanup(func() {
		if pid := tm.pid(); pid > 0 && !tm.dead() {
			for _, kid := range childrenOf(pid) {
				syscall.Kill(kid, syscall.SIGKILL)
			}
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return watchAgent(t, "qwen", home, tm, m, qwenScreen)
}

// qwenSettled is how long a state must stay on screen to count.
const qwenSettled = 300 * time.Millisecond

// Qwen Code runs in the approval mode "default" (a shell command that is
// not read-only asks first; ls and pwd do not).
func TestQwenCode(t *testing.T) {
	needE2E(t)
	r := startQwen(t)
	press := pressing
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: 90 * time.Second})
	r.do("text",
		step{name: "prompt", act: typingSlowly("e2e:text"), truth: working, settle: qwenSettled},
		step{name: "answer", truth: idle, settle: qwenSettled, why: "^done$"})
	r.do("approve",
		step{name: "prompt", act: typingSlowly("e2e:tool timeout 4 tail -f /dev/null; touch e2e-approve"), truth: blocked, settle: qwenSettled,
			why: `^run_shell_command: timeout 4 tail -f /dev/null; touch e2e-approve$`},
		step{name: "approve", act: press("Enter"), truth: working, settle: qwenSettled},
		step{name: "tool ends", truth: idle, settle: qwenSettled})
	r.do("deny",
		step{name: "prompt", act: typingSlowly("e2e:tool touch e2e-deny"), truth: blocked, settle: qwenSettled},
		step{name: "deny", act: press("Escape"), truth: idle, settle: qwenSettled})
	r.do("esc-in-tool",
		step{name: "prompt", act: typingSlowly("e2e:tool touch e2e-esc; tail -f /dev/null"), truth: blocked, settle: qwenSettled},
		step{name: "approve", act: press("Enter"), truth: working, settle: time.Second},
		step{name: "Esc", act: press("Escape"), truth: idle, settle: qwenSettled, why: "^cancelled$"})
	r.do("esc-streaming",
		step{name: "prompt", act: typingSlowly("e2e:slow"), truth: working, settle: time.Second},
		step{name: "Esc", act: press("Escape"), truth: idle, settle: qwenSettled})
	r.do("failed-turn",
		step{name: "prompt", act: typingSlowly("e2e:fail 400"), truth: working},
		step{name: "error", truth: idle, settle: qwenSettled, why: "^failed"})
	r.do("parallel",
		step{name: "prompt", act: typingSlowly("e2e:parallel ls ;; pwd"), truth: working, settle: qwenSettled},
		step{name: "answer", truth: idle, settle: qwenSettled})
	r.do("question",
		step{name: "prompt", act: typingSlowly("e2e:ask Which database"), truth: blocked, settle: qwenSettled, why: `^question: Which database\?$`},
		step{name: "answer", act: press("Enter"), truth: working},
		step{name: "done", truth: idle, settle: qwenSettled})
	r.do("question-dismissed",
		step{name: "prompt", act: typingSlowly("e2e:ask Which editor"), truth: blocked, settle: qwenSettled},
		step{name: "Esc", act: press("Escape"), truth: idle, settle: qwenSettled})
	r.do("clear", step{name: "/clear", act: typingSlowly("/clear"), truth: idle, settle: time.Second})
	r.do("quit", step{name: "/quit", act: typingSlowly("/quit"), truth: gone, within: 30 * time.Second})
}
