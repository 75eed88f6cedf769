package reader

import (
	"cmp"
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentstatus/agentstatus/internal/clock"
	"github.com/agentstatus/agentstatus/internal/jsonstr"
	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/perm"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Verdict is what a reader makes of one directory entry.
type Verdict string

// Verdicts.
const (
	Fresh   Verdict = "fresh"   // a valid record, updated within 30 s
	Stale   Verdict = "stale"   // a valid record, older (or too far in the future)
	Invalid Verdict = "invalid" // a status file name, but not a record to show; see Reason
	Ignored Verdict = "ignored" // not a status file name; see Reason
)

// The reasons of Invalid entries that come from the file rather than its
// content, and of Ignored ones: see [Entry].Reason.
const (
	reasonSymlink      = "symlink"
	reasonNotRegular   = "not-regular"
	reasonNotOwned     = "not-owned"
	reasonTooLarge     = "too-large"
	reasonNameMismatch = "name-mismatch"
	reasonUnreadable   = "unreadable"
	reasonDotFile      = "dot-file"
	reasonNotAStatus   = "not-status-name"
)

// Entry is one entry of a listing.
type Entry struct {
	Name    string
	Verdict Verdict
	// Reason says why an entry is Invalid or Ignored, in the words of
	// SPEC.md §10. An Invalid file's content has the reasons of
	// [statusfile.DecodeError] ("empty", "bad-json", "not-object",
	// "unsupported-schema", "missing-field", "wrong-type", "bad-value");
	// the file itself may be a "symlink", "not-regular" (a directory, a
	// FIFO, a device), "not-owned" (by another account), "too-large" (over
	// [statusfile.MaxFileSize]) or "unreadable" (the system would not let
	// it be read), and a valid record in a file not named after its session
	// is a "name-mismatch". An Ignored entry is a "dot-file" (hidden, e.g. a
	// publisher's temporary file) or "not-status-name" (not <64 lowercase
	// hex>.json).
	Reason string
	// Err gives the details of an Invalid entry.
	Err error
	// Status is the decoded record: set for Fresh and Stale entries, and
	// for Invalid ones whose only fault is their name (name-mismatch).
	Status statusfile.Status
	// Age is how old the record was when the directory was read; negative
	// when updatedAt is in the future.
	Age time.Duration
	// File describes the opened file (zero for entries that were not
	// opened); [Dir.Remove] uses it to remove only the file that was read.
	File safefs.FileStat
	// Alive is the pid's liveness, when [Options].Liveness is set.
	Alive Liveness

	read bool // the file was opened and read: File describes it
}

// Options change how a directory is read.
type Options struct {
	// Clock judges freshness; nil means [clock.System]. Only
	// its Now method is used.
	Clock clock.Clock
	// Liveness checks each record's pid into [Entry.Alive]: whether a
	// process has it on this host and, where the system says when a
	// process started (Linux, through /proc), whether it is still the
	// process that wrote the record. Elsewhere on Unix it asks
	// kill(pid, 0); on other systems the answer is [Unknown]. It never
	// changes a verdict.
	Liveness bool
	// Ignored lists entries whose names are not status file names.
	Ignored bool
	// Workers bounds how many files are read at once; 0 chooses from the
	// number of files and CPUs.
	Workers int
}

func (o *Options) now() time.Time { return cmp.Or(o.Clock, clock.System).Now() }

// Listing is the result of reading a directory once.
type Listing struct {
	Dir string
	// Missing is set when the directory does not exist: an empty listing,
	// not an error (SPEC.md R1).
	Missing bool
	// Now is the time freshness was judged at.
	Now time.Time
	// Entries are in file-name order.
	Entries []Entry
}

// Fresh returns the fresh entries, in file-name order.
func (l *Listing) Fresh() []Entry {
	var out []Entry
	for _, e := range l.Entries {
		if e.Verdict == Fresh {
			out = append(out, e)
		}
	}
	return out
}

// Dir is a status directory opened for reading.
type Dir struct {
	pd   *safefs.Dir
	opts Options
	pool sync.Pool // *[]byte read buffers

	afterList func() // tests: runs between listing and reading
}

// Open opens the status directory at path for repeated reads. A missing
// directory is an error satisfying errors.Is(err, fs.ErrNotExist). A
// directory that is a symbolic link, owned by another account or writable by
// group or others is refused with a *perm.Error.
func Open(path string, opts Options) (*Dir, error) {
	pd, err := safefs.OpenDir(path)
	if err != nil {
		return nil, err
	}
	if err := pd.Check(); err != nil {
		pd.Close()
		return nil, err
	}
	return &Dir{pd: pd, opts: opts}, nil
}

// Close closes the directory.
func (d *Dir) Close() error { return d.pd.Close() }

// Info describes the directory as opened, so that a long-lived reader can
// tell (with os.SameFile) whether the path still names it.
func (d *Dir) Info() fs.FileInfo { return d.pd.Info() }

// List reads the directory once. See [Open] for what makes it an error.
func List(path string, opts Options) (*Listing, error) {
	d, err := Open(path, opts)
	if errors.Is(err, fs.ErrNotExist) {
		return &Listing{Dir: path, Missing: true, Now: opts.now()}, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.List()
}

// notStatus marks, among the listed names, those that are not status file
// names (a bit fs.FileMode does not use for types).
const notStatus = fs.ModeTemporary

// parallelFrom is the number of files from which List reads in parallel.
const parallelFrom = 64

// List reads every entry of the directory.
func (d *Dir) List() (*Listing, error) {
	l := &Listing{Dir: d.pd.Path(), Now: d.opts.now(), Entries: []Entry{}}
	err := d.walk(l.Now, 0, func(entries []Entry) bool {
		l.Entries = entries
		return true
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Each reads every entry of the directory, as List does, and calls yield
// with each in file-name order as soon as it is read, until yield returns
// false: a few chunks of entries are held at a time, not the listing, so
// that a caller which prints or drops each entry holds memory flat in the
// number and the size of the records. An entry is valid until yield
// returns. Freshness is judged at one time, the reader's clock when Each
// starts.
func (d *Dir) Each(yield func(*Entry) bool) error {
	return d.walk(d.opts.now(), eachWindow, func(entries []Entry) bool {
		for i := range entries {
			if !yield(&entries[i]) {
				return false
			}
		}
		return true
	})
}

// eachWindow is how many names Each reads before it yields them: enough
// for the workers of readAll, few enough that what is held stays small.
const eachWindow = 256

// walk lists the directory and reads its entries, judged at now, window
// names at a time (all of them when window is 0), calling fn with each
// window's entries in file-name order until it returns false. The entries
// of files that vanished while they were read are left out: their
// publishers just shut down. A window's entries are fn's to keep only
// when window is 0.
func (d *Dir) walk(now time.Time, window int, fn func([]Entry) bool) error {
	des, err := d.pd.List()
	if err != nil {
		return err
	}
	des = d.names(des)
	if d.afterList != nil {
		d.afterList()
	}
	if window == 0 {
		window = len(des)
	}
	var entries []Entry
	for start := 0; start < len(des); start += window {
		entries = d.entries(entries, des[start:min(start+window, len(des))])
		d.readAll(entries, now)
		entries = slices.DeleteFunc(entries, func(e Entry) bool { return e.Verdict == "" })
		if !fn(entries) {
			break
		}
	}
	return nil
}

// names keeps the entries to list, each name checked once, and sorts them
// by name: these small (name, type) pairs, not the entries built from
// them. Names that are not status file names are kept, marked notStatus,
// only when ignored entries are asked for.
func (d *Dir) names(des []safefs.DirEntry) []safefs.DirEntry {
	kept := des[:0]
	for _, de := range des {
		if safefs.IsStatusName(de.Name) {
			kept = append(kept, de)
		} else if d.opts.Ignored {
			de.Type |= notStatus
			kept = append(kept, de)
		}
	}
	slices.SortFunc(kept, func(a, b safefs.DirEntry) int { return strings.Compare(a.Name, b.Name) })
	return kept
}

// entries makes one entry per name, with the verdicts the names and types
// decide already: ignored names, symbolic links and other non-regular
// files. The type from the directory saves opening what cannot be a
// record; reading checks again on the opened file. The other entries have
// no verdict yet. It reuses buf's memory when it can.
func (d *Dir) entries(buf []Entry, des []safefs.DirEntry) []Entry {
	entries := slices.Grow(buf[:0], len(des))[:len(des)]
	clear(entries)
	for i, de := range des {
		e := &entries[i]
		e.Name = de.Name
		switch t := de.Type; {
		case t&notStatus != 0:
			e.Verdict, e.Reason = Ignored, reasonNotAStatus
			if strings.HasPrefix(e.Name, ".") {
				e.Reason = reasonDotFile
			}
		case t&fs.ModeSymlink != 0:
			e.Verdict, e.Reason = Invalid, reasonSymlink
			e.Err = &perm.Error{What: safefs.StatusFile, Path: filepath.Join(d.pd.Path(), e.Name), Err: perm.ErrSymlink}
		case t&fs.ModeType != 0:
			e.Verdict, e.Reason = Invalid, reasonNotRegular
			e.Err = &perm.Error{What: safefs.StatusFile, Path: filepath.Join(d.pd.Path(), e.Name), Err: perm.ErrNotRegular, Detail: safefs.TypeName(t)}
		}
	}
	return entries
}

// readAll reads the files of the entries that have no verdict yet, judging
// them at now; the entries of files that vanished meanwhile keep none.
// From parallelFrom files on (or as Options.Workers says), a pool of
// workers reads them, taking chunks of files in turn.
func (d *Dir) readAll(entries []Entry, now time.Time) {
	var todo []int
	for i := range entries {
		if entries[i].Verdict == "" {
			todo = append(todo, i)
		}
	}
	workers := d.opts.Workers
	if workers <= 0 {
		workers = 1
		if len(todo) >= parallelFrom {
			workers = min(runtime.GOMAXPROCS(0), 8)
		}
	}
	var next atomic.Int64
	const chunk = 32
	work := func() {
		buf := d.getBuf()
		defer d.pool.Put(buf)
		for {
			start := int(next.Add(chunk)) - chunk
			if start >= len(todo) {
				return
			}
			for _, i := range todo[start:min(start+chunk, len(todo))] {
				d.read(&entries[i], now, buf)
			}
		}
	}
	if workers == 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(work)
	}
	wg.Wait()
}

func (d *Dir) getBuf() *[]byte {
	if b, ok := d.pool.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 0, 4096)
	return &b
}

// Read reads the one entry name, judging freshness at the reader's clock.
// It reports false when the file does not exist (anymore) or name is not
// a status file name.
func (d *Dir) Read(name string) (Entry, bool) {
	if !safefs.IsStatusName(name) {
		return Entry{}, false
	}
	e := Entry{Name: name}
	buf := d.getBuf()
	defer d.pool.Put(buf)
	if !d.read(&e, d.opts.now(), buf) {
		return Entry{}, false
	}
	return e, true
}

// read fills e from its file, with the pid's liveness when asked (on the
// reading goroutine: /proc is read in parallel too). It reports false if
// the file vanished.
func (d *Dir) read(e *Entry, now time.Time, buf *[]byte) bool {
	data, st, err := d.pd.ReadFile(e.Name, *buf, statusfile.MaxFileSize)
	if cap(data) > cap(*buf) {
		*buf = data[:0]
	}
	e.File = st
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		e.Verdict, e.Err = Invalid, err
		switch {
		case errors.Is(err, perm.ErrSymlink):
			e.Reason = reasonSymlink
		case errors.Is(err, perm.ErrNotRegular):
			e.Reason = reasonNotRegular
		case errors.Is(err, perm.ErrNotOwned):
			e.Reason = reasonNotOwned
		case errors.Is(err, perm.ErrTooLarge):
			e.Reason = reasonTooLarge
		default:
			e.Reason = reasonUnreadable
		}
		return true
	}
	e.read = true
	// data is the reader's buffer: nothing of it outlives judge, which
	// copies what it keeps.
	judge(e, data, now)
	// Every entry with a record: fresh, stale, and one whose only fault
	// is its name.
	if d.opts.Liveness && (e.Verdict == Fresh || e.Verdict == Stale || e.Reason == reasonNameMismatch) {
		e.Alive = liveness(e.Status.PID, e.Status.UpdatedAt)
	}
	return true
}

// Remove removes the file of e from the directory, but only if it is still
// the regular file that was read into e (same device and inode): a file
// that a publisher replaced meanwhile is left alone. It reports whether it
// removed the file. Entries that were not opened are never removed.
func (d *Dir) Remove(e *Entry) (bool, error) {
	if !e.read || !safefs.IsStatusName(e.Name) || !e.File.Mode.IsRegular() {
		return false, nil
	}
	return d.pd.Remove(e.Name, e.File)
}

// judge decodes data as the content of the file e.Name and sets e's verdict,
// reason, record and age as of now. It exists apart from reading so that
// other readers (and fuzz tests) share the rules.
func judge(e *Entry, data []byte, now time.Time) {
	rec, err := statusfile.Decode(data)
	if err != nil {
		e.Verdict, e.Err = Invalid, err
		var de *statusfile.DecodeError
		if errors.As(err, &de) {
			e.Reason = de.Reason
		} else {
			e.Reason = reasonUnreadable
		}
		return
	}
	e.Status = rec
	e.Age = now.Sub(rec.UpdatedAt)
	if e.Name != statusfile.FileName(rec.Session) {
		e.Verdict, e.Reason = Invalid, reasonNameMismatch
		session := jsonstr.Shorten(statusfile.SanitizeText(rec.Session), 80, 77, "...")
		e.Err = errors.New(e.Name + ` is not the file name of session "` + session + `"`)
		return
	}
	if rec.Fresh(now) {
		e.Verdict = Fresh
	} else {
		e.Verdict = Stale
	}
}
