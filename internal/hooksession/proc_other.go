//go:build !linux && !darwin

package hooksession

import (
	"errors"

	"github.com/agentstatus/agentstatus/internal/procfs"
)

// lookupProc knows nothing of other processes here: the agent-pid search
// then stops at the parent, and the heartbeat owner falls back to kill(pid, 0).
func lookupProc(pid int) (procfs.Stat, error) {
	return procfs.Stat{}, errors.ErrUnsupported
}

// exePath is not known here.
func exePath(int) (string, error) { return "", errors.ErrUnsupported }
