package conformance

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Hook traces check an agent adapter: a command that reads one hook payload
// on its standard input and writes the session's record, as
// `statuspub claude-hook` does (SPEC.md §13). A trace is a recorded
// sequence of an agent's real hook payloads, each with the state and title
// every reader must see afterwards; the traces cover the known ways of
// getting an agent's state wrong (a permission prompt reported late, a
// subagent's stop taken for the session's, compaction in the middle of a
// turn, a failed turn, an interrupt, other agents' notifications, parallel
// tool calls, a hook that fires for every streamed chunk).
//
// A trace is a txtar archive (conformance/hooktraces/AGENT/NAME.txtar):
//
//	id: claude/late-permission-prompt
//	agent: claude
//	session: 4f0c9a3e-...
//	trap: what a wrong adapter gets wrong here
//	source: where the payload shapes come from
//
//	-- PermissionRequest Bash --
//	{ one payload, any number of lines }
//	-- want --
//	state: blocked
//	title: Run the tests
//	why: Bash: go test ./...
//
// A step is a section holding a payload, followed by a "want" section: the
// record's state and title afterwards ("title:" with nothing after it means
// no title), and, with "why:", what its waitingFor or ended say in the
// words of [statusfile.Status.Why] ("why:" alone: neither), "absent" when the record must be gone, or "unchanged" when the
// step must not write at all (the record, updatedAt included, stays as it
// was).

//go:embed hooktraces
var hookTraceFS embed.FS

// HookTraces returns the suite's traces, of one agent ("claude", "codex",
// "gemini") or, with agent empty, of all.
func HookTraces(agent string) ([]*HookTrace, error) {
	return LoadHookTraces(hookTraceFS, "hooktraces", agent)
}

// HookStep is one hook invocation of a trace.
type HookStep struct {
	Name    string // the section header, e.g. "PermissionRequest Bash"
	Line    int    // the line of its marker, for messages
	Payload []byte
	// What the record must be afterwards.
	Absent    bool
	Unchanged bool
	State     statusfile.State
	Title     string
	// Why is what the record says of why it is in its state, in the
	// words of statusfile.Status.Why: "Bash: rm -rf build", "cancelled",
	// "" for nothing; checked when the want section has a why: line.
	Why    string
	hasWhy bool
}

// HookTrace is one recorded sequence of hook payloads.
type HookTrace struct {
	ID, Agent, Session string
	Trap, Source       string
	Steps              []HookStep
}

// ParseHookTrace parses one trace.
func ParseHookTrace(id string, data []byte) (*HookTrace, error) {
	a := parseTxtar(data)
	tr := &HookTrace{ID: id}
	for _, line := range strings.Split(string(a.comment), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "id":
			tr.ID = v
		case "agent":
			tr.Agent = v
		case "session":
			tr.Session = v
		case "trap":
			tr.Trap = v
		case "source":
			tr.Source = v
		}
	}
	if tr.Agent == "" || tr.Session == "" {
		return nil, fmt.Errorf("hook trace %s: agent and session are required", id)
	}
	for i := 0; i < len(a.sections); i++ {
		s := a.sections[i]
		if s.header == "want" {
			return nil, fmt.Errorf("hook trace %s:%d: a want section without a payload before it", id, s.line)
		}
		if i+1 >= len(a.sections) || a.sections[i+1].header != "want" {
			return nil, fmt.Errorf("hook trace %s:%d: step %q has no want section after it", id, s.line, s.header)
		}
		st := HookStep{Name: s.header, Line: s.line, Payload: bytes.TrimSpace(s.data)}
		if err := st.parseWant(a.sections[i+1].data); err != nil {
			return nil, fmt.Errorf("hook trace %s:%d: %v", id, a.sections[i+1].line, err)
		}
		tr.Steps = append(tr.Steps, st)
		i++
	}
	if len(tr.Steps) == 0 {
		return nil, fmt.Errorf("hook trace %s: no steps", id)
	}
	return tr, nil
}

func (st *HookStep) parseWant(data []byte) error {
	var state, title bool
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "absent":
			st.Absent = true
		case line == "unchanged":
			st.Unchanged = true
		case strings.HasPrefix(line, "state:"):
			s, err := statusfile.ParseState(strings.TrimSpace(strings.TrimPrefix(line, "state:")))
			if err != nil {
				return err
			}
			st.State, state = s, true
		case strings.HasPrefix(line, "title:"):
			st.Title, title = strings.TrimSpace(strings.TrimPrefix(line, "title:")), true
		case strings.HasPrefix(line, "why:"):
			st.Why, st.hasWhy = strings.TrimSpace(strings.TrimPrefix(line, "why:")), true
		default:
			return fmt.Errorf("want: unknown line %q", line)
		}
	}
	if !st.Absent && !st.Unchanged && !(state && title) {
		return errors.New("want: needs state: and title: (or absent)")
	}
	return nil
}

// LoadHookTraces reads every *.txtar under root in fsys; with agent set,
// only that agent's traces.
func LoadHookTraces(fsys fs.FS, root, agent string) ([]*HookTrace, error) {
	var out []*HookTrace
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".txtar") {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		id := strings.TrimSuffix(strings.TrimPrefix(p, root+"/"), ".txtar")
		tr, err := ParseHookTrace(id, data)
		if err != nil {
			return err
		}
		if agent == "" || tr.Agent == agent {
			out = append(out, tr)
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, err
}

// HookOptions says how to run an adapter.
type HookOptions struct {
	// Command is the adapter and its arguments, started once per step, not
	// through a shell, with "{home}" in its arguments replaced by the
	// config home, whose agent-status directory it publishes into. The
	// config home is also in its environment as $GENTLE_PI_CONFIG_HOME and
	// $STATUSCONFORM_CONFIG_HOME.
	Command []string
	Env     []string      // added to the environment
	Timeout time.Duration // per step; default 5 s
	Run     Selector      // only the trace ids it matches (all when empty)
}

// RunHookTraces runs every trace against the adapter.
func RunHookTraces(ctx context.Context, traces []*HookTrace, opts HookOptions) (*Report, error) {
	if len(opts.Command) == 0 {
		return nil, errors.New("conformance: no adapter command")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	rep := &Report{Suite: "hooks", Command: opts.Command, Started: time.Now().UTC()}
	for _, tr := range traces {
		if !opts.Run.Match("hooks/" + tr.ID) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		rep.Results = append(rep.Results, RunHookTrace(ctx, tr, opts))
	}
	rep.finish()
	return rep, nil
}

// RunHookTrace runs one trace in a fresh config home and judges the record
// after every step.
func RunHookTrace(ctx context.Context, tr *HookTrace, opts HookOptions) (res Result) {
	start := time.Now()
	res = Result{ID: "hooks/" + tr.ID, Rules: []string{"H1", "H9", "H15"}, Requirements: []string{tr.Trap}}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	home, err := os.MkdirTemp("", "statusconform-hooks-")
	if err != nil {
		res.Outcome, res.Reason = Fail, "harness: "+err.Error()
		return res
	}
	defer os.RemoveAll(home)
	if err := os.Chmod(home, 0o700); err != nil {
		res.Outcome, res.Reason = Fail, "harness: "+err.Error()
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
			res.Outcome, res.Reason, res.Stderr = Fail, stepID+": "+err.Error(), errOut
			return res
		}
		if code != 0 {
			res.Outcome, res.Reason, res.Stderr = Fail, fmt.Sprintf("%s: the adapter exited %d (a hook command must exit 0: status 2 blocks the agent)", stepID, code), errOut
			res.Exit = fmt.Sprint(code)
			return res
		}
		if len(out) > 0 {
			// H9: agents read a hook's stdout (Claude Code adds it to the
			// model's context on SessionStart and UserPromptSubmit).
			res.Outcome, res.Reason, res.Stderr = Fail, fmt.Sprintf("%s: the adapter printed %q on stdout; a hook adapter prints nothing there (H9: agents read it)", stepID, out), errOut
			return res
		}
		data, rerr := os.ReadFile(file)
		switch {
		case st.Absent:
			if rerr == nil {
				res.Outcome, res.Reason = Fail, stepID+": the record is still there"
				res.Expected, res.Actual = "absent", string(data)
				return res
			}
		case st.Unchanged:
			if !bytes.Equal(data, before) {
				res.Outcome, res.Reason = Fail, stepID+": the step wrote the record; it must write nothing"
				res.Expected, res.Actual = string(before), string(data)
				return res
			}
		default:
			if rerr != nil {
				res.Outcome, res.Reason = Fail, fmt.Sprintf("%s: no record: %v", stepID, rerr)
				res.Expected = fmt.Sprintf("state %s, title %q", st.State, st.Title)
				return res
			}
			rec, derr := statusfile.Decode(data)
			if derr != nil {
				res.Outcome, res.Reason = Fail, fmt.Sprintf("%s: the record does not decode: %v", stepID, derr)
				return res
			}
			if rec.State != st.State || rec.Title != st.Title || rec.Session != tr.Session {
				res.Outcome = Fail
				res.Reason = fmt.Sprintf("%s: state %s, title %q; want state %s, title %q", stepID, rec.State, rec.Title, st.State, st.Title)
				res.Expected = fmt.Sprintf("state %s, title %q", st.State, st.Title)
				res.Actual = fmt.Sprintf("state %s, title %q", rec.State, rec.Title)
				return res
			}
			if why := rec.Why(); st.hasWhy && why != st.Why {
				res.Outcome = Fail
				res.Reason = fmt.Sprintf("%s: waitingFor/ended say %q; want %q", stepID, why, st.Why)
				res.Expected, res.Actual = "why: "+st.Why, "why: "+why
				return res
			}
		}
		before = data
	}
	res.Outcome = Pass
	return res
}

// runAdapter runs the adapter once with payload on stdin.
func runAdapter(ctx context.Context, opts HookOptions, home string, payload []byte) (stdout []byte, stderr string, code int, err error) {
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
