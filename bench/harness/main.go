//go:build unix

// Command harness times statusls against the published jq one-liner and the
// floor program, side by side, over generated status directories. It is
// run by bench/statusls.sh; see there.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/bench/internal/measure"
	"github.com/agentstatus/agentstatus/internal/location"
)

// oneLiner is the published reader (seed 000), run by sh as its users run it.
const oneLiner = `jq -r 'select(.schema == "gentle-shell.agent-status/v1") |
  select((now - (.updatedAt | sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601)) <= 30) |
  [.agent, .session, .state, (.task.title // "")] | @tsv' "$STATUS_DIR"/*.json 2>/dev/null`

// ahead is how far in the future fresh records are dated, so that they stay
// fresh for every reader through a whole measurement (fresh until
// updatedAt + 30 s; statusls also accepts up to 30 s ahead).
const ahead = 20 * time.Second

func main() {
	statusls := flag.String("statusls", "", "the statusls binary")
	floorBin := flag.String("floor", "", "the floor binary")
	sizes := flag.String("sizes", "100,1000,10000", "numbers of sessions")
	reps := flag.Int("reps", 11, "repetitions of each command per size")
	work := flag.String("work", "", "directory for the generated files (default: a temporary one)")
	flag.Parse()
	if *statusls == "" || *floorBin == "" {
		fmt.Fprintln(os.Stderr, "usage: harness -statusls BIN -floor BIN [-sizes 100,1000,10000] [-reps 11]")
		os.Exit(2)
	}
	if _, err := exec.LookPath("jq"); err != nil {
		fmt.Fprintln(os.Stderr, "harness: jq not found (apt-get install jq)")
		os.Exit(1)
	}
	base, done, err := measure.WorkDir(*work, "statusls-bench-")
	if err != nil {
		fail(err)
	}
	defer done()
	fmt.Printf("%d repetitions per command, interleaved; medians; wall time includes fork/exec\n", *reps)
	fmt.Printf("%-8s %11s %11s %11s %11s %11s %11s %8s\n", "sessions", "statusls", "one-liner", "floor", "sls/floor", "liner/sls", "sls maxRSS", "same")
	ok := true
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			fail(err)
		}
		dir := filepath.Join(base, "n"+strconv.Itoa(n), location.DirName)
		generated := generate(dir, n)

		env := append(os.Environ(), "STATUS_DIR="+dir)
		sls := command{argv: []string{*statusls}, env: env}
		liner := command{argv: []string{"sh", "-c", oneLiner}, env: env}
		floor := command{argv: []string{*floorBin, dir}, env: env}

		// The same bytes, from the same directory at the same moment.
		a, _ := sls.output()
		b, _ := liner.output()
		same := bytes.Equal(a, b) && len(a) > 0
		if !same {
			ok = false
			os.WriteFile(filepath.Join(base, "statusls.out"), a, 0o644)
			os.WriteFile(filepath.Join(base, "oneliner.out"), b, 0o644)
		}

		var ts, tl, tf []time.Duration
		var rss []int64
		cmds := []*command{&sls, &liner, &floor}
		for r := 0; r < *reps; r++ {
			for i := range cmds {
				c := cmds[(r+i)%len(cmds)]
				d, m := c.time()
				switch c {
				case &sls:
					ts = append(ts, d)
					rss = append(rss, m)
				case &liner:
					tl = append(tl, d)
				case &floor:
					tf = append(tf, d)
				}
			}
		}
		if time.Since(generated) > 30*time.Second+ahead-5*time.Second {
			fmt.Fprintf(os.Stderr, "harness: warning: size %d took %v, records may have gone stale during the run\n", n, time.Since(generated).Round(time.Second))
		}
		ms, ml, mf := measure.Median(ts), measure.Median(tl), measure.Median(tf)
		fmt.Printf("%-8d %11s %11s %11s %10.2fx %10.1fx %8.1f MiB %8v\n", n, ms, ml, mf,
			float64(ms)/float64(mf), float64(ml)/float64(ms), float64(measure.Median(rss))/1024, same)
		fmt.Printf("%-8s %11s %11s %11s   (min)   statusls max RSS %.1f MiB, rows %d\n", "", slices.Min(ts), slices.Min(tl), slices.Min(tf),
			float64(slices.Max(rss))/1024, bytes.Count(a, []byte("\n")))
	}
	if !ok {
		fmt.Printf("statusls and the one-liner printed different bytes: see %s/{statusls,oneliner}.out\n", base)
		os.Exit(1)
	}
}

type command struct {
	argv []string
	env  []string
}

func (c *command) cmd() *exec.Cmd {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Env = c.env
	cmd.Stderr = os.Stderr
	return cmd
}

func (c *command) output() ([]byte, error) { return c.cmd().Output() }

// time runs the command once with its output read from a pipe and thrown
// away, and returns its wall time and peak resident memory (KiB).
func (c *command) time() (time.Duration, int64) {
	r, err := measure.Once(c.cmd())
	if err != nil {
		fail(err)
	}
	return r.Wall, r.MaxRSS
}

// generate writes n status files: a third each working, blocked and idle,
// a quarter without a task, every tenth stale (an hour old). It returns
// the time the fresh records are dated from.
func generate(dir string, n int) time.Time {
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		fail(err)
	}
	os.Chmod(filepath.Dir(dir), 0o700)
	now := time.Now()
	for i := 0; i < n; i++ {
		s := measure.Record(i, now.Add(ahead))
		if i%4 == 0 {
			s.Title = ""
		}
		if i%10 == 9 {
			s.UpdatedAt = now.Add(-time.Hour)
		}
		if err := measure.WriteRecord(dir, s); err != nil {
			fail(err)
		}
	}
	return time.Now()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "harness:", err)
	os.Exit(1)
}
