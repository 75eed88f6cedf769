//go:build unix

package statusls

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/hooksession"
	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/perm"
	"github.com/agentstatus/agentstatus/reader"
)

// pruneGuard holds the status directory open a second time, to take the
// locks of hook sessions (SPEC.md H2, H3) and to clean leftovers.
type pruneGuard struct{ pd *safefs.Dir }

func openPruneGuard(path string, d *reader.Dir) (*pruneGuard, error) {
	pd, err := safefs.OpenDir(path)
	if err != nil {
		return nil, err
	}
	if !os.SameFile(pd.Info(), d.Info()) {
		pd.Close()
		return nil, &perm.Error{What: safefs.StatusDir, Path: path, Err: perm.ErrChanged}
	}
	return &pruneGuard{pd: pd}, nil
}

func (g *pruneGuard) close() { g.pd.Close() }

// remove removes e's file if it is still the judged one. For a session
// published by hook commands, it decides and removes under the session's
// write lock, and keeps a session whose heartbeat owner runs: busy says
// why it kept it.
func (g *pruneGuard) remove(d *reader.Dir, e *reader.Entry) (ok bool, busy string, err error) {
	lock, owner, _ := hooksession.Names(e.Name)
	holder, err := g.pd.RecordLockHolder(owner)
	if err != nil {
		return false, "", err
	}
	if holder != 0 {
		return false, "its heartbeat owner runs", nil
	}
	l, err := g.pd.TryFlock(lock)
	if err != nil {
		return false, "", err
	}
	if l == nil {
		return false, "being updated", nil
	}
	defer l.Release()
	ok, err = d.Remove(e)
	return ok, "", err
}

// leftovers handles the directory's dot-files (see leftover).
func (g *pruneGuard) leftovers(out io.Writer, now time.Time, dryRun bool, fail func(error)) {
	l, err := g.pd.List()
	if err != nil {
		fail(err)
		return
	}
	for _, e := range l {
		if strings.HasPrefix(e.Name, ".") && e.Type.IsRegular() {
			g.leftover(out, e.Name, now, dryRun, fail)
		}
	}
}

// legacyTempAge is how old a temporary file of the earlier writer must be
// for prune to remove it: its name holds no pid, and no write takes this
// long.
const legacyTempAge = 10 * time.Minute

// leftover handles a dot-file: the temporary file of a writer that is
// gone is removed (SPEC.md P8), and so is one of the earlier versions'
// writer once it is old; a record moved aside by a prune that was
// interrupted is put back (D5). Anything else is left alone.
func (g *pruneGuard) leftover(out io.Writer, name string, now time.Time, dryRun bool, fail func(error)) {
	var temp string // what the temporary file is, when it is to go
	if _, ok := safefs.ParseLegacyTempName(name); ok {
		st, err := g.pd.Lstat(name)
		if err != nil || !st.Mode.IsRegular() || st.UID != os.Geteuid() {
			return // gone meanwhile, or not ours: RemoveTemp would keep it too
		}
		if age := now.Sub(st.ModTime); age >= legacyTempAge {
			temp = fmt.Sprintf("temporary file %s: left by an earlier version's writer %s ago", name, age.Round(time.Minute))
		}
	} else if _, pid, ok := safefs.ParseTempName(name); ok && safefs.WriterGone(pid) {
		temp = fmt.Sprintf("temporary file %s: its writer (pid %d) is gone", name, pid)
	}
	if temp != "" {
		if dryRun {
			fmt.Fprintf(out, "would remove %s\n", temp)
		} else if err := g.pd.RemoveTemp(name); err != nil {
			fail(err)
		} else {
			fmt.Fprintf(out, "removed %s\n", temp)
		}
		return
	}
	if rec, pid, ok := safefs.ParseAside(name, ".json"); ok && safefs.IsStatusName(rec) {
		if !safefs.WriterGone(pid) {
			return
		}
		if dryRun {
			fmt.Fprintf(out, "would put back %s as %s: its remover (pid %d) is gone\n", name, rec, pid)
			return
		}
		back, err := g.pd.Restore(name, rec)
		switch {
		case err != nil:
			fail(err)
		case back:
			fmt.Fprintf(out, "put back %s as %s: its remover (pid %d) is gone\n", name, rec, pid)
		default:
			fmt.Fprintf(out, "removed %s: %s was written again meanwhile\n", name, rec)
		}
	}
}
