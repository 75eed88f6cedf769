//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/agentinstall"
)

// traceCodexHooks is traceHooks for Codex, which runs a hook only while
// its trusted_hash in config.toml matches the handler: each traced handler
// is trusted anew, as `statuspub install codex --trust` trusted the
// installed one. Without AGENTSTATUS_E2E_TRACE it does nothing.
func traceCodexHooks(t testing.TB, home string) {
	dir := os.Getenv("AGENTSTATUS_E2E_TRACE")
	if dir == "" {
		return
	}
	hooksPath := filepath.Join(home, ".codex", "hooks.json")
	configPath := filepath.Join(home, ".codex", "config.toml")
	data, err := os.ReadFile(hooksPath)
	if err != nil {
		t.Fatal(err)
	}
	config, err := os.ReadFile(configPath)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := agentinstall.CodexTrustEntries(hooksPath, data, "codex-hook")
	if err != nil {
		t.Fatal(err)
	}
	command := installedHook(data, "codex-hook")
	log := filepath.Join(dir, "codex.jsonl")
	traced := fmt.Sprintf("tee -a %s | %s; echo >> %s", log, command, log)
	for _, e := range entries {
		// The hash names the matcher and timeout the handler has: find
		// them, and hash the traced command with the same.
		var hash string
		for _, matcher := range []string{"", "*"} {
			for timeout := 1; timeout <= 600 && hash == ""; timeout++ {
				if agentinstall.CodexHookHash(e.Event, matcher, command, timeout) == e.Hash {
					hash = agentinstall.CodexHookHash(e.Event, matcher, traced, timeout)
				}
			}
		}
		if hash == "" {
			t.Fatalf("trace: no matcher and timeout give %s's hash %s", e.Event, e.Hash)
		}
		config = bytes.Replace(config, []byte(e.Hash), []byte(hash), 1)
	}
	quoted, _ := json.Marshal(traced)
	data = bytes.ReplaceAll(data, []byte(`"`+command+`"`), quoted)
	for path, d := range map[string][]byte{hooksPath: data, configPath: config} {
		if err := os.WriteFile(path, d, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// compacting runs cmd (a compaction) while the model takes d over the
// summary it is asked for, so that the compaction is seen.
func compacting(cmd string, typ func(string) func(*agentRun), d time.Duration) func(*agentRun) {
	return func(r *agentRun) {
		r.model.setSide(d)
		typ(cmd)(r)
	}
}

// noSide puts side requests back to their speed after a compaction.
func noSide(r *agentRun) { r.model.setSide(0) }

// Codex 0.171.0's harder moments, without its daemon. It has no idle
// reminder; Plan mode's question is in TestCodex.
func TestCodexHarder(t *testing.T) {
	needE2E(t)
	r := startCodex(t, "--no-daemon")
	r.noSignal("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second},
		gone, 2*time.Second, "", time.Second)
	r.do("compact-turn",
		step{name: "prompt", act: typing("e2e:text"), truth: working},
		step{name: "answer", truth: idle, settle: codexSettled})
	// /compact runs no hook; its task_started in the rollout file says it.
	r.do("compact",
		step{name: "/compact", act: compacting("/compact", typing, 3*time.Second), truth: working, settle: codexSettled},
		step{name: "compacted", truth: idle, settle: codexSettled, why: "^done$"})
	noSide(r.agentRun)
	// A 500 is retried ("Reconnecting…"), and the turn goes on.
	r.retries("retry-500",
		step{name: "prompt", act: typing("e2e:flaky 500"), truth: working},
		step{name: "answer after retries", truth: idle, settle: codexSettled, why: "^done$"}, "")
	r.do("rate-limit-429",
		step{name: "prompt", act: typing("e2e:fail 429"), truth: working},
		step{name: "error", truth: idle, settle: codexSettled, why: "^failed"})
	// /new, like /clear, starts a thread in the same process.
	r.do("new",
		step{name: "/new", act: typing("/new"), truth: idle, settle: time.Second},
		step{name: "prompt", act: typing("e2e:text"), truth: working},
		step{name: "answer", truth: idle, settle: codexSettled})
	// A subagent (spawn_agent, on by default: [features] multi_agent),
	// waited for (wait_agent): its hooks carry the parent's session_id
	// (and agent_id); its approval shows on the parent's screen ("Thread:
	// Agent (…)"), and, as the parent's own, runs no hook until its
	// PostToolUse once approved.
	r.do("subagent",
		step{name: "prompt", act: typing("e2e:agent sleep 3"), truth: blocked, settle: codexSettled, why: "^Bash: sleep 3$"})
	r.noSignal("subagent", step{name: "approve the subagent's tool", act: pressing("y"), truth: working, settle: codexSettled},
		blocked, 2*time.Second, "", 10*time.Second)
	r.do("subagent", step{name: "subagent and turn end", truth: idle, settle: codexSettled, why: "^done$"})
	// A subagent the model leaves running (spawn_agent, no wait_agent):
	// the turn ends at once (Stop, "Worked for"), the subagent's approval
	// dialog shows on the parent's screen, in either order with that Stop,
	// and Codex takes no turn when the subagent ends (SPEC.md Y8: idle,
	// "1 background agent"). Its hooks carry the session's id and its
	// agent_id; the rollout has its spawn_agent output and, once it ends,
	// a <subagent_notification> message, which the owner follows.
	r.do("bgagent",
		step{name: "prompt: the turn ends, the subagent's tool asks", act: typing("e2e:bgagent sleep 3"), truth: blocked, settle: codexSettled,
			why: "^Bash: sleep 3; 1 background agent$"})
	r.noSignal("bgagent", step{name: "approve the subagent's tool", act: pressing("y"), truth: idle, settle: codexSettled},
		blocked, 2*time.Second, idle, 10*time.Second)
	r.do("bgagent", step{name: "the subagent ends", truth: idle, settle: codexSettled, why: "^done$"})
	// Plan mode: a reply with a <proposed_plan> block ends the turn (Stop),
	// and the TUI asks "Implement this plan?". The session waits for the
	// user's decision (SPEC.md S1: blocked). No hook says so (Stop's
	// last_assistant_message has the plan cut out, its permission_mode
	// says "default"); the rollout file does, with an item_completed of
	// type Plan just before the turn's task_complete, which the heartbeat
	// owner follows. "Yes, implement" sends the prompt "Implement the
	// plan." in Default mode; Esc and "No, stay in Plan mode" only close
	// the dialog: no hook, nothing in the rollout or history.jsonl; the one
	// write is the thread's read receipt in Codex's SQLite state
	// (state_5.sqlite, thread_read_receipts.first_unread_turn set to
	// NULL, 47 ms after Esc), which the toolkit does not follow. So the
	// status stays blocked until the next prompt.
	planDismissed := "Codex 0.171.0 runs no hook and writes nothing the toolkit follows when \"Implement this plan?\" is dismissed (Esc, \"No\"): blocked until the next prompt"
	// Shift+Tab and the prompt at once: before the first prompt there is
	// no record to agree with the screen (no hook runs yet).
	planPrompt := func(r *agentRun) {
		r.tm.send("BTab")
		typing("e2e:plan")(r)
	}
	planWhy := "^permission: E2E plan$"
	r.do("plan-approval",
		step{name: "Plan mode, prompt: a plan, then \"Implement this plan?\"", act: planPrompt, truth: blocked, settle: codexSettled, why: planWhy},
		step{name: "implement (Enter)", act: pressing("Enter"), truth: working},
		step{name: "implemented", truth: idle, settle: codexSettled, why: "^done$"})
	// Esc, and "No, stay in Plan mode" (the dialog's third item), its twin.
	for _, dismiss := range []struct {
		scenario, name string
		keys           []string
	}{
		{"plan-dismissed", "stay in Plan mode (Esc)", []string{"Escape"}},
		{"plan-declined", "No, stay in Plan mode", []string{"Down", "Down", "Enter"}},
	} {
		r.do(dismiss.scenario,
			step{name: "Plan mode, prompt: a plan, then \"Implement this plan?\"", act: planPrompt, truth: blocked, settle: codexSettled, why: planWhy})
		r.noSignal(dismiss.scenario, step{name: dismiss.name, act: func(r *agentRun) {
			for _, k := range dismiss.keys {
				r.tm.send(k)
				time.Sleep(150 * time.Millisecond) // one key at a time, as a user presses them
			}
		}, truth: idle, settle: codexSettled}, blocked, 5*time.Second, "", 5*time.Second)
		if codexOnly(dismiss.scenario) {
			r.t.Logf("codex %s: no signal: %s", dismiss.scenario, planDismissed)
		}
		r.do(dismiss.scenario,
			step{name: "default mode, the next prompt", act: func(r *agentRun) {
				r.tm.send("BTab")
				typing("e2e:text")(r)
			}, truth: working},
			step{name: "answer", truth: idle, settle: codexSettled, why: "^done$"})
	}
	// A command still running when exec_command's wait for output ends
	// (10 s) goes on after the turn, a background terminal: no
	// PostToolUse comes, the model answers, Stop ends the turn. Codex
	// shows no sign of it (the input line; /ps said "No background
	// terminals running" while it ran) and starts no turn when it ends
	// (the rollout's item_completed CommandExecution): idle throughout.
	r.do("background-terminal",
		step{name: "prompt", act: typing("e2e:tool sleep 25"), truth: blocked, settle: codexSettled, why: "^Bash: sleep 25$"})
	r.noSignal("background-terminal", step{name: "approve", act: pressing("y"), truth: working, settle: codexSettled},
		blocked, 2*time.Second, idle, 20*time.Second)
	r.do("background-terminal",
		step{name: "the turn ends, the command runs on", truth: idle, settle: codexSettled, why: "^done$"})
	if codexOnly("background-terminal") {
		r.holds("background-terminal", "idle while the command runs on, and after", idle, 20*time.Second)
	}
	r.holds("long-idle", fmt.Sprintf("idle %v", longIdle), idle, longIdle)
	r.do("quit", step{name: "/quit", act: typing("/quit"), truth: gone})
	codexResumes(r)
}

// codexOnly reports whether $AGENTSTATUS_E2E_ONLY, when set, selects
// scenario, as agentRun.do does.
func codexOnly(scenario string) bool {
	only := os.Getenv("AGENTSTATUS_E2E_ONLY")
	ok, _ := regexp.MatchString(only, scenario)
	return only == "" || ok
}
