//go:build unix

package remote

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/sshtest"
	"github.com/agentstatus/agentstatus/statusfile"
)

// benchFleet is a real sshd with ten hosts h1..h10 (aliases of this
// machine, each with its own status directory of ten sessions), and the
// environment that makes the statusls binary reach them with connection
// reuse. Run by bench/remote.sh.
type benchFleet struct {
	statusls string
	ssh      string // the ssh wrapper statusls runs
	cfg      *Config
	env      []string
	dirs     []string
	local    string
}

func newBenchFleet(b *testing.B) *benchFleet {
	b.Helper()
	f := &benchFleet{}
	var hosts []sshtest.Host
	for i := 1; i <= 10; i++ {
		dir := benchDir(b, fmt.Sprintf("h%d", i))
		f.dirs = append(f.dirs, dir)
		hosts = append(hosts, sshtest.Host{Name: fmt.Sprintf("h%d", i), StatusDir: dir})
	}
	f.local = benchDir(b, "local")
	srv := sshtest.Start(b, hosts...)
	f.statusls = filepath.Join(srv.BinDir, "statusls")
	f.ssh = filepath.Join(srv.Wrapper(b), "ssh")
	f.env = append(os.Environ(),
		"HOME="+b.TempDir(),
		"XDG_RUNTIME_DIR="+srv.Dir,
		"STATUSLS_SSH="+f.ssh,
		"STATUS_DIR="+f.local,
	)
	f.cfg = &Config{SSH: f.ssh, Reuse: true, ControlDir: defaultControlDir(func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return srv.Dir
		}
		return ""
	})}
	return f
}

func benchDir(b *testing.B, name string) string {
	home := filepath.Join(b.TempDir(), name)
	dir := filepath.Join(home, location.DirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	os.Chmod(home, 0o700)
	for i := range 10 {
		statusfile.WriteFile(dir, statusfile.Status{Schema: statusfile.Schema, Agent: "bench", Session: fmt.Sprintf("%s-%d", name, i), PID: os.Getpid(), State: statusfile.Working, Title: "benchmark", UpdatedAt: time.Now().Add(time.Hour)})
	}
	return dir
}

// run runs statusls and returns the CPU time it used, with the ssh
// processes it waited for (the shared connections' masters and the hosts'
// side are not counted: on real hosts that work is done elsewhere).
func (f *benchFleet) run(b *testing.B, args ...string) time.Duration {
	cmd := exec.Command(f.statusls, args...)
	cmd.Env = f.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("statusls %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func hostList(n int) string {
	var h []string
	for i := 1; i <= n; i++ {
		h = append(h, fmt.Sprintf("h%d", i))
	}
	return strings.Join(h, ",")
}

// BenchmarkRemoteList times whole statusls processes: the local listing,
// one host and ten hosts with connection reuse (the connections are
// opened before the timer starts: a status bar's steady state), and
// reports the CPU time statusls and its ssh processes used.
func BenchmarkRemoteList(b *testing.B) {
	f := newBenchFleet(b)
	cases := []struct {
		name string
		args []string
	}{
		{"local", []string{"--json", "--all"}},
		{"hosts=1", []string{"--json", "--host", "h1"}},
		{"hosts=10", []string{"--json", "--host", hostList(10)}},
	}
	f.run(b, "--json", "--host", hostList(10)) // open the shared connections
	// BENCH_PARTS=1 adds what one host's listing is made of: ssh alone
	// over the shared connection, ssh running statusls, and the listing
	// in-process (without statusls's own start).
	if os.Getenv("BENCH_PARTS") != "" {
		for _, c := range [][]string{{"true"}, {"statusls", "--json", "--all"}} {
			b.Run("ssh h1 "+strings.Join(c, " "), func(b *testing.B) {
				args, _ := f.cfg.args("h1", nil)
				args = append(args[:len(args)-1], c...)
				for b.Loop() {
					if out, err := exec.Command(f.ssh, args...).CombinedOutput(); err != nil {
						b.Fatalf("%v %s", err, out)
					}
				}
			})
		}
		b.Run("List h1", func(b *testing.B) {
			for b.Loop() {
				if r := List(context.Background(), f.cfg, []string{"h1"}); r[0].Err != nil {
					b.Fatal(r[0].Err)
				}
			}
		})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cpu += f.run(b, c.args...)
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "local-cpu-ms/op")
		})
	}
}

// BenchmarkRemoteWatchLatency measures, over ten hosts, the time from a
// publisher's rename on a host to its line on statusls watch --host's
// merged stream ("merged"), the same to a statusls watch --json of that
// directory run directly ("direct": what the remote stream's line costs),
// and the difference ("hop": what ssh and the merge add); p50 and p99.
func BenchmarkRemoteWatchLatency(b *testing.B) {
	f := newBenchFleet(b)
	merged := f.startWatch(b, "watch", "--json", "--host", hostList(10))
	direct := make([]*lineStream, len(f.dirs))
	for i, d := range f.dirs {
		direct[i] = f.startWatch(b, "watch", "--json", "--dir", d)
		direct[i].waitFor(b, `"event":"synced"`)
	}
	merged.waitFor(b, `"event":"synced"`)
	var viaSSH, local, added []time.Duration
	i := 0
	for b.Loop() {
		i++
		host := i % len(f.dirs)
		session := fmt.Sprintf("lat-%d", i)
		st := statusfile.Status{Schema: statusfile.Schema, Agent: "bench", Session: session, PID: os.Getpid(), State: statusfile.Blocked, Title: "x"}
		start := time.Now()
		if _, err := statusfile.WriteFile(f.dirs[host], st); err != nil {
			b.Fatal(err)
		}
		m := merged.waitFor(b, `"session":"`+session+`"`)
		d := direct[host].waitFor(b, `"session":"`+session+`"`)
		viaSSH = append(viaSSH, m.Sub(start))
		local = append(local, d.Sub(start))
		added = append(added, m.Sub(d))
		statusfile.RemoveFile(f.dirs[host], session)
		merged.waitFor(b, `"event":"removed"`)
		direct[host].waitFor(b, `"event":"removed"`)
	}
	report := func(name string, d []time.Duration) {
		if len(d) == 0 {
			return
		}
		slices.Sort(d)
		b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, name+"-p50-ms")
		b.ReportMetric(float64(d[min(len(d)-1, len(d)*99/100)].Microseconds())/1000, name+"-p99-ms")
	}
	report("merged", viaSSH)
	report("direct", local)
	report("hop", added)
}

// lineStream is a running statusls whose output lines are timestamped as
// they arrive.
type lineStream struct {
	lines chan stampedLine
}

type stampedLine struct {
	at   time.Time
	text string
}

func (f *benchFleet) startWatch(b *testing.B, args ...string) *lineStream {
	cmd := exec.Command(f.statusls, args...)
	cmd.Env = f.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	s := &lineStream{lines: make(chan stampedLine, 1024)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.lines <- stampedLine{time.Now(), sc.Text()}
		}
		close(s.lines)
	}()
	return s
}

// waitFor returns when the first line containing sub arrived.
func (s *lineStream) waitFor(b *testing.B, sub string) time.Time {
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				b.Fatalf("the stream ended before %s", sub)
			}
			if strings.Contains(l.text, sub) {
				return l.at
			}
		case <-timeout:
			b.Fatalf("no line with %s", sub)
		}
	}
}
