package statusfile_test

import (
	"strings"
	"testing"

	sf "github.com/agentstatus/agentstatus/statusfile"
)

func TestTempName(t *testing.T) {
	name := sf.FileName("s-1")
	tmp := sf.TempName(name, 4242)
	if !strings.HasPrefix(tmp, "."+strings.TrimSuffix(name, ".json")+".4242.") || !strings.HasSuffix(tmp, ".tmp") || len(tmp) != 1+64+1+4+1+16+4 {
		t.Fatalf("TempName %q", tmp)
	}
	if sf.IsStatusName(tmp) {
		t.Fatal("a temporary name is a status name: readers would read it")
	}
	if got, pid, ok := sf.ParseTempName(tmp); !ok || got != name || pid != 4242 {
		t.Fatalf("ParseTempName(%q) = %q, %d, %v", tmp, got, pid, ok)
	}
	if a, b := sf.TempName(name, 1), sf.TempName(name, 1); a == b {
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
		if _, _, ok := sf.ParseTempName(bad); ok {
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
		{sf.TempName(name, 7), false},
		{"", false},
	}
	for _, tt := range tests {
		got, ok := sf.ParseLegacyTempName(tt.tmp)
		if ok != tt.ok || ok && got != name {
			t.Errorf("ParseLegacyTempName(%q) = %q, %v; want ok %v", tt.tmp, got, ok, tt.ok)
		}
	}
}

func FuzzParseLegacyTempName(f *testing.F) {
	f.Add("." + sf.FileName("x") + "123")
	f.Add(sf.TempName(sf.FileName("x"), 7))
	f.Fuzz(func(t *testing.T, s string) {
		name, ok := sf.ParseLegacyTempName(s)
		if !ok {
			return
		}
		if !sf.IsStatusName(name) || !strings.HasPrefix(s, "."+name) || sf.IsStatusName(s) {
			t.Fatalf("%q: %q", s, name)
		}
		if _, _, ok := sf.ParseTempName(s); ok {
			t.Fatalf("%q is both kinds of temporary name", s)
		}
	})
}

func FuzzParseTempName(f *testing.F) {
	f.Add(sf.TempName(sf.FileName("x"), 7))
	f.Add("." + sf.FileName("x") + "123")
	f.Fuzz(func(t *testing.T, s string) {
		name, pid, ok := sf.ParseTempName(s)
		if !ok {
			return
		}
		if !sf.IsStatusName(name) || pid <= 0 || pid > sf.MaxPID || sf.IsStatusName(s) || !strings.HasPrefix(s, ".") {
			t.Fatalf("%q: %q %d", s, name, pid)
		}
		// Round trip: the same name and pid make a name of the same form.
		if n2, p2, ok := sf.ParseTempName(sf.TempName(name, pid)); !ok || n2 != name || p2 != pid {
			t.Fatalf("round trip of %q", s)
		}
	})
}
