//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The scripted model. Every agent talks to it through its own API (one
// handler file each: api_*_test.go); what it answers is decided here, from
// the last text the user typed, so that one scenario means the same thing
// to every agent.
//
//	e2e:text             reply "done."
//	e2e:slow             stream text slowly (a chunk every 250 ms, 90 s)
//	e2e:tool CMD         call the agent's shell tool with CMD; after its
//	                     result, reply "done."
//	e2e:parallel A ;; B  two shell tool calls at once, then "done."
//	e2e:fail CODE        answer HTTP CODE with the API's error body
//	e2e:flaky CODE       answer HTTP CODE to the first flakyFails requests
//	                     (the agent retries), then reply "done."
//	e2e:ask QUESTION     call the agent's ask-the-user tool, then "done."
//	e2e:agent CMD        start a subagent (the agent's subagent tool) whose
//	                     prompt is "e2e:tool CMD"; then "done." (Copilot
//	                     CLI: a CMD that is a directive is the prompt)
//	e2e:plan [PLAN]      propose PLAN (d.plan()) for the user to approve:
//	                     the agent's tool that ends plan mode (Claude
//	                     Code's ExitPlanMode, exit_plan_mode of Gemini CLI,
//	                     Qwen Code and Copilot CLI), then "done."; Codex's Plan mode
//	                     has no such tool: a <proposed_plan> block
//	e2e:bgagent CMD      start such a subagent and reply "done." at once,
//	                     without waiting for it (where the agent's tools
//	                     let the model choose: Codex's wait_agent,
//	                     Copilot CLI's task mode "background")
//	e2e:background CMD   run CMD in the background (the agent's shell tool,
//	                     where it has a background flag), then "done.";
//	                     "agent CMD": a background subagent (Qwen Code);
//	                     "monitor CMD": a monitor (Claude Code's Monitor
//	                     tool), each line CMD writes an event
//	anything else        reply "ok" (titles, summaries, warm-ups)
//
// A request that offers no tools (an agent's side request: a title, a
// summary) always gets "ok", whatever text it quotes.

// directive is what the model does for one request.
type directive struct {
	kind string   // text, slow, tool, parallel, fail, ask, agent, plan, background, ok
	args []string // the commands, the status code or the question
}

// parseDirective reads a directive from the start of a user's text.
func parseDirective(text string) directive {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "e2e:") {
		return directive{kind: "ok"}
	}
	word, rest, _ := strings.Cut(strings.TrimPrefix(text, "e2e:"), " ")
	rest = strings.TrimSpace(rest)
	switch word {
	case "text", "slow":
		return directive{kind: word}
	case "plan":
		if rest == "" {
			return directive{kind: word}
		}
		return directive{kind: word, args: []string{rest}}
	case "tool", "ask", "agent", "bgagent", "background":
		if rest == "" {
			break
		}
		return directive{kind: word, args: []string{rest}}
	case "parallel":
		var cmds []string
		for c := range strings.SplitSeq(rest, ";;") {
			if c = strings.TrimSpace(c); c != "" {
				cmds = append(cmds, c)
			}
		}
		if len(cmds) < 2 {
			break
		}
		return directive{kind: word, args: cmds}
	case "fail", "flaky":
		if code, err := strconv.Atoi(rest); err == nil && code >= 400 && code <= 599 {
			return directive{kind: word, args: []string{rest}}
		}
	}
	return directive{kind: "ok"}
}

// plan is the plan of a plan directive: its text, else a plan of one step.
func (d directive) plan() string {
	if len(d.args) > 0 {
		return d.args[0]
	}
	return "Add a file named e2e-plan."
}

// status is the HTTP status of a fail directive.
func (d directive) status() int {
	code, _ := strconv.Atoi(d.args[0])
	return code
}

// model serves the scripted model on 127.0.0.1 through one API handler.
type model struct {
	t    testing.TB
	url  string // http://127.0.0.1:PORT
	srv  *http.Server
	slow time.Duration // between the chunks of e2e:slow
	// think is how long the model takes before it answers a directive,
	// so that every turn is seen working on the screen.
	think time.Duration

	mu      sync.Mutex
	logs    []string
	pending map[string]bool // ids of the tool calls last made
	pendFor string          // the user text they were made for
	agents  map[string]bool // the commands of agent directives whose subagent started
	flaky   map[string]int  // failures answered, by the text of a flaky directive
	// side is how long a request without a directive (a title, a
	// summary, a compaction: Copilot CLI's offers tools) takes; a test
	// sets it with setSide around the moment it looks at.
	side time.Duration
}

// setSide makes requests without a directive take d from now on.
func (m *model) setSide(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.side = d
}

// flakyFails is how many requests of a flaky directive fail before one
// is answered: enough for the retry to be seen, few enough for every
// agent's retry budget.
const flakyFails = 2

// flakyOnce turns a flaky directive for text into the failure it answers
// while the agent retries, then into the text it answers at last.
func (m *model) flakyOnce(text string, d directive) directive {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.flaky == nil {
		m.flaky = map[string]int{}
	}
	if m.flaky[text] >= flakyFails {
		return directive{kind: "text"}
	}
	m.flaky[text]++
	return directive{kind: "fail", args: d.args}
}

// agentOnce reports whether the subagent of the agent directive for cmd
// is yet to start, and from now on that it has: the agent's later
// requests (its answer, its next turn when the subagent is done) quote
// the directive again in ways a request alone does not tell apart.
func (m *model) agentOnce(cmd string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.agents == nil {
		m.agents = map[string]bool{}
	}
	first := !m.agents[cmd]
	m.agents[cmd] = true
	return first
}

// called records the ids of the tool calls just made for the directive in
// text; none forgets them.
func (m *model) called(text string, ids ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pending, m.pendFor = map[string]bool{}, text
	for _, id := range ids {
		m.pending[id] = true
	}
}

// answered reports whether results holds the result of a tool call made
// for the directive in text: the conversation has moved past it, whatever
// order the agent puts its messages in. A denied call's result, sent with
// the next prompt, answers nothing.
func (m *model) answered(text string, results []string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if text != m.pendFor {
		return false
	}
	for _, id := range results {
		if m.pending[id] {
			return true
		}
	}
	return false
}

// startModel serves h (made from the model) on a free port of 127.0.0.1
// until the test ends.
func startModel(t testing.TB, handler func(*model) http.Handler) *model {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &model{t: t, url: "http://" + ln.Addr().String(), slow: 250 * time.Millisecond, think: time.Second}
	m.srv = &http.Server{Handler: m.logged(handler(m))}
	go m.srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		m.srv.Shutdown(ctx)
		m.srv.Close()
	})
	return m
}

// logged records every request's method and path, and with
// $AGENTSTATUS_E2E_DUMP set, writes each request's body into that
// directory (for a new agent's handler).
func (m *model) logged(h http.Handler) http.Handler {
	var n atomic.Int64
	dump := os.Getenv("AGENTSTATUS_E2E_DUMP")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.log("%s %s", r.Method, r.URL.Path)
		if dump != "" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			os.WriteFile(filepath.Join(dump, fmt.Sprintf("%03d.json", n.Add(1))), body, 0o644)
		}
		h.ServeHTTP(w, r)
	})
}

// directive decides the answer to a request whose last user text is
// lastUser. afterTool: the conversation ends with a tool's result (the
// directive's tools have run). tools: the request offers tools.
func (m *model) directive(lastUser string, afterTool, tools bool) directive {
	d := parseDirective(lastUser)
	switch {
	case !tools && d.kind != "fail":
		d = directive{kind: "ok"}
	case d.kind == "flaky":
		d = m.flakyOnce(lastUser, d)
	case afterTool && (d.kind == "agent" || d.kind == "bgagent"):
		// The subagent's own tool calls may still be pending.
		d = directive{kind: "text"}
	case afterTool && (d.kind == "tool" || d.kind == "parallel" || d.kind == "ask" || d.kind == "plan" || d.kind == "background"):
		d = directive{kind: "text"}
		m.called("") // done with those calls
	}
	m.log("directive %s %q (after tool %v, tools %v)", d.kind, d.args, afterTool, tools)
	if d.kind != "ok" {
		time.Sleep(m.think)
	}
	if d.kind == "ok" {
		m.mu.Lock()
		side := m.side
		m.mu.Unlock()
		time.Sleep(side)
	}
	return d
}

// log keeps a line for the failure report of the test.
func (m *model) log(format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.logs = append(m.logs, time.Now().Format("15:04:05.000 ")+fmt.Sprintf(format, args...))
}

// Logs returns what the model was asked, one line a request.
func (m *model) Logs() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.logs, "\n")
}

// slowChunks calls send with one chunk of text every m.slow for 90 s,
// or until ctx ends (the agent closed the stream: interrupted). It reports
// whether it ran to the end.
func (m *model) slowChunks(ctx context.Context, send func(chunk string) error) bool {
	tick := time.NewTicker(m.slow)
	defer tick.Stop()
	for i := 0; i < int(90*time.Second/m.slow); i++ {
		if err := send(fmt.Sprintf("word%d ", i)); err != nil {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}

// sse writes server-sent events to w, flushing each.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

// event writes one event; name "" writes a data line only.
func (s *sse) event(name, data string) error {
	var err error
	if name != "" {
		_, err = fmt.Fprintf(s.w, "event: %s\n", name)
	}
	if err == nil {
		_, err = fmt.Fprintf(s.w, "data: %s\n\n", data)
	}
	if s.f != nil {
		s.f.Flush()
	}
	return err
}
