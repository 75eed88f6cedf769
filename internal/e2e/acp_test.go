//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

// The agents over the Agent Client Protocol, run by `statuspub acp` as an
// editor (Zed) would run them, driven by a scripted ACP client that speaks
// as Zed does. After every transition of the protocol's own truth (a
// prompt sent: working; a permission request: blocked; its answer:
// working; the prompt's response: idle; stdin closed: gone) `statusls
// --json` must agree within acpMaxWrong, and the bytes each side received
// must be the bytes the other sent.

// acpMaxWrong is how long statusls may disagree with the protocol (issue 33).
const acpMaxWrong = 500 * time.Millisecond

// acpSetup is an agent ready to run over ACP.
type acpSetup struct {
	name, version string
	argv, env     []string
	proj          string
	model         *model
}

func geminiACP(t *testing.T) acpSetup {
	m := startModel(t, geminiHandler)
	home, proj := newHome(t)
	writeHome(t, home, geminiFiles(geminiSettings, proj))
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8",
		"GOOGLE_GEMINI_BASE_URL=" + m.url, "GEMINI_API_KEY=agentstatus-e2e-dummy-key"}
	return acpSetup{name: "gemini", version: pinned["gemini"].version, argv: []string{pinned["gemini"].path(), "--acp"}, env: env, proj: proj, model: m}
}

func opencodeACP(t *testing.T) acpSetup {
	m := startModel(t, chatHandler)
	home, env := opencodeHome(t, m.url, askBash)
	return acpSetup{name: "opencode", version: pinned["opencode"].version, argv: []string{pinned["opencode"].path(), "acp"}, env: env,
		proj: filepath.Join(home, "proj"), model: m}
}

func TestACPGemini(t *testing.T)   { needE2E(t); runACP(t, geminiACP(t)) }
func TestACPOpenCode(t *testing.T) { needE2E(t); runACP(t, opencodeACP(t)) }

// acpMsg is a JSON-RPC message as the client reads it.
type acpMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// acpClient is the editor: it writes requests, answers the agent's, and
// keeps every line both ways, with the protocol's truth after each.
type acpClient struct {
	t        *testing.T
	cmd      *exec.Cmd
	in       io.WriteCloser
	stderr   bytes.Buffer
	mu       sync.Mutex
	sent     bytes.Buffer
	received bytes.Buffer
	lines    []traceLine
	truths   []truthAt
	next     int
	waiters  map[string]waiter
	perms    chan acpMsg
	done     chan struct{}
}

// waiter is a request waiting for its response; a prompt's response
// makes the truth idle.
type waiter struct {
	ch     chan acpMsg
	prompt bool
}

type traceLine struct {
	from  string // editor or agent
	line  string
	truth string // the truth after the line, "" unchanged
	at    time.Time
}

type truthAt struct {
	at    time.Time
	state string
	line  int // the index of the line that made it
}

func startACPClient(t *testing.T, argv, env []string, dir string) *acpClient {
	c := &acpClient{t: t, waiters: map[string]waiter{}, perms: make(chan acpMsg, 4), done: make(chan struct{})}
	c.cmd = exec.Command(argv[0], argv[1:]...)
	c.cmd.Env, c.cmd.Dir = env, dir
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.cmd.Stderr = &c.stderr
	c.in, _ = c.cmd.StdinPipe()
	out, _ := c.cmd.StdoutPipe()
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		<-c.done
	})
	go c.read(out)
	return c
}

func (c *acpClient) read(out io.Reader) {
	defer close(c.done)
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		c.mu.Lock()
		c.received.Write(line)
		c.mu.Unlock()
		if err != nil {
			c.cmd.Wait()
			return
		}
		var m acpMsg
		json.Unmarshal(line, &m)
		c.mu.Lock()
		w, isResponse := c.waiters[string(m.ID)]
		isResponse = isResponse && m.Method == ""
		c.mu.Unlock()
		truth := ""
		switch {
		case m.Method == "session/request_permission":
			truth = blocked
		case isResponse && w.prompt:
			truth = idle
		}
		c.note("agent", string(bytes.TrimRight(line, "\n")), truth)
		switch {
		case m.Method == "session/request_permission":
			c.perms <- m
		case m.Method != "" && len(m.ID) > 0:
			// Zed announces no file system or terminal: what else an
			// agent asks is not supported.
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID), "")
		case isResponse:
			c.mu.Lock()
			delete(c.waiters, string(m.ID))
			c.mu.Unlock()
			w.ch <- m
		}
	}
}

// note appends a line to the trace, with the truth it makes ("": none).
func (c *acpClient) note(from, line, truth string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.noteLocked(from, line, truth)
}

func (c *acpClient) noteLocked(from, line, truth string) {
	now := time.Now()
	c.lines = append(c.lines, traceLine{from: from, line: line, truth: truth, at: now})
	if truth != "" {
		c.truths = append(c.truths, truthAt{now, truth, len(c.lines) - 1})
	}
}

// send writes line to the agent; truth is the truth it makes ("": none).
func (c *acpClient) send(line, truth string) {
	c.mu.Lock()
	c.sent.WriteString(line + "\n")
	c.noteLocked("editor", line, truth)
	_, err := io.WriteString(c.in, line+"\n")
	c.mu.Unlock()
	if err != nil {
		c.t.Fatalf("writing to the agent: %v", err)
	}
}

// request sends method and returns a channel for its response; truth,
// when not "", is the truth once it is sent.
func (c *acpClient) request(method string, params any, truth string) chan acpMsg {
	c.mu.Lock()
	c.next++
	id := fmt.Sprint(c.next)
	ch := make(chan acpMsg, 1)
	c.waiters[id] = waiter{ch, method == "session/prompt"}
	c.mu.Unlock()
	p, _ := json.Marshal(params)
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, p), truth)
	return ch
}

func (c *acpClient) wait(ch chan acpMsg, what string, d time.Duration) acpMsg {
	c.t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(d):
		c.t.Fatalf("%s: no answer in %v; stderr:\n%s", what, d, c.tail())
	}
	return acpMsg{}
}

func (c *acpClient) tail() string {
	s := c.stderr.String()
	return s[max(0, len(s)-3000):]
}

// prompt sends a prompt and returns the channel of its response.
func (c *acpClient) prompt(session, text string) chan acpMsg {
	return c.request("session/prompt", map[string]any{"sessionId": session, "prompt": []any{map[string]any{"type": "text", "text": text}}}, working)
}

// ended waits for a prompt's response (which made the truth idle), then
// a second, as a user reads the answer before the next prompt.
func (c *acpClient) ended(ch chan acpMsg, what string) acpMsg {
	c.t.Helper()
	m := c.wait(ch, what, 90*time.Second)
	time.Sleep(time.Second)
	return m
}

// answerPermission waits for a permission request and answers it with the
// first option of kind (allow_once, reject_once).
func (c *acpClient) answerPermission(kind string) {
	c.t.Helper()
	var m acpMsg
	select {
	case m = <-c.perms:
	case <-time.After(90 * time.Second):
		c.t.Fatalf("no permission request; stderr:\n%s", c.tail())
	}
	time.Sleep(time.Second) // the user reads the request
	var p struct {
		Options []struct{ OptionID, Kind string } `json:"options"`
	}
	json.Unmarshal(m.Params, &p)
	id := ""
	for _, o := range p.Options {
		if o.Kind == kind {
			id = o.OptionID
			break
		}
	}
	if id == "" {
		c.t.Fatalf("no option of kind %s in %s", kind, m.Params)
	}
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":%q}}}`, m.ID, id), working)
}

// acpSampler runs `statusls --json` every 50 ms and keeps each change of
// the state of the acp: records (an agent's own hooks or plugin may
// publish beside them).
type acpSampler struct {
	sampler
}

func startACPSampler(t *testing.T, home string) *acpSampler {
	s := &acpSampler{sampler{stop: make(chan struct{}), done: make(chan struct{})}}
	go func() {
		defer close(s.done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			cmd := exec.Command("statusls", "--json", "session,state,waitingFor,ended")
			cmd.Env = append(os.Environ(), "GENTLE_PI_CONFIG_HOME="+home)
			out, err := cmd.Output()
			state, why := gone, ""
			var recs []struct {
				Session    string          `json:"session"`
				State      string          `json:"state"`
				WaitingFor json.RawMessage `json:"waitingFor"`
				Ended      json.RawMessage `json:"ended"`
			}
			if err != nil || json.Unmarshal(out, &recs) != nil {
				state = fmt.Sprintf("error: %v %s", err, out)
			} else {
				var acp []string
				for _, r := range recs {
					if strings.HasPrefix(r.Session, "acp:") {
						acp = append(acp, r.State)
						state, why = r.State, acpWhy(r.State, r.WaitingFor, r.Ended)
					}
				}
				if len(acp) > 1 {
					state = "several: " + strings.Join(acp, ",")
				}
			}
			now := time.Now()
			s.mu.Lock()
			if n := len(s.changes); n == 0 || s.changes[n-1].state != state || s.changes[n-1].why != why {
				s.changes = append(s.changes, sample{now, state, why})
			}
			s.mu.Unlock()
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(s.close)
	return s
}

// acpWhy is what statusls's waitingFor and ended say, in the words of
// SPEC.md Y7 (statusfile.Status.Why).
func acpWhy(state string, wait, end json.RawMessage) string {
	var w struct{ Kind, Tool, Detail string }
	var e struct{ Reason, Detail string }
	json.Unmarshal(wait, &w)
	json.Unmarshal(end, &e)
	st := statusfile.Status{State: statusfile.State(state), WaitingFor: statusfile.Waiting{Kind: w.Kind, Tool: w.Tool, Detail: w.Detail},
		Ended: statusfile.Ended{Reason: e.Reason, Detail: e.Detail}}
	return st.Why()
}

// agreement is when the status first showed state at or after t0 and
// before by (zero when it did not), and the why it showed.
func (s *acpSampler) agreement(t0, by time.Time, state string) (time.Time, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range s.changes {
		end := by
		if i+1 < len(s.changes) {
			end = s.changes[i+1].at
		}
		if c.state == state && end.After(t0) && c.at.Before(by) {
			if c.at.Before(t0) {
				return t0, c.why
			}
			return c.at, c.why
		}
	}
	return time.Time{}, ""
}

func runACP(t *testing.T, a acpSetup) {
	home := t.TempDir()
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	logs := t.TempDir()
	inLog, outLog := filepath.Join(logs, "agent-in"), filepath.Join(logs, "agent-out")
	// The agent's own ends of the pipes, recorded by tee on either side of
	// it: what it received and what it sent.
	argv := append([]string{"statuspub", "acp", "--agent", a.name, "--", "sh", "-c", `tee "$ACP_E2E_IN" | "$@" | tee "$ACP_E2E_OUT"`, "sh"}, a.argv...)
	env := append(append([]string{}, a.env...), "GENTLE_PI_CONFIG_HOME="+home, "ACP_E2E_IN="+inLog, "ACP_E2E_OUT="+outLog)
	s := startACPSampler(t, home)
	c := startACPClient(t, argv, env, a.proj)
	defer func() {
		if t.Failed() {
			t.Logf("model:\n%s\nagent stderr:\n%s", a.model.Logs(), c.tail())
		}
	}()

	init := c.wait(c.request("initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false},
		"clientInfo":         map[string]any{"name": "zed", "title": "Zed", "version": "0.212.0"}}, ""), "initialize", 240*time.Second)
	if init.Error != nil {
		t.Fatalf("initialize: %s", init.Error.Message)
	}
	nm := c.wait(c.request("session/new", map[string]any{"cwd": a.proj, "mcpServers": []any{}}, ""), "session/new", 90*time.Second)
	c.mu.Lock()
	for i := len(c.lines) - 1; i >= 0; i-- { // its response made the session: idle
		if c.lines[i].from == "agent" && strings.Contains(c.lines[i].line, `"sessionId"`) && strings.Contains(c.lines[i].line, `"result"`) {
			c.lines[i].truth = idle
			c.truths = append(c.truths, truthAt{c.lines[i].at, idle, i})
			break
		}
	}
	c.mu.Unlock()
	var ns struct{ SessionID string }
	if json.Unmarshal(nm.Result, &ns); ns.SessionID == "" {
		t.Fatalf("session/new: %s %+v", nm.Result, nm.Error)
	}
	sid := ns.SessionID
	time.Sleep(time.Second)
	stops := map[string]string{}
	stop := func(m acpMsg) string {
		if m.Error != nil {
			return "error " + m.Error.Message
		}
		var r struct{ StopReason string }
		json.Unmarshal(m.Result, &r)
		return r.StopReason
	}
	stops["text"] = stop(c.ended(c.prompt(sid, "e2e:text"), "text"))
	p := c.prompt(sid, "e2e:tool touch e2e-allow")
	c.answerPermission("allow_once")
	stops["allow"] = stop(c.ended(p, "allow"))
	p = c.prompt(sid, "e2e:tool touch e2e-reject")
	c.answerPermission("reject_once")
	stops["reject"] = stop(c.ended(p, "reject"))
	p = c.prompt(sid, "e2e:slow")
	time.Sleep(2 * time.Second)
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":%q}}`, sid), "")
	stops["cancel"] = stop(c.ended(p, "cancel"))
	stops["fail"] = stop(c.ended(c.prompt(sid, "e2e:fail 400"), "fail"))
	// The editor closes the pipe: the agent and every record go.
	c.mu.Lock()
	c.in.Close()
	c.noteLocked("close", "", gone)
	c.mu.Unlock()
	select {
	case <-c.done:
	case <-time.After(90 * time.Second): // Gemini CLI takes its time on a loaded machine
		t.Fatal("statuspub acp did not exit after stdin closed")
	}
	time.Sleep(acpMaxWrong + 100*time.Millisecond)
	s.close()
	if code := c.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("statuspub acp exited %d", code)
	}
	t.Logf("stop reasons: %v", stops)

	// Every byte, both ways.
	in, _ := os.ReadFile(inLog)
	out, _ := os.ReadFile(outLog)
	c.mu.Lock()
	if !bytes.Equal(in, c.sent.Bytes()) {
		t.Errorf("the agent received %d bytes, not the %d the editor sent", len(in), c.sent.Len())
	}
	if !bytes.Equal(out, c.received.Bytes()) {
		t.Errorf("the editor received %d bytes, not the %d the agent sent", c.received.Len(), len(out))
	}
	t.Logf("bytes: editor→agent %d, agent→editor %d, identical on both sides", c.sent.Len(), c.received.Len())
	truths, lines := append([]truthAt(nil), c.truths...), append([]traceLine{}, c.lines...)
	c.mu.Unlock()

	// After every transition, statusls agrees within acpMaxWrong.
	whys := map[int]string{}
	var worst time.Duration
	for i, tr := range truths {
		by := time.Now()
		if i+1 < len(truths) {
			by = truths[i+1].at
		}
		at, why := s.agreement(tr.at, by, tr.state)
		if at.IsZero() {
			t.Errorf("transition %d to %s (after %.80s): statusls never agreed; it said:\n%s", i, tr.state, lines[tr.line].line, s.timeline(tr.at))
			continue
		}
		d := at.Sub(tr.at)
		worst = max(worst, d)
		whys[tr.line] = why
		if d > acpMaxWrong {
			t.Errorf("transition %d to %s: statusls agreed after %v, more than %v", i, tr.state, d.Round(time.Millisecond), acpMaxWrong)
		}
		report(a.name+"-acp", "acp", i, lines[tr.line].from, tr.state, d, true, why)
	}
	t.Logf("%d transitions, statusls agreed within %v at worst", len(truths), worst.Round(time.Millisecond))
	if dir := os.Getenv("AGENTSTATUS_E2E_ACPTRACE"); dir != "" {
		writeACPTrace(t, dir, a, lines, whys)
	}
}

// volatile are the parts of a recorded line that change from run to run.
var volatile = regexp.MustCompile(`/tmp/[^"/]+/\d+`)

// writeACPTrace writes the exchange as conformance/acptraces/AGENT/NAME.txtar:
// each line, and after each that changed the truth, the record it left.
func writeACPTrace(t *testing.T, dir string, a acpSetup, lines []traceLine, whys map[int]string) {
	var b strings.Builder
	fmt.Fprintf(&b, "id: %s/real-%s-session\nagent: %s\nsource: recorded by internal/e2e TestACP against %s %s (%s), scripted model\n",
		a.name, a.version, a.name, a.name, a.version, strings.Join(a.argv[1:], " "))
	b.WriteString("description: initialize, session/new, a text prompt, a permission allowed, one rejected, a cancel mid-stream, a failed model call, stdin closed\n\n")
	for i, l := range lines {
		if l.from == "close" {
			b.WriteString("-- close --\n")
		} else {
			fmt.Fprintf(&b, "-- %s --\n%s\n", l.from, volatile.ReplaceAllString(l.line, "/tmp/home"))
		}
		if l.truth != "" {
			fmt.Fprintf(&b, "-- want --\nstate: %s\nwhy: %s\n", l.truth, whys[i])
		}
	}
	path := filepath.Join(dir, a.name, "real-"+a.version+"-session.txtar")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Error(err)
	}
}
