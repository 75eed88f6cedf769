package statusls

import (
	"errors"
	"io/fs"

	"github.com/agentstatus/agentstatus/internal/procfs"
)

// dead reports whether process pid has exited, reaped or not.
func dead(pid int) bool {
	st, err := procfs.ReadStat(pid)
	return errors.Is(err, fs.ErrNotExist) || err == nil && st.Zombie
}
