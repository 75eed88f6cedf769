//go:build unix

package statusls_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/statusfile"
)

// jqBinDir has two fresh sessions.
func jqBinDir(t *testing.T) string {
	t.Helper()
	dir := statusDir(t)
	for _, s := range []string{"a", "b"} {
		data, _ := statusfile.Encode(statusfile.Status{Agent: "pi", Session: s, State: "working", Title: "T " + s, UpdatedAt: time.Now()})
		if err := os.WriteFile(filepath.Join(dir, statusfile.FileName(s)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runBinKill runs the statusls binary at path, killing it after limit: a
// hard bound, so that the test ends in time whatever the binary does.
func runBinKill(t *testing.T, path string, limit time.Duration, env []string, args ...string) (code int, stdout, stderr string, killed bool) {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		return -1, out.String(), errb.String(), true
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String(), errb.String(), false
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errb.String(), false
}

// A filter stuck inside one builtin (a regular expression match over a
// 10 MB string that takes minutes) is stopped at --jq-timeout: gojq only
// checks its context between operations, so only a watcher outside the
// filter can stop it. The binary is killed after 10 s if it is not.
func TestJQTimeoutStopsABuiltin(t *testing.T) {
	t.Parallel()
	dir := jqBinDir(t)
	// About 20 s per million "ab"s on the development VM: this one runs
	// for minutes without the watcher, in about 8 MB.
	const stuck = `("ab" * 5000000) | test("(?:[ab]c|[ab]){500}x")`
	for _, flag := range []string{"--jq", "--jq-files"} {
		code, stdout, stderr, killed := runBinKill(t, bin, 10*time.Second, nil, "--dir", dir, "--jq-timeout", "300ms", flag, stuck)
		if killed {
			t.Fatalf("statusls %s with a filter stuck in a builtin ran past its 300ms --jq-timeout until killed at 10 s", flag)
		}
		if code != base.ExitError || stdout != "" || !strings.Contains(stderr, "statusls: "+flag+": filter stopped after 300ms") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 and the timeout", flag, code, stdout, stderr)
		}
	}
}

// statusls re-executes statusls-jq for --jq; without it, it says what to
// install and lists as usual.
func TestJQHelperMissing(t *testing.T) {
	t.Parallel()
	dir := jqBinDir(t)
	// The test binary stands in for statusls elsewhere, but it links the
	// engine (jqengine_test.go): only the real command lacks it.
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not found")
	}
	lone := filepath.Join(t.TempDir(), "statusls")
	build := exec.Command("go", "build", "-o", lone, "github.com/agentstatus/agentstatus/cmd/statusls")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build cmd/statusls: %v\n%s", err, out)
	}
	env := []string{"PATH=" + t.TempDir()}
	code, stdout, stderr, _ := runBinKill(t, lone, 20*time.Second, env, "--dir", dir, "--jq", ".[].title")
	if code != base.ExitError || stdout != "" || !strings.Contains(stderr, "need statusls-jq") || !strings.Contains(stderr, "hint: go install github.com/agentstatus/agentstatus/cmd/statusls-jq@latest") {
		t.Errorf("without statusls-jq: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, stdout, _, _ := runBinKill(t, lone, 20*time.Second, env, "--dir", dir, "--count"); code != 0 || stdout != "2\n" {
		t.Errorf("without statusls-jq, --count: exit %d, %q", code, stdout)
	}
	// A helper without the engine does not start itself again.
	code, _, stderr, killed := runBinKill(t, lone, 20*time.Second, []string{"STATUSLS_JQ_HELPER=1"}, "--dir", dir, "--jq", ".")
	if killed || code != base.ExitError || !strings.Contains(stderr, "has no jq engine") {
		t.Errorf("helper without the engine: exit %d, stderr %q", code, stderr)
	}
}

// statusls itself does not link gojq, whose package initialisation would
// cost every run about 0.5 ms (bench/startup.sh); statusls-jq does.
func TestStatuslsDoesNotLinkGojq(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not found")
	}
	deps := func(pkg string) string {
		out, err := exec.Command("go", "list", "-deps", "github.com/agentstatus/agentstatus/cmd/"+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return string(out)
	}
	if d := deps("statusls"); strings.Contains(d, "itchyny/gojq") {
		t.Error("cmd/statusls links gojq")
	}
	if d := deps("statusls-jq"); !strings.Contains(d, "itchyny/gojq") {
		t.Error("cmd/statusls-jq does not link gojq")
	}
}
