//go:build unix

package hooksession

import (
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/agentstatus/agentstatus/reader"
)

// EndOtherSessions removes the records of the sessions other than session
// whose agent is pid: a process that has started a new session in place of
// its old one (Codex's /clear) no longer shows the old one. A process that
// serves several sessions at once, or one this host cannot tell (no
// /proc), keeps them all.
func EndOtherSessions(dir, session string, pid int) error {
	if pid <= 0 || !singleClient(pid) {
		return nil
	}
	l, err := reader.List(dir, reader.Options{})
	if err != nil {
		return err
	}
	for _, e := range l.Entries {
		if e.Verdict != reader.Fresh && e.Verdict != reader.Stale {
			continue
		}
		if e.Status.PID == pid && e.Status.Session != session {
			if err := Clear(dir, e.Status.Session); err != nil {
				return err
			}
		}
	}
	return nil
}

// singleClient reports whether pid is an agent that serves one user
// interface: not Codex's app-server daemon, which runs the hooks of every
// TUI connected to it (`codex app-server ... --managed-daemon`).
func singleClient(pid int) bool {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err == nil && len(cmdline) > 0 && !slices.Contains(strings.Split(string(cmdline), "\x00"), "app-server")
}
