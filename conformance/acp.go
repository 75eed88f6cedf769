package conformance

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/rogpeppe/go-internal/txtar"
)

//go:embed acptraces
var acpTraceFS embed.FS

// ACPTrace is one recorded exchange between an editor and an agent over
// the Agent Client Protocol (conformance/acptraces/AGENT/NAME.txtar): its
// lines in the order they were sent, each with the record it must leave.
type ACPTrace struct {
	ID, Agent, Source, Description string
	Session                        string // the ACP session id the trace makes
	Steps                          []ACPStep
}

// ACPStep is one line of a trace: From is "editor", "agent", or "close"
// (the editor closes the pipe). Want, when not "", is the state the
// session's record must show after it ("gone": no record), and Why its
// reason in SPEC.md Y7's words.
type ACPStep struct {
	From, Line, Want, Why string
}

var sessionIDRe = regexp.MustCompile(`"sessionId":"([^"]+)"`)

// ACPTraces returns the built-in traces of agent ("" for all).
func ACPTraces(agent string) ([]*ACPTrace, error) {
	var traces []*ACPTrace
	err := fs.WalkDir(acpTraceFS, "acptraces", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".txtar" {
			return err
		}
		data, err := acpTraceFS.ReadFile(p)
		if err != nil {
			return err
		}
		tr, err := ParseACPTrace(data)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if agent == "" || tr.Agent == agent {
			traces = append(traces, tr)
		}
		return nil
	})
	return traces, err
}

// ParseACPTrace reads a trace.
func ParseACPTrace(data []byte) (*ACPTrace, error) {
	a := txtar.Parse(data)
	tr := &ACPTrace{}
	for l := range strings.Lines(string(a.Comment)) {
		k, v, ok := strings.Cut(strings.TrimSpace(l), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "id":
			tr.ID = v
		case "agent":
			tr.Agent = v
		case "source":
			tr.Source = v
		case "description":
			tr.Description = v
		}
	}
	if tr.ID == "" || tr.Agent == "" {
		return nil, errors.New("no id or agent in the header")
	}
	for _, f := range a.Files {
		switch f.Name {
		case "editor", "agent", "close":
			line := strings.TrimSuffix(string(f.Data), "\n")
			if strings.Contains(line, "\n") {
				return nil, fmt.Errorf("%s section %d holds more than one line", f.Name, len(tr.Steps)+1)
			}
			tr.Steps = append(tr.Steps, ACPStep{From: f.Name, Line: line})
			if m := sessionIDRe.FindStringSubmatch(line); m != nil && tr.Session == "" {
				tr.Session = m[1]
			}
		case "want":
			if len(tr.Steps) == 0 {
				return nil, errors.New("want before any line")
			}
			st := &tr.Steps[len(tr.Steps)-1]
			for l := range strings.Lines(string(f.Data)) {
				k, v, _ := strings.Cut(strings.TrimSpace(l), ":")
				switch k {
				case "state":
					st.Want = strings.TrimSpace(v)
				case "why":
					st.Why = strings.TrimSpace(v)
				}
			}
			if st.Want == "" {
				return nil, fmt.Errorf("want after line %d has no state", len(tr.Steps))
			}
		default:
			return nil, fmt.Errorf("unknown section %q", f.Name)
		}
	}
	return tr, nil
}

// acpRules are the rules every ACP trace checks.
var acpRules = []string{"A1", "A3", "A4", "A5"}

// acpFakeAgent is the agent the bridge under test runs: it passes what it
// receives to the harness through one FIFO and says what the harness
// writes into the other.
var acpFakeAgent = []string{"sh", "-c", `exec 3<&0; cat <&3 >"$0" & exec cat <"$1"`}

// RunACP runs the ACP traces of [Options].Agent (every agent's when
// empty) against a bridge ([Options].Command): a command that runs the
// agent given after its own arguments as `statuspub acp --` does (SPEC.md
// §13.5), publishing into the config home {home} (also in
// $GENTLE_PI_CONFIG_HOME). The harness is the editor on the bridge's
// standard input and output, and the agent too: a fake agent replays the
// trace's agent lines. Every line must come out of the bridge unchanged
// on the other side, and after each line with an expectation the
// session's record must show it within [Options].Timeout (2 s by default).
func RunACP(ctx context.Context, opts Options) (*Report, error) {
	traces, err := ACPTraces(opts.Agent)
	if err != nil {
		return nil, err
	}
	return runTraces(ctx, "acp", opts, traces, acpCheck, runACPTrace, "no bridge command")
}

// acpCheck is the check a trace decides: its id, the rules, and what it
// replays.
func acpCheck(tr *ACPTrace) Result {
	return Result{ID: "acp/" + tr.ID, Rules: acpRules, Requirements: []string{tr.Description}}
}

func runACPTrace(ctx context.Context, tr *ACPTrace, opts Options) (res Result) {
	start := time.Now()
	res = acpCheck(tr)
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	fail := func(why, expected, actual string) Result {
		res.Outcome, res.Reason, res.Expected, res.Actual = outcomeFail, why, expected, actual
		return res
	}
	wait := opts.Timeout
	if wait <= 0 {
		wait = 2 * time.Second
	}
	home, err := os.MkdirTemp(opts.TempDir, "statusconform-acp-")
	if err != nil {
		return fail("harness: "+err.Error(), "", "")
	}
	defer os.RemoveAll(home)
	toAgent, fromAgent := filepath.Join(home, "to-agent"), filepath.Join(home, "from-agent")
	for _, f := range []string{toAgent, fromAgent} {
		if err := mkfifo(f, 0o600); err != nil {
			return fail("harness: "+err.Error(), "", "")
		}
	}
	if err := os.Chmod(home, 0o700); err != nil {
		return fail("harness: "+err.Error(), "", "")
	}
	argv := slices.Clone(opts.Command)
	for i, a := range argv {
		argv[i] = strings.ReplaceAll(a, "{home}", home)
	}
	argv = append(append(argv, acpFakeAgent...), toAgent, fromAgent)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "GENTLE_PI_CONFIG_HOME="+home, "STATUSCONFORM_CONFIG_HOME="+home)
	// The bridge, the fake agent and whatever they start go together.
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 2 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return fail("the bridge does not start: "+err.Error(), "", "")
	}
	exited := make(chan struct{})
	defer func() {
		cancel()
		<-exited
		if res.Outcome == outcomeFail {
			res.Stderr = stderr.String()
		}
	}()
	// The FIFOs open when the fake agent opens its ends.
	type opened struct {
		f   *os.File
		err error
	}
	rc, wc := make(chan opened, 1), make(chan opened, 1)
	go func() { f, err := os.OpenFile(toAgent, os.O_RDONLY, 0); rc <- opened{f, err} }()
	go func() { f, err := os.OpenFile(fromAgent, os.O_WRONLY, 0); wc <- opened{f, err} }()
	go func() { cmd.Wait(); close(exited) }()
	var agentIn *bufio.Reader
	var agentOut *os.File
	for range 2 {
		select {
		case o := <-rc:
			if o.err != nil {
				return fail("harness: "+o.err.Error(), "", "")
			}
			defer o.f.Close()
			agentIn = bufio.NewReaderSize(o.f, 1<<20)
		case o := <-wc:
			if o.err != nil {
				return fail("harness: "+o.err.Error(), "", "")
			}
			defer o.f.Close()
			agentOut = o.f
		case <-exited:
			return fail("the bridge exited before it started the agent", "", "")
		case <-time.After(10 * time.Second):
			return fail("the bridge did not start the agent given after its arguments", "", "")
		}
	}
	editorIn := bufio.NewReaderSize(stdout, 1<<20)
	readLine := func(r *bufio.Reader) (string, error) {
		type got struct {
			s   string
			err error
		}
		ch := make(chan got, 1)
		go func() { s, err := r.ReadString('\n'); ch <- got{s, err} }()
		select {
		case g := <-ch:
			return g.s, g.err
		case <-time.After(wait + 3*time.Second):
			return "", errors.New("nothing came through")
		}
	}
	dir := filepath.Join(home, statusName)
	for i, st := range tr.Steps {
		stepID := fmt.Sprintf("step %d (%s)", i+1, st.From)
		res.Timeline = append(res.Timeline, stepID)
		switch st.From {
		case "editor", "agent":
			w, r, other := io.Writer(stdin), agentIn, "agent"
			if st.From == "agent" {
				w, r, other = agentOut, editorIn, "editor"
			}
			if _, err := io.WriteString(w, st.Line+"\n"); err != nil {
				return fail(fmt.Sprintf("%s: writing the line: %v", stepID, err), "", "")
			}
			got, err := readLine(r)
			if err != nil {
				return fail(fmt.Sprintf("%s: the %s did not receive the line: %v", stepID, other, err), st.Line, got)
			}
			if got != st.Line+"\n" {
				return fail(fmt.Sprintf("%s: the %s received other bytes than were sent (A1)", stepID, other), st.Line, strings.TrimSuffix(got, "\n"))
			}
		case "close":
			stdin.Close()
			agentOut.Close()
		}
		if st.Want == "" {
			continue
		}
		want := st.Want
		if st.Why != "" {
			want += ", " + st.Why
		}
		var got string
		deadline := time.Now().Add(wait)
		for {
			got = acpRecord(dir, tr.Session)
			if got == want || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if got != want {
			return fail(fmt.Sprintf("%s: the record shows %s; want %s within %v", stepID, got, want, wait), want, got)
		}
	}
	select {
	case <-exited:
	case <-time.After(wait + 5*time.Second):
		return fail("the bridge did not exit after the editor closed the pipe and the agent ended (A4)", "", "")
	}
	res.Outcome = outcomePass
	return res
}

// acpRecord says what the status directory holds for ACP session sid:
// "gone" when no fresh record, "STATE[, WHY]" when its record alone, else
// what is wrong.
func acpRecord(dir, sid string) string {
	l, err := reader.List(dir, reader.Options{})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "gone"
		}
		return "error: " + err.Error()
	}
	fresh := l.Fresh()
	switch {
	case len(fresh) == 0:
		return "gone"
	case len(fresh) > 1:
		return fmt.Sprintf("%d records", len(fresh))
	}
	s := fresh[0].Status
	if s.Session != "acp:"+sid {
		return fmt.Sprintf("a record of session %q, not %q (A3)", s.Session, "acp:"+sid)
	}
	out := string(s.State)
	if w := s.Why(); w != "" {
		out += ", " + w
	}
	return out
}
