//go:build unix

package reader

import (
	"runtime"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

// TestListHoldsNoFileData checks that a listing holds, per record, only
// what it shows: no read buffer, and of a long title only what the
// sanitizer looks at. The files are 60 KiB: a listing that kept any of
// them whole would hold ten times the bound.
func TestListHoldsNoFileData(t *testing.T) {
	const n = 100
	dir := privateDir(t)
	long := strings.Repeat("refactor the parser so that every record is read once ", 1130)
	for i := 0; i < n; i++ {
		session := "s" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		var data []byte
		switch i % 3 {
		case 0: // a long title
			data = record(session, now, "task", map[string]any{"title": long})
		case 1: // a long unknown key
			data = record(session, now, "padding", long)
		default: // a long title in an invalid record
			data = record(session, now, "task", map[string]any{"title": long}, "updatedAt", "yesterday")
		}
		if len(data) < 60000 || len(data) > statusfile.MaxFileSize {
			t.Fatalf("record of %d bytes", len(data))
		}
		write(t, dir, statusfile.FileName(session), data)
	}
	for _, workers := range []int{1, 2} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		l, err := List(dir, Options{Clock: testClock, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if len(l.Entries) != n {
			t.Fatalf("%d entries, want %d", len(l.Entries), n)
		}
		perEntry := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
		if perEntry > 8<<10 {
			t.Errorf("workers %d: the listing holds %d bytes per entry, more than 8 KiB", workers, perEntry)
		}
		runtime.KeepAlive(l)
	}
}
