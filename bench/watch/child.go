//go:build linux

package main

import (
	"bufio"
	"errors"
	"fmt"
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
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(out, "ready %d\n", snapshot)
	out.Flush()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "stats":
			var ru syscall.Rusage
			if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
				return err
			}
			cpu := ru.Utime.Nano() + ru.Stime.Nano()
			hwm, err := peakRSS()
			if err != nil {
				return err
			}
			mu.Lock()
			heap()
			fmt.Fprintf(out, "cpu %d maxrss %d heappeak %d overflows %d\n", cpu, hwm, heapPeak, overflows)
			mu.Unlock()
		case "record on":
			mu.Lock()
			recording = true
			mu.Unlock()
		case "dump":
			mu.Lock()
			for _, l := range log {
				fmt.Fprintln(out, l)
			}
			log = nil
			mu.Unlock()
		case "quit":
			err := w.Close()
			<-done
			fmt.Fprintln(out, "end")
			out.Flush()
			return err
		default:
			return fmt.Errorf("unknown command %q", in.Text())
		}
		fmt.Fprintln(out, "end")
		out.Flush()
	}
	return in.Err()
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
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(out, "ready %d\n", 0)
	out.Flush()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "stats":
			var ru syscall.Rusage
			if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
				return err
			}
			hwm, err := peakRSS()
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "cpu %d maxrss %d heappeak %d overflows %d\n", ru.Utime.Nano()+ru.Stime.Nano(), hwm, 0, 0)
		case "quit":
			err := fw.Close()
			fmt.Fprintln(out, "end")
			out.Flush()
			return err
		default:
			return fmt.Errorf("unknown command %q", in.Text())
		}
		fmt.Fprintln(out, "end")
		out.Flush()
	}
	return in.Err()
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
