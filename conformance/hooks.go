package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	opts.defaults()
	// The traces have no level and nothing to skip, and run one at a time;
	// once the run is cancelled, the rest do not run.
	opts.Level, opts.Skip, opts.Parallel = vector.Hardened, nil, 1
	var units []unit
	for _, tr := range traces {
		units = append(units, unit{checks: []Result{{ID: "hooks/" + tr.ID, Rules: hookRules, Requirements: []string{tr.Trap}}},
			run: func(ctx context.Context, opts Options, _ func()) []Result {
				if ctx.Err() != nil {
					return nil
				}
				return []Result{runHookTrace(ctx, tr, opts)}
			}})
	}
	rep := &Report{Suite: "hooks", Command: opts.Command, Started: time.Now()}
	if opts.List {
		return rep.list(opts, units), nil
	}
	if len(opts.Command) == 0 {
		return nil, errors.New("no adapter command")
	}
	rep.Started = time.Now().UTC()
	rep.run(ctx, opts, units)
	return rep, nil
}

// hookRules are the rules every trace checks.
var hookRules = []string{"H1", "H9", "H15"}

// runHookTrace runs one trace in a fresh config home and judges the record
// after every step.
func runHookTrace(ctx context.Context, tr *vector.HookTrace, opts Options) (res Result) {
	start := time.Now()
	res = Result{ID: "hooks/" + tr.ID, Rules: hookRules, Requirements: []string{tr.Trap}}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	home, err := os.MkdirTemp(opts.TempDir, "statusconform-hooks-")
	if err != nil {
		res.Outcome, res.Reason = outcomeFail, "harness: "+err.Error()
		return res
	}
	defer os.RemoveAll(home)
	if err := os.Chmod(home, 0o700); err != nil {
		res.Outcome, res.Reason = outcomeFail, "harness: "+err.Error()
		return res
	}
	dir := filepath.Join(home, statusName)
	file := filepath.Join(dir, statusfile.FileName(tr.Session))
	var before []byte
	for i, st := range tr.Steps {
		stepID := fmt.Sprintf("step %d (%s, line %d)", i+1, st.Name, st.Line)
		res.Timeline = append(res.Timeline, stepID)
		out, errOut, code, err := runAdapter(ctx, opts, home, st.Payload)
		if err != nil {
			res.Outcome, res.Reason, res.Stderr = outcomeFail, stepID+": "+err.Error(), errOut
			return res
		}
		if code != 0 {
			res.Outcome, res.Reason, res.Stderr = outcomeFail, fmt.Sprintf("%s: the adapter exited %d (a hook command must exit 0: status 2 blocks the agent)", stepID, code), errOut
			res.Exit = fmt.Sprint(code)
			return res
		}
		if len(out) > 0 {
			// H9: agents read a hook's stdout (Claude Code adds it to the
			// model's context on SessionStart and UserPromptSubmit).
			res.Outcome, res.Reason, res.Stderr = outcomeFail, fmt.Sprintf("%s: the adapter printed %q on stdout; a hook adapter prints nothing there (H9: agents read it)", stepID, out), errOut
			return res
		}
		data, rerr := os.ReadFile(file)
		switch {
		case st.Absent:
			if rerr == nil {
				res.Outcome, res.Reason = outcomeFail, stepID+": the record is still there"
				res.Expected, res.Actual = "absent", string(data)
				return res
			}
		case st.Unchanged:
			if !bytes.Equal(data, before) {
				res.Outcome, res.Reason = outcomeFail, stepID+": the step wrote the record; it must write nothing"
				res.Expected, res.Actual = string(before), string(data)
				return res
			}
		default:
			if rerr != nil {
				res.Outcome, res.Reason = outcomeFail, fmt.Sprintf("%s: no record: %v", stepID, rerr)
				res.Expected = fmt.Sprintf("state %s, title %q", st.State, st.Title)
				return res
			}
			rec, derr := statusfile.Decode(data)
			if derr != nil {
				res.Outcome, res.Reason = outcomeFail, fmt.Sprintf("%s: the record does not decode: %v", stepID, derr)
				return res
			}
			if rec.State != st.State || rec.Title != st.Title || rec.Session != tr.Session {
				res.Outcome = outcomeFail
				res.Reason = fmt.Sprintf("%s: state %s, title %q; want state %s, title %q", stepID, rec.State, rec.Title, st.State, st.Title)
				res.Expected = fmt.Sprintf("state %s, title %q", st.State, st.Title)
				res.Actual = fmt.Sprintf("state %s, title %q", rec.State, rec.Title)
				return res
			}
			if why := rec.Why(); st.HasWhy && why != st.Why {
				res.Outcome = outcomeFail
				res.Reason = fmt.Sprintf("%s: waitingFor/ended say %q; want %q", stepID, why, st.Why)
				res.Expected, res.Actual = "why: "+st.Why, "why: "+why
				return res
			}
		}
		before = data
	}
	res.Outcome = outcomePass
	return res
}

// runAdapter runs the adapter once with payload on stdin.
func runAdapter(ctx context.Context, opts Options, home string, payload []byte) (stdout []byte, stderr string, code int, err error) {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	args := make([]string, len(opts.Command))
	for i, a := range opts.Command {
		args[i] = strings.ReplaceAll(a, "{home}", home)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(os.Environ(), location.ConfigHomeEnv+"="+home, "STATUSCONFORM_CONFIG_HOME="+home)
	cmd.Env = append(cmd.Env, opts.Env...)
	cmd.Stdin = bytes.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return out.Bytes(), errb.String(), -1, fmt.Errorf("the adapter did not exit within %v", opts.Timeout)
	}
	var exitErr *exec.ExitError
	if errors.As(runErr, &exitErr) {
		return out.Bytes(), errb.String(), exitErr.ExitCode(), nil
	}
	if runErr != nil {
		return nil, errb.String(), -1, runErr
	}
	return out.Bytes(), errb.String(), 0, nil
}
