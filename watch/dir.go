package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentstatus/agentstatus/reader"
)

// reconcile brings the watches and the view in line with the file system:
// it watches the nearest existing ancestor, opens the status directory
// (safely, as every reader does), watches it, lists it, and reports the
// difference from what the consumer knows. It runs at start, whenever the
// directory or an ancestor changes, after a lost notification, and at
// every safety rescan.
func (w *Watcher) reconcile() {
	w.now = w.cfg.Clock.Now()
	defer w.armRescan()
	if !w.watchAncestor() {
		w.closeDir(reasonDirGone)
		w.missing = true
		return
	}
	d, err := reader.Open(w.path, reader.Options{Clock: batchClock{w}, Liveness: w.cfg.Liveness})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		w.closeDir(reasonDirGone)
		w.missing, w.dirErr = true, ""
		return
	case err != nil:
		// A symbolic link, another owner, writable by others, not a
		// directory (SPEC.md R2): nothing in it may be shown.
		w.closeDir(reasonDirRefused)
		w.missing = false
		w.reportOnce(&w.dirErr, err)
		return
	}
	w.missing, w.dirErr = false, ""
	if w.dir != nil && !os.SameFile(d.Info(), w.dir.Info()) {
		w.closeDir(reasonDirReplaced)
	}
	if w.dir != nil {
		d.Close()
		d = w.dir
	}
	// Watch, then list: a change made meanwhile is both in the listing and
	// notified, and reading it twice finds no difference. Adding is
	// idempotent, and it brings back a watch fsnotify dropped (the
	// directory was renamed away and back).
	if err := w.src.Add(w.path); err != nil {
		w.reportOnce(&w.addErr, fmt.Errorf("cannot watch %s; changes will be seen at rescans only: %w", w.path, err))
	} else {
		w.addErr = ""
	}
	if fi, err := os.Lstat(w.path); err != nil || !os.SameFile(fi, d.Info()) {
		// Replaced between the open and the watch: the watch may be on
		// the newcomer. Its arrival was notified; look again then.
		w.dirDirty = true
	}
	w.dir = d
	l, err := d.List()
	if err != nil {
		w.reportOnce(&w.dirErr, err)
		return
	}
	w.now = l.Now
	w.diff(l.Entries, reasonDeleted, l.Now)
}

// closeDir stops watching the open status directory, if any, and empties
// the view: every entry is removed for reason.
func (w *Watcher) closeDir(reason string) {
	if w.dir == nil {
		return
	}
	w.diff(nil, reason, w.now)
	_ = w.src.Remove(w.path) // fsnotify may have dropped it already
	w.dir.Close()
	w.dir = nil
}

// watchAncestor watches the status directory's parent or, while that is
// missing, its nearest existing ancestor, and reports whether the parent
// exists. Events in that directory about the next component of the path
// bring the watch one level down, until the parent is watched; if the
// parent goes, the watch goes back up. A failure to watch is reported; the
// rescan timer then retries.
func (w *Watcher) watchAncestor() bool {
	for range 32 {
		a, fi := nearestDir(w.parent)
		if fi == nil {
			return false
		}
		if a == w.anc && os.SameFile(fi, w.ancInfo) {
			return a == w.parent
		}
		err := w.src.Add(a)
		if w.anc != "" && w.anc != a {
			_ = w.src.Remove(w.anc)
		}
		if err != nil {
			w.reportOnce(&w.ancErr, fmt.Errorf("cannot watch %s for changes to %s: %w", a, w.path, err))
			w.anc, w.ancInfo = "", nil
			return a == w.parent
		}
		w.ancErr = ""
		w.anc, w.ancInfo = a, fi
		// Look again: a component below a may have appeared before the
		// watch was in place.
	}
	return w.anc == w.parent
}

// nearestDir returns p or its nearest ancestor that is an existing
// directory (following symbolic links: directories above the config home
// are trusted, SPEC.md L5), and its identity; nil if there is none.
func nearestDir(p string) (string, fs.FileInfo) {
	for {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p, fi
		}
		up := filepath.Dir(p)
		if up == p {
			return p, nil
		}
		p = up
	}
}
