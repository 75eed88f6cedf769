//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Gemini CLI, as a new user runs it after `statuspub install gemini`.

// geminiScreen tells Gemini CLI 0.61.0's state from its screen.
//
// Its input box ("Type your message") is drawn 3–6 s before the CLI is
// ready: until the banner is drawn, Enter is ignored (a prompt typed then
// stays in the box). So the box means idle only with the banner, or with a
// conversation above it (an answer ✦, a notice ℹ, an error ✕, a tool box).
func geminiScreen(s string) string {
	switch {
	case strings.Contains(s, "Allow execution of"), strings.Contains(s, "Apply this change?"),
		strings.Contains(s, "Enter to submit"),                // a confirmation, or ask_user's questions
		strings.Contains(s, "Ready to start implementation?"): // a plan to approve
		return blocked
	case strings.Contains(s, "esc to cancel"): // the spinner: thinking, a tool, a hook
		return working
	case strings.Contains(s, "Type your message") &&
		(strings.Contains(s, "Gemini CLI v") || strings.ContainsAny(s, "✦ℹ✕╭")):
		return idle
	}
	return ""
}

// geminiSettings is a user's settings.json as they may write it, with
// comments (which Gemini CLI reads): API-key sign-in chosen, updates off.
// install must keep it as it is and add its hooks.
const geminiSettings = `{
  // chosen in the first-run dialog
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  /* no update checks */
  "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false }
}
`

// startGemini starts Gemini CLI in tmux with its hooks installed and
// samples the status.
func startGemini(t *testing.T) *agentRun {
	t.Helper()
	return startGeminiWith(t, geminiSettings, nil)
}

// startGeminiWith is startGemini with the user's settings.json and the
// CLI's arguments; files are written into the project folder first, by
// their paths in it.
func startGeminiWith(t *testing.T, settings string, files map[string]string, args ...string) *agentRun {
	t.Helper()
	m := startModel(t, geminiHandler)
	home, proj := newHome(t)
	writeHome(t, home, geminiFiles(settings, proj))
	env := userEnv(home, "GOOGLE_GEMINI_BASE_URL="+m.url, "GEMINI_API_KEY=agentstatus-e2e-dummy-key")
	install(t, env, "gemini")
	if data, _ := os.ReadFile(filepath.Join(home, ".gemini", "settings.json")); !strings.Contains(string(data), "// chosen in the first-run dialog") ||
		!strings.Contains(string(data), "gemini-hook") {
		t.Fatalf("install did not keep the comments and add the hooks:\n%s", data)
	}
	traceHooks(t, filepath.Join(home, ".gemini", "settings.json"), "statuspub gemini-hook", "gemini")
	for name, data := range files {
		path := filepath.Join(proj, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tm := startTmux(t, proj, env, append([]string{pinned["gemini"].path()}, args...))
	// Gemini CLI outlives tmux's kill-server: it ignores SIGHUP and
	// SIGTERM. Killed first (cleanups run last in, first out).
	t.Cleanup(func() {
		if pid := tm.pid(); pid > 0 && !tm.dead() {
			killTree([]int{pid})
		}
	})
	return watchAgent(t, "gemini", home, tm, m, geminiScreen)
}

// geminiFiles are a user's Gemini CLI settings, and the folder proj
// trusted, as the trust dialog records it.
func geminiFiles(settings, proj string) map[string]string {
	return map[string]string{".gemini/settings.json": settings, ".gemini/trustedFolders.json": `{"` + proj + `": "TRUST_FOLDER"}`}
}

// geminiTyping types a prompt, then Enter. Gemini CLI 0.61.0 dropped an
// Enter that came 150 ms after fast typing, or after a Ctrl-U (the text
// stayed in the box); 500 ms after typing, without Ctrl-U, it was always
// taken.
func geminiTyping(text string) func(*agentRun) {
	return func(r *agentRun) {
		r.tm.send("-l", text)
		time.Sleep(500 * time.Millisecond)
		r.tm.send("Enter")
	}
}

// geminiSettled is how long a state must stay on screen to count.
const geminiSettled = 300 * time.Millisecond

// geminiKeys is how the moments' steps talk to Gemini CLI.
var geminiKeys = keys{typ: geminiTyping, settle: geminiSettled}

// Gemini CLI runs in its default approval mode ("default": a shell command
// that is not read-only asks first; ls, pwd and echo do not).
func TestGeminiCLI(t *testing.T) {
	needE2E(t)
	r := startGemini(t)
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: 90 * time.Second})
	g := geminiKeys
	r.do("text", g.turn("e2e:text", "^done$")...)
	r.do("approve", g.approved("e2e:tool sleep 4; touch e2e-approve", `^Shell: sleep 4; touch e2e-approve$`, geminiApproved, "tool ends", "")...)
	// A denial runs no hook; the chat recording says "Request cancelled.".
	r.do("deny", g.asks("e2e:tool sleep 4; touch e2e-deny", "", g.step("deny", pressing("Escape"), idle, "^cancelled$"))...)
	r.do("esc-in-tool", g.asks("e2e:tool tail -f /dev/null", "",
		step{name: "approve", act: pressing("Enter"), truth: working, settle: time.Second, unsignalled: geminiApproved},
		g.step("Esc", pressing("Escape"), idle, "^cancelled$"))...)
	r.do("esc-streaming",
		step{name: "prompt", act: geminiTyping("e2e:slow"), truth: working, settle: time.Second},
		g.step("Esc", pressing("Escape"), idle, ""))
	// 400: Gemini CLI retries 429 and 5xx with backoff for minutes (the
	// screen says working all along), but not a 400.
	r.do("failed-turn", g.failed("e2e:fail 400", "^failed")...)
	r.do("parallel", g.turn("e2e:parallel ls ;; pwd", "")...)
	r.do("question", g.asks("e2e:ask Which database", "^question$",
		step{name: "answer", act: geminiTyping("sqlite"), truth: working}, g.step("done", nil, idle, ""))...)
	// Dismissing the question runs no hook either; the chat recording
	// says "Request cancelled.".
	r.do("question-dismissed", g.asks("e2e:ask Which editor", "", g.step("Esc", pressing("Escape"), idle, ""))...)
	r.do("clear", step{name: "/clear", act: geminiTyping("/clear"), truth: idle, settle: time.Second})
	r.do("quit", step{name: "/quit", act: geminiTyping("/quit"), truth: gone, within: 30 * time.Second})
}

// geminiApproved is why an approved command shows blocked until it ends.
const geminiApproved = "Gemini CLI sends no hook and writes no file when the user approves a command, " +
	"until the command ends (AfterTool): SPEC §13.2"

func TestGeminiCLIKilled(t *testing.T) {
	needE2E(t)
	r := startGemini(t)
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: 90 * time.Second})
	r.do("kill-9", step{name: "kill -9", act: func(r *agentRun) {
		// The pane runs Gemini CLI's launcher, which runs the CLI itself
		// as its child (with a larger heap): the session's process, whose
		// pid the record holds.
		pid := r.tm.pid()
		if kids := childrenOf(pid); len(kids) == 1 {
			pid = kids[0]
		}
		syscall.Kill(pid, syscall.SIGKILL)
	}, truth: gone, within: 30 * time.Second})
}

// childrenOf returns the children of pid (Linux).
func childrenOf(pid int) []int {
	var kids []int
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		for _, w := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(w); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids
}
