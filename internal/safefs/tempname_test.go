package safefs_test

import (
	"math"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/internal/safefs"
	sf "github.com/agentstatus/agentstatus/statusfile"
)

func TestTempName(t *testing.T) {
	name := sf.FileName("s-1")
	tmp := safefs.TempName(name, 4242)
	if !strings.HasPrefix(tmp, "."+strings.TrimSuffix(name, ".json")+".4242.") || !strings.HasSuffix(tmp, ".tmp") || len(tmp) != 1+64+1+4+1+16+4 {
		t.Fatalf("TempName %q", tmp)
	}
	if safefs.IsStatusName(tmp) {
		t.Fatal("a temporary name is a status name: readers would read it")
	}
	if got, pid, ok := safefs.ParseTempName(tmp); !ok || got != name || pid != 4242 {
		t.Fatalf("ParseTempName(%q) = %q, %d, %v", tmp, got, pid, ok)
	}
	if a, b := safefs.TempName(name, 1), safefs.TempName(name, 1); a == b {
		t.Error("two temporary names alike")
	}
	hash := strings.TrimSuffix(name, ".json")
	for _, bad := range []string{
		"", ".tmp", name, "." + hash + ".1.0123456789abcdef",
		"." + hash + ".0.0123456789abcdef.tmp",
		"." + hash + ".01.0123456789abcdef.tmp",
		"." + hash + ".+1.0123456789abcdef.tmp",
		"." + hash + ".-1.0123456789abcdef.tmp",
		"." + hash + ".1.0123456789ABCDEF.tmp",
		"." + hash + ".1.0123456789abcde.tmp",
		"." + hash + "..0123456789abcdef.tmp",
		"." + strings.ToUpper(hash) + ".1.0123456789abcdef.tmp",
		"." + hash + ".99999999999.0123456789abcdef.tmp",
		"." + name + "1234567", // renameio's names
	} {
		if _, _, ok := safefs.ParseTempName(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParseLegacyTempName(t *testing.T) {
	name := sf.FileName("s-1")
	tests := []struct {
		tmp string
		ok  bool
	}{
		{"." + name + "1", true},
		{"." + name + "4294967295", true},
		{"." + name + "12345678901", false}, // more digits than os.CreateTemp adds
		{"." + name, false},
		{name + "123", false},
		{"." + strings.ToUpper(name) + "123", false},
		{"." + name + "12a", false},
		{"." + name + ".tmp", false},
		{safefs.TempName(name, 7), false},
		{"", false},
	}
	for _, tt := range tests {
		got, ok := safefs.ParseLegacyTempName(tt.tmp)
		if ok != tt.ok || ok && got != name {
			t.Errorf("ParseLegacyTempName(%q) = %q, %v; want ok %v", tt.tmp, got, ok, tt.ok)
		}
	}
}

func FuzzParseLegacyTempName(f *testing.F) {
	f.Add("." + sf.FileName("x") + "123")
	f.Add(safefs.TempName(sf.FileName("x"), 7))
	f.Fuzz(func(t *testing.T, s string) {
		name, ok := safefs.ParseLegacyTempName(s)
		if !ok {
			return
		}
		if !safefs.IsStatusName(name) || !strings.HasPrefix(s, "."+name) || safefs.IsStatusName(s) {
			t.Fatalf("%q: %q", s, name)
		}
		if _, _, ok := safefs.ParseTempName(s); ok {
			t.Fatalf("%q is both kinds of temporary name", s)
		}
	})
}

func FuzzParseTempName(f *testing.F) {
	f.Add(safefs.TempName(sf.FileName("x"), 7))
	f.Add("." + sf.FileName("x") + "123")
	f.Fuzz(func(t *testing.T, s string) {
		name, pid, ok := safefs.ParseTempName(s)
		if !ok {
			return
		}
		if !safefs.IsStatusName(name) || pid <= 0 || pid > math.MaxInt32 || safefs.IsStatusName(s) || !strings.HasPrefix(s, ".") {
			t.Fatalf("%q: %q %d", s, name, pid)
		}
		// Round trip: the same name and pid make a name of the same form.
		if n2, p2, ok := safefs.ParseTempName(safefs.TempName(name, pid)); !ok || n2 != name || p2 != pid {
			t.Fatalf("round trip of %q", s)
		}
	})
}
