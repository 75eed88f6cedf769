//go:build unix

package statusls

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/agentstatus/agentstatus/internal/hooksession"
	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/perm"
	"github.com/agentstatus/agentstatus/reader"
	"golang.org/x/sys/unix"
)

// stopSignals end watch (exit 0); resizeSignals make it fit its table to
// the terminal again.
var (
	stopSignals   = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}
	resizeSignals = []os.Signal{syscall.SIGWINCH}
)

// keyboard puts the terminal f in no-echo, character-at-a-time mode and
// returns it as the reader of keys, with the function that restores the
// terminal as it was. Signals stay on (ISIG): Ctrl-C still sends SIGINT.
// It fails when f is not a terminal. (term.MakeRaw would turn ISIG off,
// and OPOST too, which the table's newlines need.)
func keyboard(f *os.File) (io.Reader, func(), error) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, nil, err
	}
	raw := *old
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON
	raw.Cc[unix.VMIN] = 1
	raw.Cc[unix.VTIME] = 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &raw); err != nil {
		return nil, nil, err
	}
	restore := func() { unix.IoctlSetTermios(fd, ioctlSetTermios, old) }
	return f, restore, nil
}

// execSupported says whether watch --exec works here: it runs the command
// with /bin/sh -c.
const execSupported = true

// ownProcessGroup puts the command (sh and whatever it starts) in a process
// group of its own: a Ctrl-C meant for watch does not cut a notification
// short, and --exec-timeout kills the whole group.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// inspectDir says what doctor needs to know about a directory beyond
// perm's rules: its mode as ls -ld shows it, whether it is shared with
// other accounts, and whether the current user can use it; nothing when
// it cannot be found.
func inspectDir(path string) dirInfo {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return dirInfo{}
	}
	m := uint32(st.Mode)
	info := dirInfo{
		mode:   fmt.Sprintf("%s (%04o)", lsMode(m), m&0o7777),
		sticky: m&unix.S_ISVTX != 0,
		mine:   int(st.Uid) == os.Geteuid(),
	}
	info.shared = info.sticky || !info.mine
	if m&unix.S_IFMT == unix.S_IFDIR {
		// access(2) answers for this user, root's overrides included:
		// a directory of mode 0000 is unusable for anyone else.
		if err := unix.Access(path, unix.R_OK|unix.W_OK|unix.X_OK); err == syscall.EACCES || err == syscall.EPERM {
			info.noAccess = true
		}
	}
	return info
}

// lsMode renders a mode as ls -l does: type, then rwx for owner, group
// and others, with s/S for setuid and setgid and t/T for the sticky bit.
func lsMode(m uint32) string {
	b := []byte("----------")
	types := map[uint32]byte{unix.S_IFDIR: 'd', unix.S_IFLNK: 'l', unix.S_IFIFO: 'p', unix.S_IFSOCK: 's', unix.S_IFCHR: 'c', unix.S_IFBLK: 'b'}
	if t, ok := types[m&unix.S_IFMT]; ok {
		b[0] = t
	}
	const rwx = "rwx"
	for i := 0; i < 9; i++ {
		if m&(1<<(8-i)) != 0 {
			b[1+i] = rwx[i%3]
		}
	}
	special := func(pos int, bit uint32, set, unset byte) {
		if m&bit != 0 {
			if b[pos] == 'x' {
				b[pos] = set
			} else {
				b[pos] = unset
			}
		}
	}
	special(3, unix.S_ISUID, 's', 'S')
	special(6, unix.S_ISGID, 's', 'S')
	special(9, unix.S_ISVTX, 't', 'T')
	return string(b)
}

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
