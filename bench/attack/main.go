//go:build linux

// Command attack repeats the attack run of the reliability figures in the
// README, each bounded in time:
//
//   - torn: one publisher rewrites a record as fast as it can (titles of
//     changing length) while readers read it in a loop, each read judged
//     as statusls judges it; a torn read is one that is not a valid
//     record. Prints reads, writes per second and torn reads.
//
//   - swaps: readers list the status directory in a loop while one
//     goroutine swaps a status file between a regular file, a FIFO, a
//     socket, a symbolic link and a directory, and another swaps the
//     status directory itself with a symbolic link and another
//     directory. A list that takes more than 2 s is a hang. Prints the
//     swaps made, the lists done and the hangs.
//
//     go run ./bench/attack -mode torn -for 20s
//     go run ./bench/attack -mode swaps -for 20s
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"

	"golang.org/x/sys/unix"
)

func main() {
	mode := flag.String("mode", "torn", "torn or swaps")
	dur := flag.Duration("for", 20*time.Second, "how long to attack")
	readers := flag.Int("readers", 2, "reading goroutines")
	writers := flag.Int("writers", 4, "writing goroutines (torn), all rewriting the one record")
	flag.Parse()
	work, err := os.MkdirTemp("", "attack-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	dir := filepath.Join(work, "home", location.DirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		fail(err)
	}
	os.Chmod(filepath.Dir(dir), 0o700)
	switch *mode {
	case "torn":
		torn(dir, *dur, *readers, *writers)
	case "swaps":
		swaps(dir, *dur, *readers)
	default:
		fail(errors.New("unknown -mode " + *mode))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "attack:", err)
	os.Exit(1)
}

func torn(dir string, dur time.Duration, readers, writers int) {
	var stop atomic.Bool // the attacking loops run until it is set
	var writes, reads, tornReads, missing atomic.Int64
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go write(&wg, dir, &stop, &writes)
	}
	name := statusfile.FileName("torn")
	for writes.Load() == 0 {
		time.Sleep(time.Millisecond) // readers start once the record exists
	}
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := reader.Open(dir, reader.Options{})
			if err != nil {
				fail(err)
			}
			defer d.Close()
			for !stop.Load() {
				e, ok := d.Read(name)
				if !ok {
					missing.Add(1) // never expected: the rename replaces it
					continue
				}
				reads.Add(1)
				if e.Verdict != reader.Fresh {
					tornReads.Add(1)
				}
			}
		}()
	}
	time.Sleep(dur)
	stop.Store(true)
	wg.Wait()
	fmt.Printf("torn reads: %d of %d reads (%d found no file) against %d writes in %v (%.0f writes/s)\n",
		tornReads.Load(), reads.Load(), missing.Load(), writes.Load(), dur, float64(writes.Load())/dur.Seconds())
}

func swaps(dir string, dur time.Duration, readers int) {
	var stop atomic.Bool // the attacking loops run until it is set
	var fileSwaps, dirSwaps, lists, hangs atomic.Int64
	var maxList atomic.Int64
	var wg sync.WaitGroup
	base := filepath.Dir(dir)
	// Some records to list.
	for i := range 20 {
		statusfile.WriteFile(dir, statusfile.Status{Agent: "attack", Session: fmt.Sprint("s", i), PID: os.Getpid(), Cwd: "/", State: statusfile.Idle})
	}
	victim := filepath.Join(dir, statusfile.FileName("victim"))
	wg.Add(2)
	go func() { // file-type swaps
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			os.RemoveAll(victim)
			switch i % 5 {
			case 0:
				// Never block on what another swap left there.
				if fd, err := syscall.Open(victim, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0o600); err == nil {
					syscall.Write(fd, []byte(`{"schema":"gentle-shell.agent-status/v1"}`))
					syscall.Close(fd)
				}
			case 1:
				unix.Mkfifo(victim, 0o600)
			case 2:
				if l, err := net.Listen("unix", victim); err == nil {
					l.(*net.UnixListener).SetUnlinkOnClose(false)
					l.Close()
				}
			case 3:
				os.Symlink(filepath.Join(base, "decoy"), victim)
			case 4:
				os.Mkdir(victim, 0o700)
			}
			fileSwaps.Add(1)
		}
	}()
	go func() { // directory swaps
		defer wg.Done()
		other := filepath.Join(base, "other")
		os.Mkdir(other, 0o700)
		// The link leads to a decoy directory of our own: whatever goes
		// through it lands there, never outside the work directory.
		decoy := filepath.Join(base, "decoy")
		os.Mkdir(decoy, 0o700)
		link := filepath.Join(base, "link")
		os.Symlink(decoy, link)
		for i := 0; !stop.Load(); i++ {
			// dir <-> other, then dir <-> a symbolic link, and back.
			tmp := filepath.Join(base, "tmp")
			if i%2 == 0 {
				os.Rename(dir, tmp)
				os.Rename(other, dir)
				os.Rename(tmp, other)
			} else {
				os.Rename(dir, tmp)
				os.Rename(link, dir)
				os.Rename(dir, link)
				os.Rename(tmp, dir)
			}
			dirSwaps.Add(1)
		}
	}()
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				done := make(chan struct{})
				start := time.Now()
				go func() {
					reader.List(dir, reader.Options{Liveness: true})
					close(done)
				}()
				select {
				case <-done:
				case <-time.After(2 * time.Second):
					hangs.Add(1)
					<-done
				}
				if took := time.Since(start); int64(took) > maxList.Load() {
					maxList.Store(int64(took))
				}
				lists.Add(1)
			}
		}()
	}
	time.Sleep(dur)
	stop.Store(true)
	wg.Wait()
	fmt.Printf("swaps: %d hangs in %d lists (slowest %v) over %d file-type swaps and %d directory swaps in %v\n",
		hangs.Load(), lists.Load(), time.Duration(maxList.Load()).Round(time.Millisecond), fileSwaps.Load(), dirSwaps.Load(), dur)
}

// write rewrites the "torn" record until stop is set, with titles of changing
// length.
func write(wg *sync.WaitGroup, dir string, stop *atomic.Bool, writes *atomic.Int64) {
	defer wg.Done()
	for i := 0; !stop.Load(); i++ {
		rec := statusfile.Status{Agent: "attack", Session: "torn", PID: os.Getpid(), Cwd: "/", State: statusfile.Working,
			Title: strings.Repeat("x", i%2000)}
		if _, err := statusfile.WriteFile(dir, rec); err != nil {
			fail(err)
		}
		writes.Add(1)
	}
}
