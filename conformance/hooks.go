package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/statusfile"
)

// RunHooks runs the hook traces of [Options].Agent (of every agent when
// it is empty) against a hook adapter ([Options].Command): a command that
// reads one hook payload on its standard input and writes the session's
// record, as `statuspub claude-hook` does (SPEC.md §13). Each trace runs
// in a fresh config home; the adapter is started once per step, and after
// each step the record must have the state and title the trace expects,
// be gone, or be untouched. The adapter must exit 0 (agents read exit
// status 2 as "block") and print nothing on standard output (agents read
// that too). The traces are conformance/hooktraces/AGENT/NAME.txtar; see
// README.md for what they hold.
func RunHooks(ctx context.Context, opts Options) (*Report, error) {
	traces, err := hookTraces(opts.Agent)
	if err != nil {
		return nil, err
	}
	// The traces have no level and nothing to skip.
	opts.Level, opts.Skip = vector.Hardened, nil
	return runTraces(ctx, "hooks", opts, traces, hookCheck, runHookTrace, "no adapter command")
}

// hookRules are the rules every trace checks.
var hookRules = []string{"H1", "H9", "H15"}

// hookCheck is the check a trace decides: its id, the rules, and the trap
// it sets.
func hookCheck(tr *vector.HookTrace) Result {
	return Result{ID: "hooks/" + tr.ID, Rules: hookRules, Requirements: []string{tr.Trap}}
}

// runHookTrace runs one trace in a fresh config home and judges the record
// after every step.
//
// A step that must write nothing (H15) compares the record's bytes, and
// an adapter whose session owner heartbeats (H3) may rewrite the record,
// moving only updatedAt, at any moment, the step's too: from the file,
// that heartbeat cannot be told from a write the step made. When that is
// all that failed, the trace runs once more, in a fresh config home, and
// that run decides: a write the adapter makes for the event is made
// every time, while a heartbeat lands inside a step of a trace that is
// much shorter than its interval only by chance.
func runHookTrace(ctx context.Context, tr *vector.HookTrace, opts Options) Result {
	start := time.Now()
	res, heartbeat := runHookTraceOnce(ctx, tr, opts)
	if heartbeat {
		first := res.Reason
		res, _ = runHookTraceOnce(ctx, tr, opts)
		res.Notes = append(res.Notes, "run twice: in the first run, "+first+" (only updatedAt moved, as a heartbeat does)")
	}
	res.Seconds = time.Since(start).Seconds()
	return res
}

// runHookTraceOnce runs the trace once. heartbeat reports a failure of a
// step that must write nothing where the record differs in updatedAt only.
func runHookTraceOnce(ctx context.Context, tr *vector.HookTrace, opts Options) (res Result, heartbeat bool) {
	res = hookCheck(tr)
	// fail fails the trace with why, and what was expected and found.
	fail := func(why string, expected, actual string) (Result, bool) {
		res.Outcome, res.Reason, res.Expected, res.Actual = outcomeFail, why, expected, actual
		return res, false
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	home, err := os.MkdirTemp(opts.TempDir, "statusconform-hooks-")
	if err != nil {
		return fail("harness: "+err.Error(), "", "")
	}
	defer os.RemoveAll(home)
	if err := os.Chmod(home, 0o700); err != nil {
		return fail("harness: "+err.Error(), "", "")
	}
	file := filepath.Join(home, statusName, statusfile.FileName(tr.Session))
	var before []byte
	for i, st := range tr.Steps {
		stepID := fmt.Sprintf("step %d (%s, line %d)", i+1, st.Name, st.Line)
		res.Timeline = append(res.Timeline, stepID)
		out, errOut, code, err := runAdapter(ctx, opts, home, st.Payload)
		res.Stderr = errOut // kept with a failure of the process only
		switch {
		case err != nil:
			return fail(stepID+": "+err.Error(), "", "")
		case code != 0:
			res.Exit = fmt.Sprint(code)
			return fail(fmt.Sprintf("%s: the adapter exited %d (a hook command must exit 0: status 2 blocks the agent)", stepID, code), "", "")
		case len(out) > 0:
			// H9: agents read a hook's stdout (Claude Code adds it to the
			// model's context on SessionStart and UserPromptSubmit).
			return fail(fmt.Sprintf("%s: the adapter printed %q on stdout; a hook adapter prints nothing there (H9: agents read it)", stepID, out), "", "")
		}
		res.Stderr = ""
		data, rerr := os.ReadFile(file)
		rec, derr := statusfile.Decode(data)
		want := fmt.Sprintf("state %s, title %q", st.State, st.Title)
		switch {
		case st.Absent && rerr == nil:
			return fail(stepID+": the record is still there", "absent", string(data))
		case st.Absent:
		case st.Unchanged && !bytes.Equal(data, before):
			res, _ = fail(stepID+": the step wrote the record; it must write nothing", string(before), string(data))
			return res, onlyUpdatedAtMoved(before, data)
		case st.Unchanged:
		case rerr != nil:
			return fail(fmt.Sprintf("%s: no record: %v", stepID, rerr), want, "")
		case derr != nil:
			return fail(fmt.Sprintf("%s: the record does not decode: %v", stepID, derr), "", "")
		case rec.State != st.State || rec.Title != st.Title || rec.Session != tr.Session:
			return fail(fmt.Sprintf("%s: state %s, title %q; want state %s, title %q", stepID, rec.State, rec.Title, st.State, st.Title),
				want, fmt.Sprintf("state %s, title %q", rec.State, rec.Title))
		case st.HasWhy && rec.Why() != st.Why:
			return fail(fmt.Sprintf("%s: waitingFor/ended say %q; want %q", stepID, rec.Why(), st.Why), "why: "+st.Why, "why: "+rec.Why())
		}
		before = data
	}
	res.Outcome = outcomePass
	return res, false
}

// onlyUpdatedAtMoved reports whether two records, JSON objects both, have
// the same keys and values but for updatedAt, which differs.
func onlyUpdatedAtMoved(before, after []byte) bool {
	var a, b map[string]json.RawMessage
	if json.Unmarshal(before, &a) != nil || json.Unmarshal(after, &b) != nil {
		return false
	}
	ua, oka := a["updatedAt"]
	ub, okb := b["updatedAt"]
	if !oka || !okb || bytes.Equal(ua, ub) {
		return false
	}
	delete(a, "updatedAt")
	delete(b, "updatedAt")
	return maps.EqualFunc(a, b, func(x, y json.RawMessage) bool { return bytes.Equal(x, y) })
}

// runAdapter runs the adapter once with payload on stdin.
func runAdapter(ctx context.Context, opts Options, home string, payload []byte) (stdout []byte, stderr string, code int, err error) {
	if opts.adapt != nil {
		if err := opts.adapt(home, payload); err != nil {
			return nil, err.Error(), 0, nil
		}
		return nil, "", 0, nil
	}
	argv := slices.Clone(opts.Command)
	for i, a := range argv {
		argv[i] = strings.ReplaceAll(a, "{home}", home)
	}
	env := append(environ(map[string]string{location.ConfigHomeEnv: home, "STATUSCONFORM_CONFIG_HOME": home}), opts.Env...)
	r := runCommand(ctx, argv, env, payload, opts.Timeout)
	switch {
	case r.exit.timedOut || ctx.Err() != nil:
		return r.stdout.Bytes(), r.stderr.String(), -1, fmt.Errorf("the adapter did not exit within %v", opts.Timeout)
	case r.exit.err != nil:
		return nil, r.stderr.String(), -1, r.exit.err
	case r.exit.signal != "":
		return r.stdout.Bytes(), r.stderr.String(), -1, nil
	}
	return r.stdout.Bytes(), r.stderr.String(), r.exit.code, nil
}
