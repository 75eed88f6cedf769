//go:build unix

package safefs

import (
	"os"

	"golang.org/x/sys/unix"
)

// RemoveStaleTemps removes, from an opened status directory, the temporary
// files left by writers of the status file name (see [TempName]) that are
// gone: no process has the writer's pid. Those of a writer that lives are
// left alone, and so is every other name. An empty name removes those of
// every session.
func RemoveStaleTemps(d *PubDir, name string) error {
	entries, err := d.List()
	if err != nil {
		return err
	}
	var first error
	for _, e := range entries {
		n := e.Name
		of, pid, ok := ParseTempName(n)
		if !ok || (name != "" && of != name) || !WriterGone(pid) {
			continue
		}
		if err := d.RemoveTemp(n); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// WriterGone reports whether no process has pid on this host (kill(pid, 0)
// fails with ESRCH). The current process is never gone.
func WriterGone(pid int) bool {
	if pid <= 0 || pid == os.Getpid() {
		return false
	}
	return unix.Kill(pid, 0) == unix.ESRCH
}
