//go:build linux

package statusls_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentstatus/agentstatus/statusfile"
)

// TestBinaryWatchKeys runs statusls watch with its standard input and
// output on a pseudo-terminal: while it runs, the terminal does not echo
// and hands over each key at once; q quits (exit 0); the terminal's modes
// come back as they were.
func TestBinaryWatchKeys(t *testing.T) {
	dir := statusDir(t)
	data, _ := statusfile.Encode(statusfile.Status{Agent: "pi", Session: "s", State: "working", Title: "Fix tests", UpdatedAt: time.Now()})
	os.WriteFile(filepath.Join(dir, statusfile.FileName("s")), data, 0o600)
	ptmx, tty := openPTY(t, 60)
	pts, err := os.OpenFile(tty, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer pts.Close()
	before, err := unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS)
	if err != nil {
		t.Skip(err)
	}
	if before.Lflag&unix.ECHO == 0 || before.Lflag&unix.ICANON == 0 {
		t.Skipf("the pseudo-terminal does not start in cooked mode: %#x", before.Lflag)
	}
	cmd := exec.Command(bin, "watch", "--dir", dir)
	cmd.Env = append(os.Environ(), "COLUMNS=", "LINES=", "TERM=xterm")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	var mu sync.Mutex
	var out bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
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
	// The table is drawn once the terminal is set: no echo, no line
	// buffering.
	during, err := unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if during.Lflag&unix.ECHO != 0 || during.Lflag&unix.ICANON != 0 || during.Lflag&unix.ISIG == 0 {
		t.Errorf("while watching: lflag %#x, want ECHO and ICANON off, ISIG on", during.Lflag)
	}
	ptmx.Write([]byte("x"))
	ptmx.Write([]byte("q"))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after q: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("q did not end watch")
	}
	if strings.Contains(text(), "xq") || strings.Contains(text(), "x\x1b") {
		t.Errorf("keys echoed: %q", text())
	}
	after, err := unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if after.Lflag != before.Lflag || after.Cc != before.Cc {
		t.Errorf("terminal not restored: lflag %#x, want %#x", after.Lflag, before.Lflag)
	}
}
