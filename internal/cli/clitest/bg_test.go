package clitest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// A program started by "start", followed by "await" and ended by "finish".
// testscript's own background commands ("exec ... &") show their output
// only once they have exited and take no SIGTERM, and none runs on a
// pseudo-terminal: watch is followed while it runs, and ended as editors
// and terminals end it.
type bg struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer // stdout, or the terminal's output with -pty
	err  bytes.Buffer
	read chan struct{} // closed once the output is all read
}

func (b *bg) text() string { b.mu.Lock(); defer b.mu.Unlock(); return b.out.String() }

type bgKey struct{}

// bgSetup gives the script a place for its programs, killed at its end;
// vars are the variables a started program sees, as the script has them
// when it starts.
func bgSetup(e *testscript.Env) {
	procs := map[string]*bg{}
	var keys []string
	for _, kv := range e.Vars {
		if k, _, _ := strings.Cut(kv, "="); isName(k) {
			keys = append(keys, k)
		}
	}
	e.Values[bgKey{}] = procs
	e.Values[varsKey{}] = keys
	e.Defer(func() {
		for _, b := range procs {
			b.cmd.Process.Kill()
			b.cmd.Wait()
		}
	})
}

type varsKey struct{}

// isName: k names a variable, not one of testscript's own ("/", ":", "$").
func isName(k string) bool {
	return k != "" && strings.Trim(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == ""
}

func procs(ts *testscript.TestScript) map[string]*bg { return ts.Value(bgKey{}).(map[string]*bg) }

// start [-pty COLS] NAME CMD [ARGS...]: start CMD in the background, its
// stdout and stderr on pipes, or on a pseudo-terminal COLS wide.
func cmdStart(ts *testscript.TestScript, neg bool, args []string) {
	cols := 0
	if len(args) > 1 && args[0] == "-pty" {
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		cols, args = n, args[2:]
	}
	if neg || len(args) < 2 {
		ts.Fatalf("usage: start [-pty COLS] NAME CMD [ARGS...]")
	}
	name := args[0]
	if procs(ts)[name] != nil {
		ts.Fatalf("start: %s is running", name)
	}
	cmd := exec.Command(lookPath(ts, args[1]), args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range ts.Value(varsKey{}).([]string) {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	b := &bg{cmd: cmd, read: make(chan struct{})}
	var outs []io.Reader
	var tty *os.File
	if cols > 0 {
		ptmx, t, err := openPTY(cols)
		ts.Check(err)
		ts.Defer(func() { ptmx.Close() })
		tty = t
		cmd.Stdout, cmd.Stderr = tty, tty
		outs = []io.Reader{ptmx}
	} else {
		so, err := cmd.StdoutPipe()
		ts.Check(err)
		se, err := cmd.StderrPipe()
		ts.Check(err)
		outs = []io.Reader{so, se}
	}
	ts.Check(cmd.Start())
	if tty != nil {
		tty.Close()
	}
	procs(ts)[name] = b
	var wg sync.WaitGroup
	for i, r := range outs {
		w := &b.out
		if i == 1 {
			w = &b.err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 4096)
			for {
				n, err := r.Read(buf)
				b.mu.Lock()
				w.Write(buf[:n])
				b.mu.Unlock()
				if err != nil { // EOF, or EIO from a terminal once the program is gone
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(b.read) }()
}

// await NAME REGEXP: wait, 20 s at most, for NAME's output to match.
func cmdAwait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: await NAME REGEXP")
	}
	b := procs(ts)[args[0]]
	if b == nil {
		ts.Fatalf("await: no %s started", args[0])
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	for deadline := time.Now().Add(20 * time.Second); !re.MatchString(b.text()); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			ts.Fatalf("await: no %q in the output of %s:\n%q", args[1], args[0], b.text())
		}
	}
}

// finish NAME [TERM|INT]: send the signal, if any, wait 20 s at most for NAME
// to exit, with status 0 unless negated, and give its output to stdout and
// stderr; a terminal's line ends are \n.
func cmdFinish(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: finish NAME [TERM|INT]")
	}
	b := procs(ts)[args[0]]
	if b == nil {
		ts.Fatalf("finish: no %s started", args[0])
	}
	delete(procs(ts), args[0])
	if len(args) == 2 {
		sig := map[string]os.Signal{"TERM": syscall.SIGTERM, "INT": os.Interrupt}[args[1]]
		if sig == nil {
			ts.Fatalf("finish: unknown signal %s", args[1])
		}
		ts.Check(b.cmd.Process.Signal(sig))
	}
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(20 * time.Second):
		b.cmd.Process.Kill()
		ts.Fatalf("finish: %s did not exit within 20 s", args[0])
	}
	select {
	case <-b.read:
	case <-time.After(10 * time.Second):
		ts.Fatalf("finish: the output of %s did not end", args[0])
	}
	io.WriteString(ts.Stdout(), strings.ReplaceAll(b.text(), "\r\n", "\n"))
	ts.Stderr().Write(b.err.Bytes())
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		ts.Fatalf("finish: %v", err)
	}
	if (err != nil) != neg {
		ts.Fatalf("finish: %s: %v, want success %v", args[0], err, !neg)
	}
}

// lookPath finds prog in the script's $PATH.
func lookPath(ts *testscript.TestScript, prog string) string {
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		path := filepath.Join(dir, prog)
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return path
		}
	}
	ts.Fatalf("%s not found in $PATH", prog)
	return ""
}
