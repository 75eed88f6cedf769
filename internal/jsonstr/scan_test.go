package jsonstr

import (
	"encoding/binary"
	"strings"
	"testing"
)

// TestPlain8 checks the eight-bytes-at-once test against the one-byte
// table: every byte value at every position, among plain bytes, high
// bytes and other stops.
func TestPlain8(t *testing.T) {
	for _, fill := range []byte{'a', ' ', 0x7f, 0x80, 0xff, 0x21, 0x5d, 0x1f} {
		for c := 0; c < 256; c++ {
			for p := 0; p < 8; p++ {
				var w [8]byte
				for i := range w {
					w[i] = fill
				}
				w[p] = byte(c)
				want := !stringStop[fill] && !stringStop[c]
				if got := plain8(binary.LittleEndian.Uint64(w[:])); got != want {
					t.Fatalf("plain8(%q) = %v, want %v", w, got, want)
				}
			}
		}
	}
}

// TestSkipStringStops checks that the scanner stops at a quote, a
// backslash or a control character wherever it falls in a long string.
func TestSkipStringStops(t *testing.T) {
	for _, stop := range []string{`"`, `\n`, "\x01", "\x1f"} {
		for n := 0; n < 40; n++ {
			in := `"` + strings.Repeat("é", n/2) + strings.Repeat("a", n%2) + stop + `x"`
			d := Scanner{Data: []byte(in)}
			err := d.SkipString()
			switch stop {
			case `"`:
				if err != nil || d.Pos != len(in)-2 {
					t.Errorf("%q: pos %d, err %v; want pos %d", in, d.Pos, err, len(in)-2)
				}
			case `\n`:
				if err != nil || d.Pos != len(in) {
					t.Errorf("%q: pos %d, err %v; want the whole string", in, d.Pos, err)
				}
			default:
				if err == nil {
					t.Errorf("%q: no error for a control character", in)
				}
			}
		}
	}
}

// TestSkipValidString checks that skipping a string already validated ends
// where the validating scan ends, whatever the backslashes before a quote.
func TestSkipValidString(t *testing.T) {
	for _, in := range []string{`""`, `"a"`, `"\\"`, `"\""`, `"\\\""`, `"\\\\"`, `"a\"b\\"`, `"\u0022\\\\\"x"`, `"é\"\\"`} {
		for _, tail := range []string{"", `,"k":"v"}`, `"`} {
			data := []byte(in + tail)
			a := Scanner{Data: data}
			if err := a.SkipString(); err != nil {
				t.Fatalf("%q: %v", in, err)
			}
			b := Scanner{Data: data, Valid: true}
			if err := b.SkipString(); err != nil || b.Pos != a.Pos {
				t.Errorf("%q: skipped to %d (%v), the validating scan to %d", data, b.Pos, err, a.Pos)
			}
		}
	}
}
