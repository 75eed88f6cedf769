//go:build unix

package acpbridge

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// proxy is a Run in progress, with the test as the editor.
type proxy struct {
	t      *testing.T
	dir    string
	in     *io.PipeWriter
	out    *io.PipeReader
	sigs   chan os.Signal
	done   chan struct{}
	code   int
	err    error
	errMu  sync.Mutex
	errors []string
}

func startProxy(t *testing.T, mode string, mutate ...func(*Config)) *proxy {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(agentEnv, mode)
	home := t.TempDir()
	p := &proxy{t: t, dir: filepath.Join(home, "agent-status"), sigs: make(chan os.Signal, 1), done: make(chan struct{})}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p.in, p.out = inW, outR
	c := Config{Command: []string{exe, "-test.run=^$"}, Stdin: inR, Stdout: outW, Stderr: os.Stderr, Signals: p.sigs,
		Dir: p.dir, Agent: "tester", Report: func(err error) {
			p.errMu.Lock()
			p.errors = append(p.errors, err.Error())
			p.errMu.Unlock()
		}}
	for _, f := range mutate {
		f(&c)
	}
	go func() {
		defer close(p.done)
		p.code, p.err = Run(c)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			t.Error("Run did not return")
		}
	})
	return p
}

// startSession starts the proxy over the fake ACP agent and opens a
// session (newReq), up to the session's idle record.
func startSession(t *testing.T) *proxy {
	p := startProxy(t, "acp")
	io.WriteString(p.in, newReq+"\n")
	bufio.NewReader(p.out).ReadString('\n')
	p.waitRecord("idle|||/src/app")
	return p
}

func (p *proxy) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.t.Fatal("Run did not return")
	}
	if p.err != nil {
		p.t.Fatal(p.err)
	}
	return p.code
}

// records lists the fresh records of the proxy's directory.
func (p *proxy) records() []statusfile.Status {
	l, err := reader.List(p.dir, reader.Options{})
	if err != nil {
		return nil
	}
	var recs []statusfile.Status
	for _, e := range l.Entries {
		if e.Verdict == reader.Fresh {
			recs = append(recs, e.Status)
		}
	}
	return recs
}

// waitRecord polls until the only record says want (describe's words, or
// "none").
func (p *proxy) waitRecord(want string) {
	p.t.Helper()
	var got string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		recs := p.records()
		switch len(recs) {
		case 0:
			got = "none"
		case 1:
			r := recs[0]
			got = fmt.Sprintf("%s|%s|%s|%s", r.State, r.Title, r.Why(), r.Cwd)
			if r.Session != SessionPrefix+"S1" || r.Agent != "tester" {
				got += " session " + r.Session + " agent " + r.Agent
			}
		default:
			got = fmt.Sprintf("%d records", len(recs))
		}
		if got == want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.t.Fatalf("record: %s, want %s", got, want)
}

func TestRunPublishesAndRemoves(t *testing.T) {
	p := startProxy(t, "acp")
	lines := bufio.NewReader(p.out)
	send := func(s string) {
		if _, err := io.WriteString(p.in, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() string {
		l, err := lines.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(l)
	}
	send(newReq)
	if got := recv(); got != newResp {
		t.Fatalf("agent said %s", got)
	}
	p.waitRecord("idle|||/src/app")
	send(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"S1","prompt":[{"type":"text","text":"end_turn"}]}}`)
	recv() // the permission request
	p.waitRecord("blocked|end_turn|execute: make|/src/app")
	send(answer(0, "allow")[:0] + `{"jsonrpc":"2.0","id":"p","result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`)
	recv()
	p.waitRecord("idle|end_turn|done|/src/app")
	// The editor closes the pipe: the record goes, the agent ends.
	p.in.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	p.waitRecord("none")
	if len(p.errors) > 0 {
		t.Fatalf("publishing failed: %q", p.errors)
	}
}

// Every byte passes both ways: 10,000 malformed lines, a batch, unknown
// messages and a 64 MiB message, through an agent that echoes them.
func TestRunPassesEveryByte(t *testing.T) {
	p := startProxy(t, "echo")
	var in bytes.Buffer
	for i := range 10000 {
		fmt.Fprintf(&in, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\x00\xff not json %d\n", i, i)
	}
	in.WriteString(`[` + newReq + `,` + prompt2 + "]\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"_vendor/thing","params":{"x":[1,2,3]}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"S1","prompt":[{"type":"text","text":"`)
	in.Write(bytes.Repeat([]byte("0123456789abcdef"), 4<<20))
	in.WriteString("\"}]}}\n{\"no newline at the end\":")
	want := sha256.Sum256(in.Bytes())
	go func() {
		// Written in reads of every size, as an editor's pipe would.
		b := in.Bytes()
		for i := 1; len(b) > 0; i = (i*3 + 1) % (300 << 10) {
			n := min(len(b), i+1)
			if _, err := p.in.Write(b[:n]); err != nil {
				return
			}
			b = b[n:]
		}
		p.in.Close()
	}()
	h := sha256.New()
	n, err := io.Copy(h, p.out)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Sum(nil); !bytes.Equal(got, want[:]) || n != int64(in.Len()) {
		t.Fatalf("the editor got %d bytes, not the %d it sent back", n, in.Len())
	}
	if code := p.wait(); code != 0 {
		t.Fatalf("exit status %d", code)
	}
}

func TestRunExitStatus(t *testing.T) {
	p := startProxy(t, "exit:3")
	if code := p.wait(); code != 3 {
		t.Fatalf("exit status %d, want 3", code)
	}
}

func TestRunAgentNotFound(t *testing.T) {
	_, err := Run(Config{Command: []string{"/nonexistent/agent"}, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard})
	if !errors.Is(err, ErrStart) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
	_, err = Run(Config{Command: []string{"no-such-agent-acpbridge"}, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard})
	if !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
}

func TestRunForwardsSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			if signal.Ignored(sig) {
				// Ignored signals stay ignored through exec: the agent
				// cannot die of it (under nohup, SIGHUP).
				t.Skipf("this process ignores %v, and so would the agent", sig)
			}
			p := startProxy(t, "sleep")
			if l, _ := bufio.NewReader(p.out).ReadString('\n'); l != "ready\n" {
				t.Fatalf("agent said %q", l)
			}
			p.sigs <- sig
			if code := p.wait(); code != 128+int(sig) {
				t.Fatalf("exit status %d, want %d", code, 128+int(sig))
			}
		})
	}
}

// The agent's exit removes the records, the editor still connected.
func TestRunAgentExitRemoves(t *testing.T) {
	p := startSession(t)
	// A prompt with no text makes the fake agent fail (index out of range).
	io.WriteString(p.in, `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"S1","prompt":[]}}`+"\n")
	if code := p.wait(); code == 0 {
		t.Fatal("the agent's failure was not passed on")
	}
	p.waitRecord("none")
}

// A status directory that cannot be written is reported, and the stream
// flows as if nothing happened.
func TestRunFailedWriteKeepsTheStream(t *testing.T) {
	p := startProxy(t, "acp", func(c *Config) {
		os.MkdirAll(c.Dir, 0o700)
		os.Chmod(c.Dir, 0o777) // refused: group- and world-writable
	})
	lines := bufio.NewReader(p.out)
	for range 3 {
		io.WriteString(p.in, newReq+"\n")
		if l, _ := lines.ReadString('\n'); strings.TrimSpace(l) != newResp {
			t.Fatalf("agent said %q", l)
		}
	}
	p.in.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	p.errMu.Lock()
	defer p.errMu.Unlock()
	if len(p.errors) != 1 {
		t.Fatalf("reported %q, want one failure", p.errors)
	}
}

// An editor that is gone (its end of the pipe closed) removes the records;
// the agent's output is still drained, and its exit ends the proxy.
func TestRunEditorGone(t *testing.T) {
	p := startSession(t)
	p.out.Close()
	io.WriteString(p.in, newReq+"\n") // answered into a closed pipe
	p.waitRecord("none")
	p.in.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit status %d", code)
	}
}
