package statuspub

import (
	"os"
	"testing"
)

func TestParseProcStat(t *testing.T) {
	line := "1234 (we (i)rd) name) S 77 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 18446744073709551615\n"
	info, err := parseProcStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if info.Comm != "we (i)rd) name" || info.PPID != 77 || info.Start != 987654 || info.Zombie {
		t.Errorf("%+v", info)
	}
	zombie := "9 (x) Z 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0\n"
	if info, err := parseProcStat([]byte(zombie)); err != nil || !info.Zombie || info.Start != 5 {
		t.Errorf("zombie: %+v %v", info, err)
	}
	for _, bad := range []string{"", "1 x S 1", "1 (x) S", "1 (x) S p 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5"} {
		if _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

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
