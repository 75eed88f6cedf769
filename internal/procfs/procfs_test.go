package procfs

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name, line string
		want       Stat
	}{
		{"odd name", "1234 (we (i)rd) name) S 77 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 18446744073709551615\n",
			Stat{PID: 1234, Comm: "we (i)rd) name", State: 'S', PPID: 77, Start: 987654}},
		{"zombie", "9 (x) Z 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0\n",
			Stat{PID: 9, Comm: "x", State: 'Z', PPID: 1, Start: 5, Zombie: true}},
		{"dead", "9 (x) X 0 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0\n",
			Stat{PID: 9, Comm: "x", State: 'X', Start: 5, Zombie: true}},
		{"empty name", "3 () R 2 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42",
			Stat{PID: 3, State: 'R', PPID: 2, Start: 42}},
		{"newline in name", "3 (a\nb) R 2 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42",
			Stat{PID: 3, Comm: "a\nb", State: 'R', PPID: 2, Start: 42}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStat([]byte(tt.line))
			if err != nil || got != tt.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{
		"", "1 x S 1", "1 (x) S", "(x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
		"1 (x) S p 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
		"1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -5",
		"1 (x) SS 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
		"-1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
		"1 )x( S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
	} {
		if st, err := ParseStat([]byte(bad)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: got %+v, %v", bad, st, err)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("1234 (we (i)rd) name) S 77 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 18446744073709551615\n"))
	f.Add([]byte("9 (x) Z 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0\n"))
	f.Add([]byte("1 ((((((( R 0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := ParseStat(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if st.PID <= 0 || st.PPID < 0 || st.Zombie != (st.State == 'Z' || st.State == 'X') {
			t.Fatalf("inconsistent %+v", st)
		}
		// What was parsed is what the line says: the name is between the
		// first '(' and the last ')', the pid before it.
		s := string(data)
		if got := strings.TrimSpace(s[:strings.IndexByte(s, '(')]); got != strconv.Itoa(st.PID) && strings.TrimLeft(got, "+0") != strconv.Itoa(st.PID) {
			t.Fatalf("pid %d from %q", st.PID, got)
		}
		if s[strings.IndexByte(s, '(')+1:strings.LastIndexByte(s, ')')] != st.Comm {
			t.Fatalf("name %q", st.Comm)
		}
	})
}
