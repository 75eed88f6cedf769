package statusls

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/perm"
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
	// costs a page fault. At 100 % the first comes at the runtime's 4 MiB
	// minimum: over 3,000 records of 60 KiB, peak RSS is under 10 MiB
	// (bench/memory.sh).
	defer tuneGC(env.Getenv, 100, 16<<20)()
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	var buf []byte
	err = eachRecord(loc.Dir, reader.Options{Clock: atClock(now)}, false, func(e *reader.Entry) {
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
// that vanish meanwhile are left out, and the ones the directory's types
// rule out (symbolic links, FIFOs, ...) are not opened, but given as
// reader.List gives them when invalid is set. A missing directory has
// none. From parallelFrom files on, workers read ahead in batches, at most
// a few batches ahead of fn, so that what is held stays bounded.
func eachRecord(dir string, opts reader.Options, invalid bool, fn func(*reader.Entry)) error {
	rd, err := reader.Open(dir, opts)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer rd.Close()
	d, des, err := statusNames(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	d.Close()
	if !invalid {
		des = slices.DeleteFunc(des, func(de safefs.DirEntry) bool { return de.Type&fs.ModeType != 0 })
	}
	readInOrder(des, func(de safefs.DirEntry) (reader.Entry, bool) {
		if de.Type&fs.ModeType != 0 {
			return unopened(d.Path(), de), true
		}
		return rd.Read(de.Name)
	}, fn)
	return nil
}

// unopened is the entry reader.List makes of a status file name that the
// directory says is not a regular file, without opening it: invalid, as a
// symbolic link or as another type of file.
func unopened(dir string, de safefs.DirEntry) reader.Entry {
	e := reader.Entry{Name: de.Name, Verdict: reader.Invalid, Reason: "not-regular"}
	path := filepath.Join(dir, de.Name)
	if de.Type&fs.ModeSymlink != 0 {
		e.Reason, e.Err = "symlink", &perm.Error{What: safefs.StatusFile, Path: path, Err: perm.ErrSymlink}
	} else {
		e.Err = &perm.Error{What: safefs.StatusFile, Path: path, Err: perm.ErrNotRegular, Detail: safefs.TypeName(de.Type)}
	}
	return e
}

// parallelFrom is the number of files from which eachRecord reads in
// parallel. Below it, a second thread costs more than it saves: over 100
// ordinary records, reading them in turn takes about 25 fewer page faults
// (315 against 341, perf stat -e page-faults -r 40) and no more time.
const parallelFrom = 256

// readInOrder reads the entries of des with read, calling fn in their
// order.
func readInOrder(des []safefs.DirEntry, read func(safefs.DirEntry) (reader.Entry, bool), fn func(*reader.Entry)) {
	workers := min(runtime.GOMAXPROCS(0), 8)
	if len(des) < parallelFrom || workers == 1 {
		for _, de := range des {
			if e, ok := read(de); ok {
				fn(&e)
			}
		}
		return
	}
	type batch struct {
		des     []safefs.DirEntry
		entries []reader.Entry
		done    chan struct{}
	}
	const batchSize = 32
	jobs, order := make(chan *batch), make(chan *batch, 2*workers)
	var wg sync.WaitGroup
	wg.Go(func() {
		for start := 0; start < len(des); start += batchSize {
			b := &batch{des: des[start:min(start+batchSize, len(des))], done: make(chan struct{})}
			order <- b
			jobs <- b
		}
		close(order)
		close(jobs)
	})
	for range workers {
		wg.Go(func() {
			for b := range jobs {
				for _, de := range b.des {
					if e, ok := read(de); ok {
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
