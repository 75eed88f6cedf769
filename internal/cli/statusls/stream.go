package statusls

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"sync"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
)

// listTSV prints this machine's listing as TSV in file-name order, what
// scripts get by default, as it reads it: TSV shows no invalid file and
// needs no order but the files', so each record is printed, then let go
// of, and memory stays flat in the number and the size of the records
// (bench/memory.sh). It prints what list prints from a reader.List.
func listTSV(o *listOptions, env *cmdEnv) int {
	loc, now, err := o.resolve(env)
	if err != nil {
		return usageError(env, "%v", err)
	}
	// What is read is garbage once printed: at Main's 400 % the heap would
	// grow to 16 MiB before the first collection, and every page it takes
	// costs a page fault. At 100 % it stays within the runtime's 4 MiB
	// minimum (bench/memory.sh).
	defer tuneGC(env.Getenv, 100, 16<<20)()
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	var buf []byte
	err = eachRecord(loc.Dir, reader.Options{Clock: atClock(now)}, func(e *reader.Entry) {
		if o.filter.Match(e) {
			buf = render.AppendTSV(buf[:0], &e.Status)
			out.Write(buf)
		}
	})
	if err != nil {
		return dirError(env, err)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(env.Stderr, "statusls: %s\n", base.Message(err))
		return base.ExitError
	}
	return base.ExitOK
}

// eachRecord calls fn with the entry of every status file of dir that the
// reader opens, in file-name order, as reader.List lists them: the ones
// the directory's types rule out (symbolic links, FIFOs, ...) are not
// opened, and the ones that vanish meanwhile are left out. A missing
// directory has none. From parallelFrom files on, workers read ahead in
// batches, at most a few batches ahead of fn, so that what is held stays
// bounded.
func eachRecord(dir string, opts reader.Options, fn func(*reader.Entry)) error {
	rd, err := reader.Open(dir, opts)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer rd.Close()
	d, names, err := statusNames(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	d.Close()
	readInOrder(rd, names, fn)
	return nil
}

// parallelFrom is the number of files from which eachRecord reads in
// parallel. Below it, a second thread costs more than it saves: over 100
// ordinary records, reading them in turn takes about 25 fewer page faults
// (315 against 341, perf stat -e page-faults -r 40) and no more time.
const parallelFrom = 256

// readInOrder reads names with rd, calling fn in their order.
func readInOrder(rd *reader.Dir, names []string, fn func(*reader.Entry)) {
	workers := min(runtime.GOMAXPROCS(0), 8)
	if len(names) < parallelFrom || workers == 1 {
		for _, name := range names {
			if e, ok := rd.Read(name); ok {
				fn(&e)
			}
		}
		return
	}
	type batch struct {
		names   []string
		entries []reader.Entry
		done    chan struct{}
	}
	const batchSize = 32
	jobs, order := make(chan *batch), make(chan *batch, 2*workers)
	var wg sync.WaitGroup
	wg.Go(func() {
		for start := 0; start < len(names); start += batchSize {
			b := &batch{names: names[start:min(start+batchSize, len(names))], done: make(chan struct{})}
			order <- b
			jobs <- b
		}
		close(order)
		close(jobs)
	})
	for range workers {
		wg.Go(func() {
			for b := range jobs {
				for _, name := range b.names {
					if e, ok := rd.Read(name); ok {
						b.entries = append(b.entries, e)
					}
				}
				close(b.done)
			}
		})
	}
	for b := range order {
		<-b.done
		for i := range b.entries {
			fn(&b.entries[i])
		}
	}
	wg.Wait()
}
