//go:build unix

// Command jq measures what statusls's jq modes cost, run by bench/jq.sh:
//
//	jq -mode startup -statusls BIN -helper BIN -floor BIN -empty BIN -gojq BIN [-reps 201]
//	jq -mode memory -statusls BIN [-before BIN] [-sizes 2000,20000] [-pad pad|cwd]
//
// startup times, interleaved over 100 generated sessions, an empty Go
// program with and without gojq linked, the floor program, statusls (which
// does not link gojq) and statusls-jq (the same code with gojq linked, as
// statusls was before), and prints medians and ratios.
//
// memory writes N status files of 64 KiB each (a valid record padded with
// an unknown key, or with a long cwd) and reports the peak resident memory
// and wall time of statusls --jq-files, --jq and --json over them (and of
// a -before binary's --jq, which read every file before filtering).
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
	"github.com/agentstatus/agentstatus/statusfile"
)

func main() {
	mode := flag.String("mode", "startup", "startup or memory")
	statusls := flag.String("statusls", "", "the statusls binary")
	helper := flag.String("helper", "", "the statusls-jq binary")
	floor := flag.String("floor", "", "the floor binary")
	empty := flag.String("empty", "", "an empty Go program")
	gojq := flag.String("gojq", "", "an empty Go program that links gojq")
	before := flag.String("before", "", "memory: an older statusls whose --jq read every file first")
	reps := flag.Int("reps", 201, "startup: runs of each command, interleaved")
	sizes := flag.String("sizes", "2000,20000", "memory: numbers of files")
	pad := flag.String("pad", "pad", "memory: pad records with an unknown key (pad) or a long cwd (cwd)")
	flag.Parse()
	work, err := os.MkdirTemp("", "statusls-jq-bench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	switch *mode {
	case "startup":
		startup(work, *statusls, *helper, *floor, *empty, *gojq, *reps)
	case "memory":
		memory(work, *statusls, *before, *sizes, *pad)
	default:
		fail(fmt.Errorf("unknown -mode %q", *mode))
	}
}

// run runs argv once, output to a drained pipe, and returns its wall time
// and peak resident memory in KiB.
func run(argv ...string) (time.Duration, int64) {
	r, err := measure.Once(exec.Command(argv[0], argv[1:]...))
	if err != nil {
		fail(err)
	}
	return r.Wall, r.MaxRSS
}

func startup(work, statusls, helper, floor, empty, gojq string, reps int) {
	dir := filepath.Join(work, "agent-status")
	generate(dir, 100, 0, "")
	cmds := []struct {
		name string
		argv []string
	}{
		{"empty program", []string{empty}},
		{"empty program + gojq", []string{gojq}},
		{"floor, 100 sessions", []string{floor, dir}},
		{"statusls-jq --tsv (gojq linked)", []string{helper, "--dir", dir, "--tsv"}},
		{"statusls --tsv (no gojq)", []string{statusls, "--dir", dir, "--tsv"}},
	}
	times := make([][]time.Duration, len(cmds))
	for r := 0; r < reps; r++ {
		for i, c := range cmds {
			d, _ := run(c.argv...)
			times[i] = append(times[i], d)
		}
	}
	fmt.Printf("%d runs of each, interleaved; wall time including fork/exec\n", reps)
	fmt.Printf("%-34s %10s %10s %10s\n", "command", "median", "p25", "p75")
	med := make([]time.Duration, len(cmds))
	for i, c := range cmds {
		s := slices.Clone(times[i])
		slices.Sort(s)
		med[i] = s[len(s)/2]
		fmt.Printf("%-34s %10s %10s %10s\n", c.name, ms(med[i]), ms(s[len(s)/4]), ms(s[3*len(s)/4]))
	}
	fmt.Printf("gojq's start-up cost (empty + gojq - empty): %s\n", ms(med[1]-med[0]))
	fmt.Printf("statusls-jq / floor: %.2fx   statusls / floor: %.2fx   saved per run: %s\n",
		float64(med[3])/float64(med[2]), float64(med[4])/float64(med[2]), ms(med[3]-med[4]))
}

func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) + " ms" }

func memory(work, statusls, before, sizes, pad string) {
	fmt.Printf("records of %d bytes padded with %s; peak RSS (MiB) and wall time\n", statusfile.MaxFileSize, pad)
	fmt.Printf("%-8s %-44s %10s %10s\n", "files", "command", "maxRSS", "wall")
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			fail(err)
		}
		dir := filepath.Join(work, "agent-status")
		generate(dir, n, statusfile.MaxFileSize, pad)
		cmds := [][]string{
			{statusls, "--dir", dir, "--jq-files", ".session", "-r"},
			{statusls, "--dir", dir, "--all", "--jq", ".[].session"},
			{statusls, "--dir", dir, "--all", "--json"},
		}
		if before != "" {
			cmds = append(cmds, []string{before, "--dir", dir, "--jq-timeout", "10m", "--jq", ".session", "-r"})
		}
		for _, c := range cmds {
			d, rss := run(c...)
			name := filepath.Base(c[0]) + " " + strings.Join(c[3:], " ")
			name = strings.Replace(name, "--jq-timeout 10m ", "", 1)
			if c[0] == before {
				name = "before: " + name
			}
			fmt.Printf("%-8d %-44s %10.1f %10s\n", n, name, float64(rss)/1024, ms(d))
		}
		os.RemoveAll(dir)
	}
}

// generate writes n status files of size bytes (0: as encoded), fresh for a
// minute, padded with an unknown key or a long cwd.
func generate(dir string, n, size int, pad string) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		fail(err)
	}
	os.Chmod(filepath.Dir(dir), 0o700)
	now := time.Now().Add(20 * time.Second)
	for i := 0; i < n; i++ {
		s := statusfile.Status{
			Agent: "pi", Session: fmt.Sprintf("bench-%d", i), PID: 1000 + i,
			Cwd: fmt.Sprintf("/home/user/src/project-%d", i%50), State: statusfile.Working,
			Title: fmt.Sprintf("Task %d", i), UpdatedAt: now,
		}
		data, err := statusfile.Encode(s)
		if err != nil {
			fail(err)
		}
		if size > 0 {
			fill := size - len(data) - 32
			switch pad {
			case "cwd":
				s.Cwd = "/" + strings.Repeat("d", fill)
				if data, err = statusfile.Encode(s); err != nil {
					fail(err)
				}
			default:
				// Before the closing brace (Encode may end the
				// record with a newline).
				end := bytes.LastIndexByte(data, '}')
				data = append(data[:end], `,"pad":"`+strings.Repeat("x", fill)+`"}`...)
			}
			if len(data) > size {
				fail(fmt.Errorf("record of %d bytes", len(data)))
			}
		}
		if err := measure.WriteData(dir, s.Session, data); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench/jq:", err)
	os.Exit(1)
}
