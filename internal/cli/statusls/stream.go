package statusls

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
)

// listTSV prints this machine's listing as TSV in file-name order, what
// scripts get by default, as it reads it: TSV shows no invalid file and
// needs no order but the files', so each record is printed, then let go
// of, and memory stays flat in the number and the size of the records
// (bench/memory.sh). It prints what list prints from a reader.List.
func listTSV(o *listOptions, loc location.Location, now time.Time, env *cmdEnv) int {
	// What is read is garbage once printed: at Main's 400 % the heap would
	// grow to 16 MiB before the first collection, and every page it takes
	// costs a page fault. At 100 % the first comes at the runtime's 4 MiB
	// minimum: over 3,000 records of 60 KiB, peak RSS is under 10 MiB
	// (bench/memory.sh).
	defer tuneGC(env.Getenv, 100, 16<<20)()
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	var buf []byte
	err := eachRecord(loc.Dir, reader.Options{Clock: atClock(now)}, func(e *reader.Entry) {
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

// eachRecord calls fn with every entry of the status directory dir as
// reader.Dir.Each reads it: in file-name order, each as soon as it is
// read, so that what is held stays bounded. A missing directory has none.
func eachRecord(dir string, opts reader.Options, fn func(*reader.Entry)) error {
	rd, err := reader.Open(dir, opts)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer rd.Close()
	return rd.Each(func(e *reader.Entry) bool {
		fn(e)
		return true
	})
}
