//go:build unix

package statusls_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentstatus/agentstatus/internal/cli/statusls"
	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/statusfile"
)

var bin string

func TestMain(m *testing.M) {
	testbin.Main(m, map[string]func() int{"statusls": statusls.Main, "statuspub": statuspub.Main}, func(dir string) { bin = filepath.Join(dir, "statusls") })
}

// runBin runs the real binary with env added and a deadline: nothing in a
// status directory may hang it.
func runBin(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), out.String(), errb.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, out.String(), errb.String()
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("statusls %v did not exit within 20 s", args)
		return 0, "", ""
	}
}

func statusDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "home", location.DirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestBinaryExitCodes(t *testing.T) {
	dir := statusDir(t)
	data, _ := statusfile.Encode(statusfile.Status{Agent: "pi", Session: "s", State: "blocked", Title: "Question", UpdatedAt: time.Now()})
	os.WriteFile(filepath.Join(dir, statusfile.FileName("s")), data, 0o600)
	// A FIFO named like a status file, with no writer: opening it for
	// reading without O_NONBLOCK would block forever.
	if err := unix.Mkfifo(filepath.Join(dir, statusfile.FileName("fifo")), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(filepath.Dir(dir), "link")
	os.Symlink(dir, link)
	tests := []struct {
		args   []string
		env    []string
		code   int
		stdout string
		stderr string
	}{
		{nil, []string{"STATUS_DIR=" + dir}, 0, "pi\ts\tblocked\tQuestion\n", ""},
		{[]string{"--summary"}, []string{"STATUS_DIR=" + dir}, 0, "1 blocked\n", ""},
		{[]string{"--config-home", filepath.Dir(dir), "--count"}, nil, 0, "1\n", ""},
		{[]string{"--count"}, []string{"GENTLE_PI_CONFIG_HOME=" + filepath.Dir(dir), "STATUS_DIR="}, 0, "1\n", ""},
		{[]string{"--jq", ".[].title"}, []string{"STATUS_DIR=" + dir}, 0, "Question\n", ""},
		{[]string{"-r", "--jq-files", ".task.title"}, []string{"STATUS_DIR=" + dir}, 0, "Question\n", ""},
		{[]string{"--dir", filepath.Join(dir, "missing")}, nil, 0, "", ""},
		{[]string{"--dir", link}, nil, 1, "", "statusls: hint: "},
		{[]string{"--bogus"}, nil, 2, "", "statusls: hint: run 'statusls --help' for usage"},
		{[]string{"--jq", "]"}, nil, 2, "", "statusls: --jq: syntax error at line 1, column 1"},
		{[]string{"--dir", dir, "--jq", "def f: f; f", "--jq-timeout", "200ms"}, nil, 1, "", "stopped after 200ms"},
	}
	for _, tt := range tests {
		code, out, errs := runBin(t, tt.env, tt.args...)
		if code != tt.code || out != tt.stdout || !strings.Contains(errs, tt.stderr) || tt.stderr == "" && errs != "" {
			t.Errorf("statusls %v: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.args, code, out, errs, tt.code, tt.stdout, tt.stderr)
		}
	}
	code, out, _ := runBin(t, nil, "--dir", dir, "--json", "--all")
	if code != 0 || !strings.Contains(out, `"reason":"not-regular"`) {
		t.Errorf("--json --all: %d %s", code, out)
	}
}

func TestBinaryDemo(t *testing.T) {
	code, out, errs := runBin(t, nil, "demo")
	if code != 0 || errs != "" || strings.Count(out, "\n") != 4 || !strings.Contains(out, "claude-code\tdemo-api\tblocked\t") {
		t.Errorf("demo: exit %d\n%s%s", code, out, errs)
	}
}

// TestBinaryTerminal runs statusls with its stdout on a real
// pseudo-terminal: it must print the table, fitted to the terminal's
// width, in colour unless NO_COLOR is set.
func TestBinaryTerminal(t *testing.T) {
	dir := statusDir(t)
	data, _ := statusfile.Encode(statusfile.Status{Agent: "claude-code", Session: "s", Cwd: "/work/a/very/long/path/to/the/project", State: "blocked",
		Title: "A title long enough to be shortened on a narrow terminal", UpdatedAt: time.Now()})
	os.WriteFile(filepath.Join(dir, statusfile.FileName("s")), data, 0o600)
	for _, tt := range []struct {
		env   []string
		color bool
	}{{nil, true}, {[]string{"NO_COLOR=1"}, false}} {
		ptmx, tty := openPTY(t, 50)
		pts, err := os.OpenFile(tty, os.O_RDWR|unix.O_NOCTTY, 0)
		if err != nil {
			t.Skip(err)
		}
		cmd := exec.Command(bin, "--dir", dir)
		cmd.Env = append(os.Environ(), append([]string{"COLUMNS=", "TERM=xterm"}, tt.env...)...)
		cmd.Stdout, cmd.Stderr = pts, pts
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pts.Close()
		var out bytes.Buffer
		copied := make(chan struct{})
		go func() { io.Copy(&out, ptmx); close(copied) }() // ends with EIO when the child exits
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-copied:
		case <-time.After(10 * time.Second):
			t.Fatal("no EOF from the pseudo-terminal")
		}
		text := strings.ReplaceAll(out.String(), "\r\n", "\n")
		if !strings.HasPrefix(text, "STATE") || strings.Contains(text, "\t") {
			t.Errorf("not a table:\n%q", text)
		}
		if strings.Contains(text, "\x1b[") != tt.color {
			t.Errorf("env %v: colour %v:\n%q", tt.env, !tt.color, text)
		}
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			plain := stripSGR(l)
			if n := len([]rune(plain)); n > 50 {
				t.Errorf("line of %d columns on a 50-column terminal: %q", n, plain)
			}
		}
	}
}

func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// TestBinaryWatch runs statusls watch --json as editors do: a line per
// change, flushed at once, and exit status 0 on SIGTERM.
func TestBinaryWatch(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home") // created by the publisher
	cmd := exec.Command(bin, "watch", "--json", "--config-home", home)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(want string) {
		t.Helper()
		select {
		case l := <-lines:
			if !strings.Contains(l, want) {
				t.Fatalf("line %q, want %s", l, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("no line with %s", want)
		}
	}
	next(`"event":"synced"`)
	pub := filepath.Join(filepath.Dir(bin), "statuspub")
	if out, err := exec.Command(pub, "set", "--config-home", home, "--session", "w", "--state", "blocked", "--pid", "0").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	next(`"event":"added"`)
	if out, err := exec.Command(pub, "clear", "--config-home", home, "--session", "w").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	next(`"reason":"deleted"`)
	cmd.Process.Signal(syscall.SIGTERM)
	for range lines {
	}
	if err := cmd.Wait(); err != nil || stderr.Len() != 0 {
		t.Errorf("exit: %v, stderr %q", err, stderr.String())
	}
}

// TestBinaryWatchTerminal runs statusls watch on a real pseudo-terminal:
// the table on the alternate screen, the terminal restored on SIGINT.
func TestBinaryWatchTerminal(t *testing.T) {
	dir := statusDir(t)
	data, _ := statusfile.Encode(statusfile.Status{Agent: "pi", Session: "s", State: "working", Title: "Fix tests", UpdatedAt: time.Now()})
	os.WriteFile(filepath.Join(dir, statusfile.FileName("s")), data, 0o600)
	ptmx, tty := openPTY(t, 60)
	pts, err := os.OpenFile(tty, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(bin, "watch", "--dir", dir)
	cmd.Env = append(os.Environ(), "COLUMNS=", "LINES=", "TERM=xterm")
	cmd.Stdout, cmd.Stderr = pts, pts
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	t.Cleanup(func() { cmd.Process.Kill() })
	var mu sync.Mutex
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil { // EIO once the child is gone
				close(copied)
				return
			}
		}
	}()
	text := func() string { mu.Lock(); defer mu.Unlock(); return out.String() }
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(text(), "Fix tests") {
		if time.Now().After(deadline) {
			t.Fatalf("no table: %q", text())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	select {
	case <-copied:
	case <-time.After(10 * time.Second):
		t.Fatal("no EOF from the pseudo-terminal")
	}
	got := text()
	if !strings.HasPrefix(got, "\x1b[?1049h\x1b[?25l\x1b[H") || !strings.HasSuffix(got, "\x1b[?25h\x1b[?1049l") {
		t.Errorf("screen not entered and left: %q", got)
	}
}

// TestBinaryWait: wait follows a publisher (statuspub serve) to the state
// asked for, and gives up after --timeout with exit status 3.
func TestBinaryWait(t *testing.T) {
	dir := statusDir(t)
	serve := exec.Command(filepath.Join(filepath.Dir(bin), "statuspub"), "serve", "--dir", dir, "--session", "job", "--state", "working")
	in, err := serve.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); serve.Wait() })
	wait := exec.Command(bin, "wait", "--dir", dir, "--session", "job", "--state", "idle", "--timeout", "20s")
	var stderr bytes.Buffer
	wait.Stderr = &stderr
	if err := wait.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, `{"title":"still working"}`+"\n"+`{"state":"idle"}`+"\n")
	if err := wait.Wait(); err != nil {
		t.Errorf("wait: %v %s", err, stderr.String())
	}
	code, _, errs := runBin(t, nil, "wait", "--dir", dir, "--session", "job", "--state", "blocked", "--timeout", "200ms")
	if code != 3 || !strings.Contains(errs, "timed out after 200ms") {
		t.Errorf("timeout: exit %d, %q", code, errs)
	}
}
