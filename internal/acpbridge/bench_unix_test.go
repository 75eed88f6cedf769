//go:build unix

package acpbridge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// benchLines are what an editor and an agent exchange most: streamed
// chunks, and a prompt (parsed and published by the proxy).
var benchLines = [][]byte{
	[]byte(update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Looking at the failing test in internal/app/app_test.go; the fixture expects a trailing newline."}}`) + "\n"),
	[]byte(prompt2 + "\n"),
	[]byte(update(`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"in_progress","title":"go test ./...","kind":"execute"}`) + "\n"),
}

// echo is an echo agent (this test binary) the benchmark talks to.
type echo struct {
	in   io.WriteCloser
	out  *bufio.Reader
	stop func()
}

func (e *echo) roundTrip(b *testing.B, line []byte) time.Duration {
	start := time.Now()
	if _, err := e.in.Write(line); err != nil {
		b.Fatal(err)
	}
	got, err := e.out.ReadSlice('\n')
	d := time.Since(start)
	if err != nil || !bytes.Equal(got, line) {
		b.Fatalf("echo: %q, %v", got, err)
	}
	return d
}

// plainEcho runs the echo agent on plain pipes, as an editor would.
func plainEcho(b *testing.B) *echo {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), agentEnv+"=echo")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &echo{in: in, out: bufio.NewReader(out), stop: func() { in.Close(); cmd.Wait() }}
}

// proxiedEcho runs the echo agent under Run, publishing into a
// temporary directory.
func proxiedEcho(b *testing.B) *echo {
	exe, _ := os.Executable()
	b.Setenv(agentEnv, "echo")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(Config{Command: []string{exe, "-test.run=^$"}, Stdin: inR, Stdout: outW, Stderr: os.Stderr,
			Dir: filepath.Join(b.TempDir(), "agent-status"), Agent: "bench"})
		outW.Close()
	}()
	return &echo{in: inW, out: bufio.NewReader(outR), stop: func() { inW.Close(); <-done }}
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// BenchmarkLatency is the round trip of one message, editor to agent and
// back, over plain pipes and through the proxy, taking turns so that the
// machine's load falls on both alike. The proxy's added latency per
// message is half the difference of the round trips (it is crossed twice).
func BenchmarkLatency(b *testing.B) {
	plain, proxied := plainEcho(b), proxiedEcho(b)
	defer plain.stop()
	defer proxied.stop()
	for range 200 { // warm up
		plain.roundTrip(b, benchLines[0])
		proxied.roundTrip(b, benchLines[0])
	}
	var dp, dx []time.Duration
	b.ResetTimer()
	for i := range b.N {
		line := benchLines[i%len(benchLines)]
		dp = append(dp, plain.roundTrip(b, line))
		dx = append(dx, proxied.roundTrip(b, line))
	}
	b.StopTimer()
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(us(percentile(dp, 0.5)), "plain-p50-µs")
	b.ReportMetric(us(percentile(dp, 0.99)), "plain-p99-µs")
	b.ReportMetric(us(percentile(dx, 0.5)), "proxy-p50-µs")
	b.ReportMetric(us(percentile(dx, 0.99)), "proxy-p99-µs")
	b.ReportMetric(us(percentile(dx, 0.99)-percentile(dp, 0.99))/2, "added-p99-µs/msg")
	b.ReportMetric(0, "ns/op")
}

// messageReader is one message of n bytes, then a newline.
type messageReader struct{ n, off int }

func (r *messageReader) Read(p []byte) (int, error) {
	if r.off > r.n {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && r.off < r.n {
		p[k] = 'x'
		k, r.off = k+1, r.off+1
	}
	if k < len(p) && r.off == r.n {
		p[k] = '\n'
		k, r.off = k+1, r.off+1
	}
	return k, nil
}

// BenchmarkCopyMemory is the memory Copy allocates for one message of
// each size (B/op): it grows with the message up to MaxParse, then stays.
func BenchmarkCopyMemory(b *testing.B) {
	for _, size := range []int{1 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20} {
		b.Run(fmt.Sprintf("size=%dKiB", size>>10), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for range b.N {
				Copy(io.Discard, &messageReader{n: size}, func([]byte, bool) {})
			}
		})
	}
}
