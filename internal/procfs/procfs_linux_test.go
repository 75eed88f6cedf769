//go:build linux

package procfs

import (
	"errors"
	"io/fs"
	"os"
	"testing"
)

func TestReadStatSelf(t *testing.T) {
	st, err := ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.PID != os.Getpid() || st.PPID != os.Getppid() || st.Start == 0 || st.Zombie {
		t.Errorf("%+v, parent %d", st, os.Getppid())
	}
	if _, err := ReadStat(1 << 30); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing process: %v", err)
	}
}
