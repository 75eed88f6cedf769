//go:build unix

package statusls

import (
	"fmt"
	"io"
	"testing"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/statusfile"
)

// BenchmarkTSV runs the whole default listing in-process (TSV to a
// discarding writer) over 100, 1,000 and 10,000 sessions.
func BenchmarkTSV(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		dir := privateDir(b)
		for i := 0; i < n; i++ {
			s := statusfile.Status{Agent: "pi", Session: fmt.Sprintf("bench-%d", i), PID: 1000 + i, Cwd: "/home/user/src/p",
				State: []statusfile.State{"working", "blocked", "idle"}[i%3], Title: fmt.Sprintf("Task %d: implement it", i), UpdatedAt: now}
			if i%4 == 0 {
				s.Title = ""
			}
			publish(b, dir, s)
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if code := Run([]string{"--dir", dir}, base.Env{Stdout: io.Discard, Stderr: io.Discard, Clock: atClock(now)}); code != 0 {
					b.Fatal(code)
				}
			}
		})
	}
}
