package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/agenthook"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/statusfile"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
	"github.com/agentstatus/agentstatus/internal/testmain"
)

// The hook traces' own tests: every trace passes statuspub's adapters, a
// faithful adapter written here, and fails a broken one for its trap.

// hookHelperEnv makes the test binary a small hook adapter: it reads one
// payload, maps it with agenthook (broken by the flaw named in the
// variable's value), and writes the record into $GENTLE_PI_CONFIG_HOME.
const hookHelperEnv = "STATUSCONFORM_HOOK_HELPER"

func init() {
	spec := os.Getenv(hookHelperEnv)
	if spec == "" {
		return
	}
	agent, flaw, _ := strings.Cut(spec, ":")
	if err := hookHelper(agent, flaw, os.Getenv(location.ConfigHomeEnv), os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "hook helper:", err)
	}
	os.Exit(0)
}

// hookFlaws are the broken mappings: each gets one trap wrong, as adapters
// in the field do.
var hookFlaws = map[string]func(ev map[string]any, a agenthook.Action) agenthook.Action{
	// Blocked only from the (late) notification, never from PermissionRequest.
	"permission-from-notification-only": func(ev map[string]any, a agenthook.Action) agenthook.Action {
		if ev["hook_event_name"] == "PermissionRequest" || ev["notification_type"] == "ToolPermission" {
			return agenthook.Action{Kind: agenthook.Ignore, Session: a.Session}
		}
		return a
	},
	"subagent-stop-is-stop": setOn(statusfile.Idle, "hook_event_name", "SubagentStop"),
	// A subagent's events (Codex: agent_id) taken as the session's own.
	"subagent-is-the-session": func(_ map[string]any, a agenthook.Action) agenthook.Action {
		a.Subagent = false
		return a
	},
	"every-notification-blocks":   setOn(statusfile.Blocked, "hook_event_name", "Notification"),
	"other-agents-block":          setOn(statusfile.Blocked, "notification_type", "agent_needs_input"),
	"compaction-is-a-new-session": setOn(statusfile.Idle, "hook_event_name", "PreCompact", "PostCompact", "PreCompress", "SessionStart"),
	"stop-failure-ignored":        ignoreOn("hook_event_name", "StopFailure"),
	"interrupt-ignored":           ignoreOn("hook_event_name", "Interrupt"),
	// Qwen Code's idle_prompt taken for Claude Code's (a reminder a minute
	// after Stop): the only signal of a denial or of Esc while streaming
	// is lost.
	"idle-prompt-ignored": ignoreOn("notification_type", "idle_prompt"),
	// An interrupted tool taken for a failed one: the turn goes on.
	"tool-interrupt-ignored": setOn(statusfile.Working, "hook_event_name", "PostToolUseFailure"),
	// Copilot CLI's notification payload read as the other events: its
	// camelCase sessionId is missed and the dialog never shows.
	"session-id-snake-case-only": func(ev map[string]any, a agenthook.Action) agenthook.Action {
		if _, ok := ev["session_id"]; !ok {
			return agenthook.Action{Kind: agenthook.Ignore, Session: a.Session}
		}
		return a
	},
	// Copilot CLI's failed request taken for the end of the turn: it
	// sends the same for each attempt it retries, and the turn goes on
	// (its session log's session.error says when it ends).
	"error-occurred-ends-turn": func(ev map[string]any, a agenthook.Action) agenthook.Action {
		if ev["hook_event_name"] == "ErrorOccurred" && ev["error_context"] == "model_call" {
			a.Kind, a.State, a.Ended = agenthook.Set, statusfile.Idle, statusfile.Ended{Reason: "failed"}
		}
		return a
	},
	// Copilot CLI's PreToolUse taken for its permission dialog: every
	// tool call blocks, also those that run without asking.
	"pre-tool-use-blocks": setOn(statusfile.Blocked, "hook_event_name", "PreToolUse"),
	// Claude Code's Stop taken for the end of the work while a background
	// agent still runs (SPEC.md Y8).
	"background-stop-is-idle": func(ev map[string]any, a agenthook.Action) agenthook.Action {
		if ev["hook_event_name"] == "Stop" {
			a.State, a.Ended, a.Background = statusfile.Idle, statusfile.Ended{Reason: "done"}, nil
		}
		return a
	},
	// A turn that ends without a Stop (a denial, Esc) is taken to end the
	// background work too.
	"turn-end-ends-background": func(ev map[string]any, a agenthook.Action) agenthook.Action {
		if a.State == statusfile.Idle && ev["hook_event_name"] != "Stop" {
			a.Background = &statusfile.Background{}
		}
		return a
	},
	"tool-end-is-turn-end": setOn(statusfile.Idle, "hook_event_name", "PostToolUse", "AfterTool"),
	// The reason keys: Esc reported as a turn that finished.
	"interrupt-is-done": endedAs("cancelled", "done"),
	// The late notification, which names no tool, replaces the
	// PermissionRequest's wait with its message.
	"notification-replaces-wait": func(ev map[string]any, a agenthook.Action) agenthook.Action {
		if msg, _ := ev["message"].(string); ev["hook_event_name"] == "Notification" && a.State == statusfile.Blocked {
			a.Waiting = statusfile.Waiting{Kind: "permission", Detail: msg}
		}
		return a
	},
	// A rate limit reported as any failure.
	"rate-limit-is-failure": endedAs("rate_limited", "failed"),
	"after-model-publishes": setOn(statusfile.Working, "hook_event_name", "AfterModel"),
	// A background agent's permission request taken for a dialog.
	"background-ask-blocks": func(_ map[string]any, a agenthook.Action) agenthook.Action {
		a.DeniedInBackground = false
		return a
	},
}

// The three shapes most flaws take, so that hookFlaws reads as a table of
// what each adapter gets wrong.

// payloadIs reports whether the payload's key holds one of values.
func payloadIs(ev map[string]any, key string, values []string) bool {
	s, ok := ev[key].(string)
	return ok && slices.Contains(values, s)
}

// ignoreOn drops the payloads whose key holds one of values.
func ignoreOn(key string, values ...string) func(map[string]any, agenthook.Action) agenthook.Action {
	return func(ev map[string]any, a agenthook.Action) agenthook.Action {
		if payloadIs(ev, key, values) {
			return agenthook.Action{Kind: agenthook.Ignore, Session: a.Session}
		}
		return a
	}
}

// setOn publishes state for the payloads whose key holds one of values.
func setOn(state statusfile.State, key string, values ...string) func(map[string]any, agenthook.Action) agenthook.Action {
	return func(ev map[string]any, a agenthook.Action) agenthook.Action {
		if payloadIs(ev, key, values) {
			a.Kind, a.State = agenthook.Set, state
		}
		return a
	}
}

// endedAs reports the ended reason from as to.
func endedAs(from, to string) func(map[string]any, agenthook.Action) agenthook.Action {
	return func(_ map[string]any, a agenthook.Action) agenthook.Action {
		if a.Ended.Reason == from {
			a.Ended.Reason = to
		}
		return a
	}
}

// trapFlaw names the flaws each trap trace must catch.
var trapFlaw = map[string][]string{
	"claude/compaction-mid-turn":                 {"compaction-is-a-new-session"},
	"claude/idle-prompt":                         {"every-notification-blocks"},
	"claude/late-permission-prompt":              {"notification-replaces-wait", "permission-from-notification-only"},
	"claude/other-agents-notifications":          {"other-agents-block"},
	"claude/parallel-tool-calls":                 {"tool-end-is-turn-end"},
	"claude/real-2.1.332-background-agent":       {"background-stop-is-idle"},
	"claude/real-2.1.332-background-asks":        {"background-stop-is-idle"},
	"claude/real-2.1.332-background-monitor":     {"background-stop-is-idle"},
	"claude/real-2.1.332-background-shell":       {"background-stop-is-idle"},
	"claude/stop-failure":                        {"stop-failure-ignored", "rate-limit-is-failure"},
	"claude/subagent-stop":                       {"subagent-stop-is-stop"},
	"codex/compaction-mid-turn":                  {"compaction-is-a-new-session"},
	"codex/interrupt":                            {"interrupt-ignored"},
	"codex/parallel-tool-calls":                  {"tool-end-is-turn-end"},
	"codex/permission-request":                   {"permission-from-notification-only"},
	"codex/real-esc-in-tool":                     {"interrupt-is-done"},
	"codex/real-0.171.0-bgagent":                 {"subagent-is-the-session"},
	"codex/stop-failure":                         {"stop-failure-ignored", "rate-limit-is-failure"},
	"codex/subagent-stop":                        {"subagent-stop-is-stop"},
	"gemini/after-model-streaming":               {"after-model-publishes"},
	"gemini/compression-mid-turn":                {"compaction-is-a-new-session"},
	"gemini/parallel-tool-calls":                 {"tool-end-is-turn-end"},
	"gemini/tool-permission":                     {"permission-from-notification-only"},
	"copilot/real-1.0.102-failed-turn":           {"error-occurred-ends-turn"},
	"copilot/real-1.0.102-rate-limit-429":        {"error-occurred-ends-turn"},
	"copilot/real-1.0.102-parallel-tool-calls":   {"pre-tool-use-blocks"},
	"copilot/real-1.0.102-session":               {"session-id-snake-case-only"},
	"qwen/background-ask-before-stop":            {"background-ask-blocks"},
	"qwen/real-0.24.4-background-agent":          {"background-stop-is-idle"},
	"qwen/real-0.24.4-background-agent-new-turn": {"background-stop-is-idle", "turn-end-ends-background"},
	"qwen/real-0.24.4-background-agent-asks":     {"background-stop-is-idle", "background-ask-blocks"},
	"qwen/real-0.24.4-deny":                      {"idle-prompt-ignored", "notification-replaces-wait"},
	"qwen/real-0.24.4-esc-in-tool":               {"tool-interrupt-ignored", "interrupt-is-done"},
	"qwen/real-0.24.4-esc-streaming":             {"idle-prompt-ignored"},
	"qwen/real-0.24.4-failed-turn":               {"stop-failure-ignored"},
	"qwen/real-0.24.4-failed-turn-late-stop":     {"stop-failure-ignored"},
	"qwen/real-0.24.4-parallel-tool-calls":       {"tool-end-is-turn-end"},
	"qwen/real-0.24.4-question":                  {"permission-from-notification-only"},
	"qwen/real-0.24.4-question-dismissed":        {"idle-prompt-ignored"},
	"qwen/real-0.24.4-session":                   {"permission-from-notification-only", "notification-replaces-wait"},
}

func hookHelper(agent, flaw, home string, in io.Reader) error {
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	m, ok := agenthook.ForAgent(agent)
	if !ok {
		return fmt.Errorf("unknown agent %q", agent)
	}
	a, err := m(data)
	if err != nil {
		return err
	}
	if flaw != "" {
		var ev map[string]any
		if err := json.Unmarshal(data, &ev); err != nil {
			return err
		}
		f, ok := hookFlaws[flaw]
		if !ok {
			return fmt.Errorf("unknown flaw %q", flaw)
		}
		a = f(ev, a)
	}
	dir := filepath.Join(home, statusName)
	switch a.Kind {
	case agenthook.Ignore:
		return nil
	case agenthook.Remove:
		return statusfile.RemoveFile(dir, a.Session)
	}
	rec := statusfile.Status{Agent: agent, Session: a.Session, State: statusfile.Idle, Cwd: "/"}
	if old, err := os.ReadFile(filepath.Join(dir, statusfile.FileName(a.Session))); err == nil {
		if r, err := statusfile.Decode(old); err == nil {
			rec = r
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	prev := rec
	if a, err = holdSubagent(home, a, prev); err != nil {
		return err
	}
	// A background agent's permission request, which Qwen Code denies
	// without a dialog while the agent runs past its turn.
	if a.DeniedInBackground && a.State == statusfile.Blocked && prev.State == statusfile.Working && prev.Background.Agents > 0 {
		a.State = ""
	}
	// A turn given up to background work leaves a wait that is on (S1, Y8).
	keepWait := a.State == statusfile.Working && a.Background != nil && *a.Background != (statusfile.Background{}) &&
		prev.State == statusfile.Blocked
	// And an idle that says neither what runs nor how a turn ended, but
	// for the user's interrupt, makes a record that counts background work
	// and is not idle working: the work will wake the agent (Qwen Code's
	// idle_prompt after a Stop that left it running, or after a denial;
	// Esc in a tool).
	keepWorking := a.State == statusfile.Idle && (a.Ended.Reason == "" || a.Ended.Reason == "cancelled") && a.Background == nil &&
		prev.State != statusfile.Idle && prev.Background != (statusfile.Background{})
	if keepWorking {
		a.State, a.Ended = statusfile.Working, statusfile.Ended{}
	}
	if a.State != "" && !keepWait {
		rec.State = a.State
	}
	if a.State != "" && a.Background != nil {
		rec.Background = *a.Background
	}
	// The reason keys, as SPEC.md §4.4 says a hook publisher keeps them: a
	// wait that names nothing more than its kind keeps the one already on.
	if w := a.Waiting; a.State == statusfile.Blocked && w.Kind != "" &&
		!(prev.State == statusfile.Blocked && prev.WaitingFor.Kind != "" && w.Tool == "" && w.Detail == "") {
		rec.WaitingFor = w
	}
	if a.State == statusfile.Idle && a.Ended.Reason != "" {
		rec.Ended = a.Ended
	}
	if a.Title != nil {
		rec.Title = *a.Title
	}
	if a.Cwd != "" {
		rec.Cwd = a.Cwd
	}
	rec.PID = os.Getppid()
	rec.UpdatedAt = time.Now().UTC()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	_, err = statusfile.WriteFile(dir, rec)
	return err
}

func helperHookOptions(t *testing.T, agent, flaw string) Options {
	t.Helper()
	return Options{Command: []string{helperExe(t)}, Env: []string{hookHelperEnv + "=" + agent + ":" + flaw}, Timeout: 20 * time.Second}
}

// inProcessHookOptions runs the same adapter in this process: a trace's
// steps are hundreds of payloads, and the adapter as a process is
// TestHookTracesJudgeTheProcess's and TestHookTracesStatuspub's to judge.
func inProcessHookOptions(agent, flaw string) Options {
	return Options{adapt: func(home string, payload []byte) error {
		return hookHelper(agent, flaw, home, bytes.NewReader(payload))
	}}
}

func TestHookTracesParse(t *testing.T) {
	traces, err := hookTraces("")
	if err != nil {
		t.Fatal(err)
	}
	agents := map[string]int{}
	for _, tr := range traces {
		agents[tr.Agent]++
		if tr.Trap == "" || tr.Source == "" || !strings.HasPrefix(tr.ID, tr.Agent+"/") {
			t.Errorf("%s: trap, source and an id under its agent are required", tr.ID)
		}
		for _, st := range tr.Steps {
			if !json.Valid(st.Payload) {
				t.Errorf("%s line %d: the payload is not JSON", tr.ID, st.Line)
			}
		}
	}
	for _, a := range agenthook.Agents {
		if agents[a] == 0 {
			t.Errorf("no traces for %s", a)
		}
	}
	for id := range trapFlaw {
		found := false
		for _, tr := range traces {
			found = found || tr.ID == id
		}
		if !found {
			t.Errorf("trap trace %s is missing", id)
		}
	}
	for _, bad := range []string{
		"agent: claude\n",
		"agent: claude\nsession: s\n-- Stop --\n{}\n",
		"agent: claude\nsession: s\n-- Stop --\n{}\n-- want --\nstate: idle\n",
		"agent: claude\nsession: s\n-- Stop --\n{}\n-- want --\nstate: sleeping\ntitle:\n",
		"agent: claude\nsession: s\n-- want --\nabsent\n",
		"agent: claude\nsession: s\n-- Stop --\n{}\n-- want --\nmaybe\n",
	} {
		if _, err := vector.ParseHookTrace("bad", []byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A faithful adapter passes every trace; the flawed one fails its trap.
func TestHookTracesCatchFlaws(t *testing.T) {
	t.Parallel()
	traces, err := hookTraces("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range traces {
		t.Run(tr.ID, func(t *testing.T) {
			t.Parallel() // each run has a config home of its own
			if res := runHookTrace(context.Background(), tr, inProcessHookOptions(tr.Agent, "")); res.Outcome != outcomePass {
				t.Fatalf("faithful adapter: %s %s", res.Outcome, res.Reason)
			}
			for _, flaw := range trapFlaw[tr.ID] {
				res := runHookTrace(context.Background(), tr, inProcessHookOptions(tr.Agent, flaw))
				if res.Outcome != outcomeFail {
					t.Fatalf("adapter with flaw %s: %s, want FAIL", flaw, res.Outcome)
				}
				t.Logf("flaw %s: %s", flaw, res.Reason)
			}
		})
	}
}

// statuspub's adapters pass every trace. The agents' traces run side by
// side: a step mostly waits for its process, and -parallel would
// serialize subtests.
func TestHookTracesStatuspub(t *testing.T) {
	testmain.SkipShort(t, "runs every hook trace through statuspub's adapters as processes, a publisher heartbeating behind each session")
	t.Parallel()
	statuspub := toolkitCommand(t, "statuspub")
	type run struct {
		traces []*vector.HookTrace
		rep    *Report
		err    error
	}
	runs := make([]run, len(agenthook.Agents))
	var wg sync.WaitGroup
	for i, agent := range agenthook.Agents {
		traces, err := hookTraces(agent)
		if err != nil {
			t.Fatal(err)
		}
		runs[i].traces = traces
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i].rep, runs[i].err = RunHooks(context.Background(), Options{
				Agent:   agent,
				Command: []string{statuspub, agent + "-hook", "--config-home", "{home}"},
				Env:     []string{"STATUSPUB_HEARTBEAT=10s"},
				Timeout: 20 * time.Second,
			})
		}()
	}
	wg.Wait()
	for i, agent := range agenthook.Agents {
		rep, err := runs[i].rep, runs[i].err
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			if r.Outcome != outcomePass {
				t.Errorf("%s: %s %s (stderr %q)", r.ID, r.Outcome, r.Reason, r.Stderr)
			}
		}
		if rep.Passed != len(runs[i].traces) {
			t.Errorf("%s: %s", agent, rep.summary())
		}
	}
}

// An adapter that exits 2 (which blocks the agent), hangs, or prints on
// stdout fails.
func TestHookTracesJudgeTheProcess(t *testing.T) {
	t.Parallel()
	traces, err := hookTraces("codex")
	if err != nil {
		t.Fatal(err)
	}
	tr := traces[0]
	res := runHookTrace(context.Background(), tr, Options{Command: []string{"sh", "-c", "cat >/dev/null; exit 2"}})
	if res.Outcome != outcomeFail || !strings.Contains(res.Reason, "exited 2") {
		t.Errorf("exit 2: %s %s", res.Outcome, res.Reason)
	}
	res = runHookTrace(context.Background(), tr, Options{Command: []string{"sleep", "30"}, Timeout: 200 * time.Millisecond})
	if res.Outcome != outcomeFail || !strings.Contains(res.Reason, "did not exit") {
		t.Errorf("hang: %s %s", res.Outcome, res.Reason)
	}
	// A faithful adapter that also prints on stdout, which agents read.
	chatty := helperHookOptions(t, tr.Agent, "")
	chatty.Command = []string{"sh", "-c", `"$0" && echo ok`, chatty.Command[0]}
	res = runHookTrace(context.Background(), tr, chatty)
	if res.Outcome != outcomeFail || !strings.Contains(res.Reason, "stdout") {
		t.Errorf("output on stdout: %s %s", res.Outcome, res.Reason)
	}
}

// FuzzParseHookTrace: any text either parses into a trace with steps whose
// expectations make sense, or is an error; never a panic.
func FuzzParseHookTrace(f *testing.F) {
	_ = fs.WalkDir(hookTraceFS, "hooktraces", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := fs.ReadFile(hookTraceFS, p)
			f.Add(data)
		}
		return nil
	})
	f.Add([]byte("agent: a\nsession: s\n-- x --\n{}\n-- want --\nunchanged\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := vector.ParseHookTrace("fuzz", data)
		if err != nil {
			return
		}
		if tr.Agent == "" || tr.Session == "" || len(tr.Steps) == 0 {
			t.Fatalf("accepted %+v", tr)
		}
		for _, st := range tr.Steps {
			if !st.Absent && !st.Unchanged && !st.State.Known() {
				t.Fatalf("step %q expects state %q", st.Name, st.State)
			}
		}
	})
}

// Y5 for hook adapters: statuspub's adapters, run over every trace with
// AGENTSTATUS_NO_DETAIL=1 and, separately, with --no-detail, write every
// detail of waitingFor and ended as null, and still the kind, tool and
// reason the trace's why: lines name.
// backgroundWords are SPEC.md Y8's words at the end of a WHY that has
// others before them.
var backgroundWords = regexp.MustCompile(`; [0-9]+ background (agents?|tasks?)(, [0-9]+ background tasks?)?$`)

func TestHookAdaptersNoDetail(t *testing.T) {
	t.Parallel()
	statuspub := toolkitCommand(t, "statuspub")
	for _, agent := range agenthook.Agents {
		all, err := hookTraces(agent)
		if err != nil {
			t.Fatal(err)
		}
		// The traces with a detail to leave out (the others say the same
		// with the switch on).
		traces := slices.DeleteFunc(all, func(tr *vector.HookTrace) bool {
			return !slices.ContainsFunc(tr.Steps, func(st vector.HookStep) bool { return st.HasWhy && strings.Contains(st.Why, ": ") })
		})
		for _, how := range []struct {
			name string
			args []string
			env  []string
		}{
			{"env", nil, []string{"AGENTSTATUS_NO_DETAIL=1"}},
			{"flag", []string{"--no-detail"}, nil},
		} {
			t.Run(agent+"/"+how.name, func(t *testing.T) {
				t.Parallel()
				opts := Options{Command: append([]string{statuspub, agent + "-hook", "--config-home", "{home}"}, how.args...),
					Env: append([]string{"STATUSPUB_HEARTBEAT=10s"}, how.env...), Timeout: 20 * time.Second}
				withDetail := 0 // steps whose why: line has a detail
				for _, tr := range traces {
					home := t.TempDir()
					file := filepath.Join(home, statusName, statusfile.FileName(tr.Session))
					for i, st := range tr.Steps {
						if _, errOut, code, err := runAdapter(context.Background(), opts, home, st.Payload); err != nil || code != 0 {
							t.Fatalf("%s step %d: exit %d, %v (%s)", tr.ID, i+1, code, err, errOut)
						}
						data, err := os.ReadFile(file)
						if err != nil {
							continue // removed (absent), or not written yet
						}
						wait, ended, err := whyMembers(data)
						if err != nil {
							t.Fatalf("%s step %d: %v", tr.ID, i+1, err)
						}
						for key, obj := range map[string]map[string]json.RawMessage{"waitingFor": wait, "ended": ended} {
							if obj != nil && member(obj, "detail") != "null" {
								t.Errorf("%s step %d: %s.detail is %q with the switch on (Y5)", tr.ID, i+1, key, member(obj, "detail"))
							}
						}
						if !st.HasWhy || st.Why == "" {
							continue
						}
						rec, err := statusfile.Decode(data)
						if err != nil {
							t.Fatalf("%s step %d: %v", tr.ID, i+1, err)
						}
						// Y7's words without the detail: the trace's words,
						// or their part before ": DETAIL", with Y8's
						// background words after them as they are.
						got, want := rec.Why(), st.Why
						if m := backgroundWords.FindString(want); m != "" && strings.HasSuffix(got, m) {
							got, want = strings.TrimSuffix(got, m), strings.TrimSuffix(want, m)
						}
						if got != want && !strings.HasPrefix(want, got+": ") || got == "" {
							t.Errorf("%s step %d: waitingFor/ended say %q; want %q without its detail", tr.ID, i+1, got, st.Why)
						}
						if got != want {
							withDetail++
						}
					}
				}
				if withDetail == 0 {
					t.Errorf("no step of the %s traces has a detail to leave out", agent)
				}
			})
		}
	}
}

// A deadline that passes before the command even starts (a loaded machine,
// a short timeout) is the harness's timeout, not a command that could not
// run: the adapter is judged as one that did not exit in time.
func TestRunCommandDeadlineBeforeStart(t *testing.T) {
	r := runCommand(context.Background(), []string{"sleep", "30"}, nil, nil, time.Nanosecond)
	if !r.exit.timedOut || r.exit.err != nil {
		t.Errorf("got %s (timedOut %v, err %v), want the timeout", r.exit, r.exit.timedOut, r.exit.err)
	}
}

func TestOnlyUpdatedAtMoved(t *testing.T) {
	rec := `{"agent":"a","session":"s","state":"idle","updatedAt":"2026-01-01T00:00:00Z"}`
	for _, c := range []struct {
		name, after string
		want        bool
	}{
		{"heartbeat", `{"agent":"a","session":"s","state":"idle","updatedAt":"2026-01-01T00:00:09Z"}`, true},
		{"keys in another order", `{"updatedAt":"2026-01-01T00:00:09Z","state":"idle","session":"s","agent":"a"}`, true},
		{"the same bytes", rec, false},
		{"the state too", `{"agent":"a","session":"s","state":"working","updatedAt":"2026-01-01T00:00:09Z"}`, false},
		{"a key added", `{"agent":"a","session":"s","state":"idle","title":"t","updatedAt":"2026-01-01T00:00:09Z"}`, false},
		{"updatedAt removed", `{"agent":"a","session":"s","state":"idle"}`, false},
		{"not JSON", `{"agent":`, false},
	} {
		if got := onlyUpdatedAtMoved([]byte(rec), []byte(c.after)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// A step that must write nothing, in which only updatedAt moved, is judged
// by a second run of the trace: an owner's heartbeat that landed there
// once passes; a write the adapter makes for the event every time fails.
func TestHookTraceHeartbeatInStep(t *testing.T) {
	t.Parallel()
	traces, err := hookTraces("claude")
	if err != nil {
		t.Fatal(err)
	}
	var tr *vector.HookTrace
	for _, x := range traces {
		if x.ID == "claude/subagent-stop" {
			tr = x
		}
	}
	if tr == nil {
		t.Fatal("no trace claude/subagent-stop")
	}
	// touching is an adapter that, on SubagentStart (a step that must
	// write nothing), also rewrites the record with a new updatedAt, as a
	// heartbeat does, in the runs for which every(run) says so.
	touching := func(every func(run int) bool) Options {
		run := 0
		return Options{adapt: func(home string, payload []byte) error {
			if err := hookHelper("claude", "", home, bytes.NewReader(payload)); err != nil {
				return err
			}
			if bytes.Contains(payload, []byte(`"hook_event_name":"UserPromptSubmit"`)) {
				run++
			}
			if !bytes.Contains(payload, []byte(`"hook_event_name":"SubagentStart"`)) || !every(run) {
				return nil
			}
			dir := filepath.Join(home, statusName)
			data, err := os.ReadFile(filepath.Join(dir, statusfile.FileName(tr.Session)))
			if err != nil {
				return err
			}
			rec, err := statusfile.Decode(data)
			if err != nil {
				return err
			}
			rec.UpdatedAt = rec.UpdatedAt.Add(time.Second)
			_, err = statusfile.WriteFile(dir, rec)
			return err
		}}
	}
	res := runHookTrace(context.Background(), tr, touching(func(run int) bool { return run == 1 }))
	if res.Outcome != outcomePass || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "run twice") {
		t.Errorf("a heartbeat in the first run only: %s %q, notes %q; want PASS with a note", res.Outcome, res.Reason, res.Notes)
	}
	res = runHookTrace(context.Background(), tr, touching(func(int) bool { return true }))
	if res.Outcome != outcomeFail || !strings.Contains(res.Reason, "must write nothing") {
		t.Errorf("a write on every run: %s %q; want FAIL", res.Outcome, res.Reason)
	}
}
