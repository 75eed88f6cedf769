//go:build unix

package measure

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Record is the i-th record of a generated status directory: one of four
// agents, a third each working, blocked and idle, one of 50 working
// directories, a title that names i, and updated at (less up to 9 s, so
// that the records are not all of one moment).
func Record(i int, at time.Time) statusfile.Status {
	agents := []string{"pi", "gentle-shell", "claude-code", "codex"}
	states := []statusfile.State{statusfile.Working, statusfile.Blocked, statusfile.Idle}
	return statusfile.Status{
		Agent:     agents[i%len(agents)],
		Session:   fmt.Sprintf("bench-%d-%08x", i, uint32(i)*2654435761),
		PID:       1000 + i,
		Cwd:       fmt.Sprintf("/home/user/src/project-%d", i%50),
		State:     states[i%len(states)],
		Title:     fmt.Sprintf("Task %d: implement the status adapter for module %d", i, i%97),
		UpdatedAt: at.Add(-time.Duration(i%9000) * time.Millisecond),
	}
}

// WriteRecord writes s, as statusfile.Encode has it, into dir under its
// file name.
func WriteRecord(dir string, s statusfile.Status) error {
	data, err := statusfile.Encode(s)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, statusfile.FileName(s.Session)), data, 0o600)
}

// WriteData writes data, a record made longer by hand than Encode writes
// it, into dir as session's record, once it is sure that a reader takes it
// for a valid record.
func WriteData(dir, session string, data []byte) error {
	if _, err := statusfile.Decode(data); err != nil {
		return fmt.Errorf("generated an invalid record: %v", err)
	}
	return os.WriteFile(filepath.Join(dir, statusfile.FileName(session)), data, 0o600)
}

// WorkDir returns dir, or when dir is "" a new temporary directory named
// after pattern (as os.MkdirTemp names it); done removes the temporary
// one and leaves a given dir as it is.
func WorkDir(dir, pattern string) (path string, done func(), err error) {
	if dir != "" {
		return dir, func() {}, nil
	}
	if dir, err = os.MkdirTemp("", pattern); err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
