// Package watch follows a gentle-shell.agent-status/v1 status directory
// (SPEC.md) as it changes, without polling: a [Watcher] delivers the
// directory's sessions once, then every change, as typed [Event] values.
//
// For most uses, call [New] with the status directory, range over
// [Watcher.Events], and [Watcher.Close] when done:
//
//	w, err := watch.New(dir)
//	...
//	defer w.Close()
//	for ev := range w.Events() {
//		switch ev.Kind { ... }
//	}
//
// # Events
//
// The stream starts with the snapshot: one [Snapshot] event per entry of
// the directory, in file-name order, then one [Synced] event (also when the
// directory is missing: Synced.Missing). Every later event is a change of
// one session ([Added], [Updated], [Heartbeat], [Stale], [Fresh],
// [Removed], [Invalid]: each [Kind] says when it is sent), or an [Error].
// An [Event] carries the session's file name (the key), the entry before
// and after the change, when the watcher saw it, and a sequence number.
//
// Consumers can rely on this:
//
//   - The view: keep a map from Name to After, deleting on nil. It then
//     holds what [reader.List] shows (with or without invalid files, as
//     [Options.Invalid] says), lagging only by the time it takes the watcher
//     to be notified and to read (or, for a lost notification, until the
//     next rescan). Before is the After of the previous event of that
//     name, except that with heartbeats off its updatedAt may be later.
//   - The verdict is always After.Verdict; the kind is a summary. A record
//     may be added stale, and an Updated record may have become fresh: a
//     consumer that shows fresh sessions looks at [Event.Live].
//   - States, not writes: the watcher reads a file when it is told it
//     changed. Two writes to one file before the read are seen as one (the
//     later). So every session's last state is delivered, and the states
//     of one session arrive in the order they were written, but a state
//     that lasted less than a read may be skipped. Publishers write at
//     most every 100 ms (SPEC.md P10); a read takes microseconds.
//   - Nothing is reported twice: a read that finds what the consumer
//     already has makes no event, so the rescans below report only real
//     changes.
//   - Order across sessions is the order the watcher saw the changes; in a
//     snapshot or a full rescan, file-name order.
//
// # How it works
//
// One fsnotify watch on the status directory and one on its parent. Every
// notification about a status file name marks the file; other names
// (dot-files such as the publishers' temporary files, other names) are
// ignored. Marked files are read again through [reader.Dir.Read], the
// reader's safe open, and compared with what the consumer has: a publisher's
// write (CREATE, WRITE, RENAME of the temporary file, CREATE of the status
// file) costs one read. Notifications that arrive together coalesce.
//
// Freshness changes with no file event at all, so one timer serves all
// records: it is armed, never later than needed, for the earliest moment
// at which any record's verdict changes by time alone (a nanosecond after
// updatedAt + 30 s for fresh records; updatedAt - 30 s for records from
// the future); a heap keeps the deadlines. When a heartbeat moves the
// earliest deadline later, the timer is left alone and, when it fires
// early, armed again: one wake-up every 20 s or so rather than a new
// timer per heartbeat. The clock is injectable ([Options.Clock]); nothing
// polls for staleness.
//
// The watcher recovers by itself:
//
//   - Directory missing at start, or its parent (the config home), or
//     more: the watcher watches the nearest existing ancestor, however far
//     up that is, and walks down one level each time the next component of
//     the path appears. While it waits, a busy ancestor (a home directory,
//     /tmp) costs one wake-up and a name comparison per change in it.
//   - Directory removed, renamed away or replaced (seen through the watch
//     on the parent, and by comparing the directory's identity): every
//     entry is Removed ("dir-gone", "dir-replaced"), and the
//     directory is listed again when it comes back, its records Added.
//   - Directory refused (it became a symbolic link, writable by others,
//     SPEC.md R2): every entry is Removed ("dir-refused") and an Error
//     says why; the watcher looks again when the directory changes.
//   - fsnotify.ErrEventOverflow (the kernel dropped notifications): an
//     Error, then a full listing compared with what the consumer has, so
//     that only real changes follow.
//   - A notification missed for any other reason: every
//     30 s (see [Options.RescanInterval]) the directory is
//     listed again and compared in the same way. This also corrects the
//     staleness timer after the wall clock jumps.
//
// The watcher always drains fsnotify's channels. A consumer that does not
// read holds back the delivery of events, not the draining: meanwhile the
// watcher only notes which files to read, so its memory stays bounded by
// the size of the directory.
//
// # Security
//
// Files are read exactly as package reader reads them: opened relative to
// the directory with O_NOFOLLOW and O_NONBLOCK, checked with fstat, at most
// 64 KiB. A symbolic link is never followed, a FIFO never blocks the
// watcher, and the directory itself is refused when it is a symbolic link,
// owned by another account or writable by others. The ancestors watched
// while waiting are trusted, as SPEC.md L5 says. Strings in events are as
// the files hold them: sanitize them before display
// ([statusfile.SanitizeTitle], [statusfile.SanitizeText]).
//
// # Platforms
//
// On Linux the watcher uses inotify: two watches, one inotify instance per
// [Watcher]. The kernel's queue (fs.inotify.max_queued_events, 16384 by
// default) can overflow in a burst; the watcher then lists the directory
// again. On macOS and the BSDs fsnotify uses kqueue, which opens every
// file of a watched directory: one descriptor per session (and, while
// waiting for the directory, per entry of the watched ancestor). On
// Windows, fsnotify's buffer for ReadDirectoryChangesW can overflow the
// same way as inotify's queue. Only the Linux behaviour is tested here.
package watch
