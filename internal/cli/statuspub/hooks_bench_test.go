//go:build unix

package statuspub_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The wall time of one `statuspub set` process, as an agent running it as a
// hook sees it: start, set, exit. The owner is already running (every set
// but a session's first).
//
//	go test -run XXX -bench Process ./internal/cli/statuspub
func BenchmarkSetProcess(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "agent-status")
	agent := benchAgent(b)
	args := []string{"set", "--dir", dir, "--session", "bench", "--pid", agent, "--state", "working", "--title", "Benchmark"}
	runOnce(b, nil, args...) // starts the owner
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runOnce(b, nil, args...)
	}
}

// The floor: a statuspub process that only prints its usage.
func BenchmarkHelpProcess(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if err := exec.Command(bin, "--help").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// The first set of a session also starts the heartbeat owner.
func BenchmarkSetProcessFirst(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "agent-status")
	agent := benchAgent(b)
	for i := 0; i < b.N; i++ {
		runOnce(b, nil, "set", "--dir", dir, "--session", fmt.Sprint("bench-", i), "--pid", agent, "--state", "working")
	}
}

// A Claude Code PreToolUse hook, the most frequent one.
func BenchmarkClaudeHookProcess(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "agent-status")
	input := []byte(fixture(b, "testdata", "claude", "pre-tool-use-bash.json"))
	agent := benchAgent(b)
	args := []string{"claude-hook", "--dir", dir, "--pid", agent}
	runOnce(b, input, args...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runOnce(b, input, args...)
	}
}

// benchAgent starts a stand-in agent; its end, when the benchmark is done,
// ends the owners.
func benchAgent(b *testing.B) string {
	b.Helper()
	return fmt.Sprint(sleeper(b).Process.Pid)
}

func runOnce(b *testing.B, stdin []byte, args ...string) {
	cmd := exec.Command(bin, args...)
	if stdin != nil {
		cmd.Stdin = strings.NewReader(string(stdin))
	}
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		b.Fatalf("%v: %q", err, out)
	}
}
