//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/reader"
)

// Qwen Code, as a new user runs it after `statuspub install qwen`, signed
// in with an OpenAI-compatible key pointed at the model.

// qwenTools are Qwen Code's shell tool, run_shell_command (command,
// description, is_background), its ask_user_question (Claude Code's
// AskUserQuestion shape), and its other tools (qwenCall).
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
	call: qwenCall,
}

// qwenScreen tells Qwen Code 0.24.4's state from its screen: a
// confirmation (a command, an edit, ask_user_question's question, a
// plan), the spinner's "esc to cancel", the footer's count of background
// agents or shells still running (their end starts a turn of its own), or
// the input box.
func qwenScreen(s string) string {
	switch {
	case strings.Contains(s, "Allow execution of"), strings.Contains(s, "Apply this change?"),
		strings.Contains(s, "Do you want to proceed?"), strings.Contains(s, "Waiting for user confirmation"):
		return blocked
	case strings.Contains(s, "esc to cancel"), qwenBackground.MatchString(s):
		return working
	case strings.Contains(s, "Type your message"), strings.Contains(s, "(shift + tab to cycle)"):
		// The input box, empty or holding the prompt that Esc gave back;
		// the approval mode below it is drawn once the CLI is ready.
		return idle
	}
	return ""
}

// qwenBackground is the footer while background work runs: "⏸ Ask
// permissions (shift + tab to cycle) · 1 local agent" or "· 2 shells"
// ("· 1 task done" once it has ended).
var qwenBackground = regexp.MustCompile(`\(shift \+ tab to cycle\).* · [0-9]+ (local agents?|shells?)\b`)

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
func startQwen(t *testing.T) *agentRun { return startQwenWith(t, "") }

// startQwenWith is startQwen with each hook command run as hook, a shell
// command that gets the installed command in $HOOK ("": as installed).
func startQwenWith(t *testing.T, hook string) *agentRun {
	t.Helper()
	m := startModel(t, func(m *model) http.Handler { return chatHandlerWith(m, qwenTools) })
	home, proj := newHome(t)
	writeHome(t, home, map[string]string{".qwen/settings.json": qwenSettings, ".qwen/trustedFolders.json": `{"` + proj + `": "TRUST_FOLDER"}`})
	env := userEnv(home, "OPENAI_BASE_URL="+m.url+"/v1", "OPENAI_API_KEY=agentstatus-e2e-dummy-key", "OPENAI_MODEL=e2e-model")
	install(t, env, "qwen")
	settings := filepath.Join(home, ".qwen", "settings.json")
	if data, _ := os.ReadFile(settings); !strings.Contains(string(data), "// chosen in the first-run dialog") ||
		!strings.Contains(string(data), "qwen-hook") {
		t.Fatalf("install did not keep the comments and add the hooks:\n%s", data)
	}
	if hook != "" {
		data, _ := os.ReadFile(settings)
		cmd := installedHook(data, "qwen-hook")
		quoted, _ := json.Marshal("HOOK='" + cmd + "'; " + hook)
		data = bytes.ReplaceAll(data, []byte(`"`+cmd+`"`), quoted)
		// Time for a hook that waits for another (5 s as installed).
		data = bytes.ReplaceAll(data, []byte(`"timeout": 5`), []byte(`"timeout": 30`))
		if err := os.WriteFile(settings, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	traceHooks(t, settings, "statuspub qwen-hook", "qwen")
	tm := startTmux(t, proj, env, []string{pinned["qwen"].path()})
	t.Cleanup(func() {
		if pid := tm.pid(); pid > 0 && !tm.dead() {
			killTree([]int{pid})
		}
	})
	return watchAgent(t, "qwen", home, tm, m, qwenScreen)
}

// qwenSettled is how long a state must stay on screen to count.
const qwenSettled = 300 * time.Millisecond

// qwenKeys is how the moments' steps talk to Qwen Code.
var qwenKeys = keys{typ: typingSlowly, settle: qwenSettled}

// Qwen Code runs in the approval mode "default" (a shell command that is
// not read-only asks first; ls and pwd do not).
func TestQwenCode(t *testing.T) {
	needE2E(t)
	r := startQwen(t)
	press := pressing
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: 90 * time.Second})
	q := qwenKeys
	r.do("text", q.turn("e2e:text", "^done$")...)
	r.do("approve", q.approved("e2e:tool timeout 4 tail -f /dev/null; touch e2e-approve",
		`^run_shell_command: timeout 4 tail -f /dev/null; touch e2e-approve$`, "", "tool ends", "")...)
	r.do("deny", q.asks("e2e:tool touch e2e-deny", "", q.step("deny", press("Escape"), idle, ""))...)
	r.do("esc-in-tool", q.asks("e2e:tool touch e2e-esc; tail -f /dev/null", "",
		step{name: "approve", act: press("Enter"), truth: working, settle: time.Second},
		q.step("Esc", press("Escape"), idle, "^cancelled$"))...)
	r.do("esc-streaming",
		step{name: "prompt", act: typingSlowly("e2e:slow"), truth: working, settle: time.Second},
		q.step("Esc", press("Escape"), idle, ""))
	r.do("failed-turn", q.failed("e2e:fail 400", "^failed")...)
	r.do("parallel", q.turn("e2e:parallel ls ;; pwd", "")...)
	r.do("question", q.asks("e2e:ask Which database", `^question: Which database\?$`,
		step{name: "answer", act: press("Enter"), truth: working}, q.step("done", nil, idle, ""))...)
	r.do("question-dismissed", q.asks("e2e:ask Which editor", "", q.step("Esc", press("Escape"), idle, ""))...)
	r.do("clear", step{name: "/clear", act: typingSlowly("/clear"), truth: idle, settle: time.Second})
	r.do("quit", step{name: "/quit", act: typingSlowly("/quit"), truth: gone, within: 30 * time.Second})
}

// qwenHookOrder is a hook command that runs $HOOK for each event, and for
// StopFailure and the Notification idle_prompt puts them in an order: the
// one named in $DIR/late waits until the other one's $HOOK has exited
// ($DIR/applied-EVENT), at most 20 s. Qwen Code runs StopFailure under a
// helper of its own (a detached node that waits for the hook) and
// idle_prompt directly, at about the same time, in either order. It
// appends to $DIR/ancestry one line per hook: the event, then each
// process from the hook's shell up to init as pid:comm:exe; to
// $DIR/order the events whose $HOOK has exited; and the payloads to
// $DIR/payloads.jsonl.
func qwenHookOrder(dir string) string {
	return `in=$(cat); case $in in *'"hook_event_name":"StopFailure"'*) ev=StopFailure;; ` +
		`*'"notification_type":"idle_prompt"'*) ev=idle_prompt;; *) ev=other;; esac; ` +
		`p=$$; chain=; while [ "$p" -gt 0 ]; do s=$(cat /proc/$p/stat) || break; c=${s#*(}; c=${c%)*}; ` +
		`chain="$chain $p:$c:$(readlink /proc/$p/exe)"; r=${s##*) }; set -- $r; p=$2; done; ` +
		`echo "$ev$chain" >> ` + dir + `/ancestry; printf '%s\n' "$in" >> ` + dir + `/payloads.jsonl; ` +
		`if [ "$ev" = "$(cat ` + dir + `/late 2>/dev/null)" ]; then i=0; ` +
		`while [ ! -e ` + dir + `/applied-StopFailure ] && [ ! -e ` + dir + `/applied-idle_prompt ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done; fi; ` +
		`printf '%s' "$in" | $HOOK; echo $ev >> ` + dir + `/order; : > ` + dir + `/applied-$ev`
}

// qwenHold is how long after a failed turn the session must stay idle,
// failed: once both hooks have run, a record bound to the helper went
// about 1.8 s later (longer on a loaded machine). Whether or not it has gone by then, the
// record must still name Qwen Code's process.
const qwenHold = 8 * time.Second

// A failed turn leaves the session idle, failed, and there it stays,
// whichever of StopFailure (run under Qwen Code's helper process) and the
// Notification idle_prompt (run directly) is applied last: the record
// stays bound to Qwen Code's process (SPEC.md H6), not the helper's.
func TestQwenCodeFailedTurn(t *testing.T) {
	needE2E(t)
	for _, order := range []struct{ name, late string }{
		{"StopFailure last", "StopFailure"},
		{"StopFailure first", "idle_prompt"},
	} {
		t.Run(order.name, func(t *testing.T) {
			ctl := t.TempDir()
			r := startQwenWith(t, qwenHookOrder(ctl))
			// Qwen Code took over 90 s to start at a load average of 40.
			r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: 4 * time.Minute})
			dir := r.status.dir
			bound := r.recordPID(dir)
			for _, f := range []string{"order", "applied-StopFailure", "applied-idle_prompt"} {
				os.Remove(filepath.Join(ctl, f))
			}
			if err := os.WriteFile(filepath.Join(ctl, "late"), []byte(order.late+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// How the turn ended is checked below: the late hook waits for
			// the other one, which on a loaded machine can take longer
			// than the bound of a step's words.
			r.do("failed-turn",
				step{name: "prompt", act: typingSlowly("e2e:fail 400"), truth: working},
				step{name: "error", truth: idle, settle: qwenSettled})
			// Idle, failed: from when the status says so, for qwenHold.
			failed := regexp.MustCompile("^failed")
			from, ok := time.Now(), false
			for !ok && time.Since(from) < measureFor {
				time.Sleep(50 * time.Millisecond)
				_, ok = r.status.held(time.Now(), idle, failed)
			}
			from = time.Now()
			for time.Since(from) < qwenHold {
				time.Sleep(100 * time.Millisecond)
			}
			got, ok := r.status.held(from, idle, failed)
			fmt.Printf("E2E-HOLD agent=qwen order=%q held=%v for=%v %s\n", order.name, ok, qwenHold, got)
			if !ok {
				t.Errorf("qwen failed turn (%s): the status did not stay idle, failed for %v: %s\nstatus timeline:\n%s",
					order.name, qwenHold, got, r.status.timeline(from))
			}
			if pid := r.recordPID(dir); pid != bound || pid <= 0 {
				t.Errorf("qwen failed turn (%s): the record's pid went from %d to %d", order.name, bound, pid)
			}
			if anc, err := os.ReadFile(filepath.Join(ctl, "ancestry")); err == nil {
				t.Logf("hooks' ancestry:\n%s", anc)
			}
			applied, _ := os.ReadFile(filepath.Join(ctl, "order"))
			if got := strings.Fields(strings.ReplaceAll(string(applied), "other", "")); len(got) != 2 || got[1] != order.late {
				t.Errorf("qwen failed turn (%s): the hooks were applied in the order %q", order.name, got)
			}
			if trace := os.Getenv("AGENTSTATUS_E2E_TRACE"); trace != "" {
				// The payloads, for conformance/hooktraces (see traceHooks).
				data, _ := os.ReadFile(filepath.Join(ctl, "payloads.jsonl"))
				name := "qwen-failed-turn-" + strings.ReplaceAll(strings.ToLower(order.name), " ", "-") + ".jsonl"
				os.WriteFile(filepath.Join(trace, name), data, 0o644)
			}
		})
	}
}

// recordPID is the pid of the one fresh record in dir, 0 for none.
func (r *agentRun) recordPID(dir string) int {
	l, err := reader.List(dir, reader.Options{})
	if err != nil {
		return 0
	}
	if fresh := l.Fresh(); len(fresh) == 1 {
		return fresh[0].Status.PID
	}
	return 0
}

// held reports whether the status showed state, with words for why that
// match want, from t0 until now without a break; else it says what it
// showed.
func (s *sampler) held(t0 time.Time, state string, want *regexp.Regexp) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range s.changes {
		if i+1 < len(s.changes) && !s.changes[i+1].at.After(t0) {
			continue // over before t0
		}
		if c.state != state || !want.MatchString(c.why) {
			return fmt.Sprintf("%s %q at %+.3fs", c.state, c.why, c.at.Sub(t0).Seconds()), false
		}
	}
	return "", len(s.changes) > 0
}
