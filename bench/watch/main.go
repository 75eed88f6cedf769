//go:build linux

// Command watch benchmarks package watch: N real statusfile.Publishers
// heartbeating into one status directory, and one Watcher in a child
// process of its own, so that its CPU time (getrusage) and peak memory
// (VmHWM) are the watcher's alone.
//
// One run measures, in order:
//
//   - idle: the watcher's CPU time while the N sessions only heartbeat
//     (every -heartbeat, staggered), for -idle;
//   - paced: latency from rename(2) to the watcher's event, for -paced
//     writes 20 ms apart, made by the benchmark itself exactly as a
//     publisher writes (dot-prefixed temporary file in the directory,
//     fsync, rename), so that the time of the rename is known;
//   - burst: the same for -burst writes back to back;
//   - set: latency from Publisher.Set to the watcher's event, for -set
//     changes 20 ms apart on the real publishers (this includes the
//     publisher's own work: checks, fsync, rename);
//   - the watcher's peak resident memory (VmHWM) over the whole run, the
//     snapshot of N sessions included.
//
// Times are CLOCK_MONOTONIC, comparable across the two processes.
// See run.sh for the commands behind the published figures.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentstatus/agentstatus/statusfile"
)

type config struct {
	sessions  int
	heartbeat time.Duration
	idle      time.Duration
	paced     int
	burst     int
	set       int
	reps      int
	procs     int // GOMAXPROCS of the watcher process; 0: Go's default
}

func main() {
	child := flag.Bool("child", false, "run as the watcher process (internal)")
	dir := flag.String("dir", "", "the status directory (with -child)")
	flag.BoolVar(&floorMode, "floor", false, "measure the idle phase with a process that only drains fsnotify (no watcher): the floor")
	var c config
	flag.IntVar(&c.sessions, "sessions", 1000, "number of heartbeating publishers")
	flag.DurationVar(&c.heartbeat, "heartbeat", statusfile.HeartbeatInterval, "publishers' heartbeat interval")
	flag.DurationVar(&c.idle, "idle", time.Minute, "how long to measure the watcher's CPU with heartbeats only")
	flag.IntVar(&c.paced, "paced", 500, "number of paced writes (20 ms apart) timed from the rename")
	flag.IntVar(&c.burst, "burst", 2000, "number of back-to-back writes timed from the rename")
	flag.IntVar(&c.set, "set", 500, "number of Publisher.Set changes (20 ms apart) timed from the call")
	flag.IntVar(&c.reps, "reps", 1, "repetitions; the summary gives medians")
	flag.IntVar(&c.procs, "watcher-procs", 0, "GOMAXPROCS of the watcher process (0: Go's default, the number of CPUs)")
	flag.Parse()
	if *child {
		if err := runChild(*dir, floorMode); err != nil {
			fmt.Fprintln(os.Stderr, "watchbench child:", err)
			os.Exit(1)
		}
		return
	}
	var results []result
	for r := 1; r <= c.reps; r++ {
		res, err := runOnce(c)
		if err != nil {
			fmt.Fprintln(os.Stderr, "watchbench:", err)
			os.Exit(1)
		}
		if floorMode {
			fmt.Printf("run %d/%d: floor (fsnotify only), sessions=%d: %s\n", r, c.reps, res.sessions, res.idleLine())
		} else {
			fmt.Printf("run %d/%d: %s\n", r, c.reps, res)
		}
		results = append(results, res)
	}
	if c.reps > 1 {
		fmt.Printf("median of %d: %s\n", c.reps, medianResult(results, floorMode))
	}
}

var floorMode bool

func mono() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}

// result is what one run measured. Durations are in nanoseconds.
type result struct {
	sessions     int
	idleCPU      time.Duration // watcher CPU during the idle phase
	idleWall     time.Duration
	paced        latencies
	burst        latencies
	set          latencies
	maxRSS       int64 // bytes, the watcher's peak resident memory
	heapPeak     uint64
	overflows    int
	pubErrors    int64
	snapshot     int
	totalCPU     time.Duration // watcher CPU over its whole life
	burstSeconds float64       // how long the burst took to write
}

type latencies struct {
	n, missing int
	p50, p99   time.Duration
	max        time.Duration
}

func measure(d []time.Duration, missing int) latencies {
	if len(d) == 0 {
		return latencies{missing: missing}
	}
	slices.Sort(d)
	pct := func(p float64) time.Duration {
		i := int(float64(len(d))*p+0.999999) - 1
		return d[max(0, min(i, len(d)-1))]
	}
	return latencies{n: len(d), missing: missing, p50: pct(0.50), p99: pct(0.99), max: d[len(d)-1]}
}

func (l latencies) String() string {
	return fmt.Sprintf("p50 %s p99 %s max %s (n=%d, missed %d)", ms(l.p50), ms(l.p99), ms(l.max), l.n, l.missing)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d)/1e6) }

func (r result) cpuPerMinute() time.Duration {
	return time.Duration(float64(r.idleCPU) * float64(time.Minute) / float64(r.idleWall))
}

func (r result) idleLine() string {
	return fmt.Sprintf("idle CPU: %s per minute = %.3f%% of one core (%s over %s)",
		r.cpuPerMinute().Round(time.Millisecond), 100*float64(r.idleCPU)/float64(r.idleWall), r.idleCPU.Round(time.Millisecond), r.idleWall.Round(time.Second))
}

func (r result) String() string {
	return fmt.Sprintf("sessions=%d snapshot=%d\n"+
		"  %s\n"+
		"  rename->event, paced: %s\n"+
		"  rename->event, burst: %s, %.0f writes/s\n"+
		"  Set->event:           %s\n"+
		"  peak RSS %.1f MiB, peak Go heap in use %.1f MiB, watcher CPU over the run %s, overflows %d, publisher errors %d",
		r.sessions, r.snapshot, r.idleLine(),
		r.paced, r.burst, float64(r.burst.n+r.burst.missing)/r.burstSeconds, r.set,
		float64(r.maxRSS)/(1<<20), float64(r.heapPeak)/(1<<20), r.totalCPU.Round(time.Millisecond), r.overflows, r.pubErrors)
}

func medianResult(rs []result, floor bool) string {
	med := func(f func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	msf := func(d time.Duration) float64 { return float64(d) / 1e6 }
	if floor {
		return fmt.Sprintf("floor (fsnotify only), sessions=%d: idle CPU %.1f ms per minute = %.3f%% of one core",
			rs[0].sessions,
			med(func(r result) float64 { return msf(r.cpuPerMinute()) }),
			med(func(r result) float64 { return 100 * float64(r.idleCPU) / float64(r.idleWall) }))
	}
	return fmt.Sprintf("sessions=%d\n"+
		"  idle CPU: %.1f ms per minute = %.3f%% of one core\n"+
		"  rename->event, paced: p50 %.3fms p99 %.3fms\n"+
		"  rename->event, burst: p50 %.3fms p99 %.3fms\n"+
		"  Set->event:           p50 %.3fms p99 %.3fms\n"+
		"  peak RSS %.1f MiB (max of runs %.1f MiB)",
		rs[0].sessions,
		med(func(r result) float64 { return msf(r.cpuPerMinute()) }),
		med(func(r result) float64 { return 100 * float64(r.idleCPU) / float64(r.idleWall) }),
		med(func(r result) float64 { return msf(r.paced.p50) }), med(func(r result) float64 { return msf(r.paced.p99) }),
		med(func(r result) float64 { return msf(r.burst.p50) }), med(func(r result) float64 { return msf(r.burst.p99) }),
		med(func(r result) float64 { return msf(r.set.p50) }), med(func(r result) float64 { return msf(r.set.p99) }),
		med(func(r result) float64 { return float64(r.maxRSS) / (1 << 20) }),
		slices.Max(func() []float64 {
			var v []float64
			for _, r := range rs {
				v = append(v, float64(r.maxRSS)/(1<<20))
			}
			return v
		}()))
}

// watcherProc is the child process, driven over its stdin and stdout.
type watcherProc struct {
	cmd *exec.Cmd
	in  *bufio.Writer
	out *bufio.Scanner
	mu  sync.Mutex
}

func startWatcher(dir string, procs int) (*watcherProc, int, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, 0, err
	}
	args := []string{"-child", "-dir", dir}
	if floorMode {
		args = append(args, "-floor")
	}
	cmd := exec.Command(self, args...)
	cmd.Stderr = os.Stderr
	if procs > 0 {
		cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs))
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	p := &watcherProc{cmd: cmd, in: bufio.NewWriter(stdin), out: bufio.NewScanner(stdout)}
	p.out.Buffer(make([]byte, 1<<20), 1<<20)
	line, err := p.line()
	if err != nil {
		return nil, 0, err
	}
	var n int
	if _, err := fmt.Sscanf(line, "ready %d", &n); err != nil {
		return nil, 0, fmt.Errorf("child said %q", line)
	}
	return p, n, nil
}

func (p *watcherProc) line() (string, error) {
	if !p.out.Scan() {
		if err := p.out.Err(); err != nil {
			return "", err
		}
		return "", fmt.Errorf("the watcher process ended")
	}
	return p.out.Text(), nil
}

// ask sends a command and returns the reply lines up to "end".
func (p *watcherProc) ask(cmd string) ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.in.WriteString(cmd + "\n"); err != nil {
		return nil, err
	}
	if err := p.in.Flush(); err != nil {
		return nil, err
	}
	var lines []string
	for {
		l, err := p.line()
		if err != nil {
			return nil, err
		}
		if l == "end" {
			return lines, nil
		}
		lines = append(lines, l)
	}
}

type stats struct {
	cpu       time.Duration
	maxRSS    int64
	heapPeak  uint64
	overflows int
}

func (p *watcherProc) stats() (stats, error) {
	lines, err := p.ask("stats")
	if err != nil {
		return stats{}, err
	}
	var s stats
	var cpu int64
	if len(lines) != 1 {
		return s, fmt.Errorf("stats: %q", lines)
	}
	if _, err := fmt.Sscanf(lines[0], "cpu %d maxrss %d heappeak %d overflows %d", &cpu, &s.maxRSS, &s.heapPeak, &s.overflows); err != nil {
		return s, fmt.Errorf("stats %q: %w", lines[0], err)
	}
	s.cpu = time.Duration(cpu)
	return s, nil
}

type seen struct {
	at    int64
	kind  string
	name  string
	title string
}

func (p *watcherProc) dump() ([]seen, error) {
	lines, err := p.ask("dump")
	if err != nil {
		return nil, err
	}
	out := make([]seen, 0, len(lines))
	for _, l := range lines {
		f := strings.SplitN(l, " ", 4)
		if len(f) != 4 {
			return nil, fmt.Errorf("dump line %q", l)
		}
		at, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return nil, err
		}
		out = append(out, seen{at: at, kind: f[1], name: f[2], title: f[3]})
	}
	return out, nil
}

func (p *watcherProc) quit() error {
	if _, err := p.ask("quit"); err != nil {
		return err
	}
	return p.cmd.Wait()
}

func runOnce(c config) (res result, err error) {
	res.sessions = c.sessions
	tmp, err := os.MkdirTemp("", "watchbench-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "home", "agent-status")

	// N publishers, their first writes (and so their heartbeats) spread
	// over one heartbeat interval.
	var pubErrors atomic.Int64
	pubs := make([]*statusfile.Publisher, c.sessions)
	gap := c.heartbeat / time.Duration(c.sessions)
	fmt.Fprintf(os.Stderr, "starting %d publishers over %s\n", c.sessions, c.heartbeat)
	for i := range pubs {
		p, err := statusfile.NewPublisher(fmt.Sprintf("bench-%05d", i), statusfile.Options{
			Dir:          dir,
			Heartbeat:    c.heartbeat,
			Agent:        "watchbench",
			Cwd:          "/work/project",
			PID:          os.Getpid(),
			State:        statusfile.Idle,
			Title:        "Heartbeating",
			ErrorHandler: func(error) { pubErrors.Add(1) },
		})
		if err != nil {
			return res, err
		}
		pubs[i] = p
		time.Sleep(gap)
	}
	defer func() {
		for _, p := range pubs {
			p.Close()
		}
	}()

	w, n, err := startWatcher(dir, c.procs)
	if err != nil {
		return res, err
	}
	defer func() {
		if qerr := w.quit(); err == nil {
			err = qerr
		}
	}()
	res.snapshot = n

	time.Sleep(2 * time.Second) // let the start settle
	fmt.Fprintf(os.Stderr, "idle phase: %s\n", c.idle)
	s0, err := w.stats()
	if err != nil {
		return res, err
	}
	t0 := time.Now()
	time.Sleep(c.idle)
	s1, err := w.stats()
	if err != nil {
		return res, err
	}
	res.idleWall = time.Since(t0)
	res.idleCPU = s1.cpu - s0.cpu
	if floorMode {
		return res, nil
	}

	fmt.Fprintln(os.Stderr, "latency phases")
	if _, err := w.ask("record on"); err != nil {
		return res, err
	}
	sent := map[[2]string]int64{} // name, title → time of rename or Set
	writer := func(phase string, count int, pause time.Duration) (time.Duration, error) {
		start := time.Now()
		for i := range count {
			id := fmt.Sprintf("burst-%03d", i%100)
			title := fmt.Sprintf("%s%d", phase, i)
			data, err := statusfile.Encode(statusfile.Status{Agent: "watchbench", Session: id, PID: os.Getpid(),
				Cwd: "/work/project", State: statusfile.Working, Title: title, UpdatedAt: time.Now()})
			if err != nil {
				return 0, err
			}
			at, err := timedWrite(dir, statusfile.FileName(id), data)
			if err != nil {
				return 0, err
			}
			sent[[2]string{statusfile.FileName(id), title}] = at
			if pause > 0 {
				time.Sleep(pause)
			}
		}
		return time.Since(start), nil
	}
	if _, err := writer("p", c.paced, 20*time.Millisecond); err != nil {
		return res, err
	}
	d, err := writer("b", c.burst, 0)
	if err != nil {
		return res, err
	}
	res.burstSeconds = d.Seconds()
	states := []statusfile.State{statusfile.Working, statusfile.Blocked, statusfile.Idle}
	for i := range c.set {
		p := pubs[i%len(pubs)]
		title := fmt.Sprintf("s%d", i)
		sent[[2]string{filepath.Base(p.Path()), title}] = mono()
		p.Set(states[i%3], title)
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second) // stragglers
	events, err := w.dump()
	if err != nil {
		return res, err
	}
	got := map[[2]string]int64{}
	for _, e := range events {
		if e.kind == "added" || e.kind == "updated" {
			k := [2]string{e.name, e.title}
			if _, dup := got[k]; !dup {
				got[k] = e.at
			}
		}
	}
	lat := map[byte][]time.Duration{}
	missing := map[byte]int{}
	for k, at := range sent {
		phase := k[1][0]
		if ev, ok := got[k]; ok {
			lat[phase] = append(lat[phase], time.Duration(ev-at))
		} else {
			missing[phase]++
		}
	}
	res.paced = measure(lat['p'], missing['p'])
	res.burst = measure(lat['b'], missing['b'])
	res.set = measure(lat['s'], missing['s'])

	s2, err := w.stats()
	if err != nil {
		return res, err
	}
	res.maxRSS, res.heapPeak, res.overflows, res.totalCPU = s2.maxRSS, s2.heapPeak, s2.overflows, s2.cpu
	res.pubErrors = pubErrors.Load()
	return res, nil
}

// timedWrite replaces dir/name with data as a publisher does (SPEC.md P8:
// a dot-prefixed temporary file in dir, synced, renamed over the name) and
// returns the CLOCK_MONOTONIC time taken just before rename(2).
func timedWrite(dir, name string, data []byte) (int64, error) {
	f, err := os.CreateTemp(dir, ".watchbench-")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	at := mono()
	return at, os.Rename(f.Name(), filepath.Join(dir, name))
}
