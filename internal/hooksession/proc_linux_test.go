package hooksession

import (
	"os"
	"testing"
)

func TestLookupProcSelf(t *testing.T) {
	info, err := lookupProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if info.PPID != os.Getppid() || info.Start == 0 || info.Zombie {
		t.Errorf("%+v, parent %d", info, os.Getppid())
	}
	if _, err := lookupProc(1 << 30); !os.IsNotExist(err) {
		t.Errorf("missing process: %v", err)
	}
}
