//go:build linux

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"

	"github.com/fsnotify/fsnotify"

	"github.com/agentstatus/agentstatus/watch"
)

// runChild is the watcher process: a Watcher with default options, an
// event loop that notes the time of each event while recording is on, and
// a command loop on stdin: "stats", "record on", "dump", "quit". Every
// reply ends with a line "end". WATCHBENCH_CPUPROFILE=FILE writes a CPU
// profile of the watcher process.
func runChild(dir string, floor bool) error {
	if floor {
		return runFloor(dir)
	}
	if path := os.Getenv("WATCHBENCH_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	w, err := watch.New(dir, watch.Options{})
	if err != nil {
		return err
	}
	var (
		mu        sync.Mutex
		recording bool
		log       []string
		overflows int
		heapPeak  uint64
	)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > heapPeak {
			heapPeak = v
		}
	}
	snapshot := 0
	ready := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.Events() {
			at := mono()
			switch ev.Kind {
			case watch.Snapshot:
				snapshot++
				continue
			case watch.Synced:
				mu.Lock()
				heap()
				mu.Unlock()
				close(ready)
				continue
			}
			mu.Lock()
			if ev.Kind == watch.Error && errors.Is(ev.Err, fsnotify.ErrEventOverflow) {
				overflows++
			}
			if recording {
				title := ""
				if ev.After != nil {
					title = ev.After.Status.Title
				}
				log = append(log, fmt.Sprintf("%d %s %s %s", at, ev.Kind, ev.Name, title))
			}
			mu.Unlock()
		}
	}()
	<-ready
	stats := func() (uint64, int) {
		mu.Lock()
		defer mu.Unlock()
		heap()
		return heapPeak, overflows
	}
	other := func(cmd string, out io.Writer) bool {
		mu.Lock()
		defer mu.Unlock()
		switch cmd {
		case "record on":
			recording = true
		case "dump":
			for _, l := range log {
				fmt.Fprintln(out, l)
			}
			log = nil
		default:
			return false
		}
		return true
	}
	quit := func() error {
		err := w.Close()
		<-done
		return err
	}
	return serve(snapshot, stats, other, quit)
}

// runFloor is the floor under the watcher: a process that only drains
// fsnotify's channels for the status directory, doing nothing with the
// events. It answers "stats" and "quit" like the watcher.
func runFloor(dir string) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	if err := fw.Add(dir); err != nil {
		return err
	}
	go func() {
		for {
			select {
			case _, ok := <-fw.Events:
				if !ok {
					return
				}
			case _, ok := <-fw.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	none := func() (uint64, int) { return 0, 0 }
	unknown := func(string, io.Writer) bool { return false }
	return serve(0, none, unknown, fw.Close)
}

// serve is the command loop on stdin of the watcher and of the floor. It
// writes "ready N" (N: the snapshot's records), then answers "stats" with
// the process's CPU time, peak memory and what stats tells; "quit" by
// quit; any other command by other, which says whether it knew it. Every
// reply ends with a line "end".
func serve(ready int, stats func() (heapPeak uint64, overflows int), other func(cmd string, out io.Writer) bool, quit func() error) error {
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(out, "ready %d\n", ready)
	out.Flush()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch cmd := in.Text(); {
		case cmd == "stats":
			cpu, hwm, err := usage()
			if err != nil {
				return err
			}
			heapPeak, overflows := stats()
			fmt.Fprintf(out, "cpu %d maxrss %d heappeak %d overflows %d\n", cpu, hwm, heapPeak, overflows)
		case cmd == "quit":
			err := quit()
			fmt.Fprintln(out, "end")
			out.Flush()
			return err
		case !other(cmd, out):
			return fmt.Errorf("unknown command %q", cmd)
		}
		fmt.Fprintln(out, "end")
		out.Flush()
	}
	return in.Err()
}

// usage returns what "stats" reports of the process: its CPU time (user
// and system, ns) and its peak resident memory (bytes, see peakRSS).
func usage() (cpu, peak int64, err error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, err
	}
	peak, err = peakRSS()
	return ru.Utime.Nano() + ru.Stime.Nano(), peak, err
}

// peakRSS returns the process's peak resident memory in bytes: VmHWM of
// /proc/self/status. Not getrusage's ru_maxrss: Linux carries that across
// execve, and Go starts children with vfork semantics, so the child's
// ru_maxrss would include the benchmark driver's own peak.
func peakRSS() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kib int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kib); err != nil {
				return 0, fmt.Errorf("VmHWM %q: %w", rest, err)
			}
			return kib << 10, nil
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}
