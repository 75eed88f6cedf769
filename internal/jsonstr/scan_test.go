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

// TestSkipStringLong checks the scan of long strings (plainRun) against
// one byte at a time: where it ends and what error it returns, with a
// stop of each kind at every offset of the first 200 bytes, and a quote
// escaped before the end.
func TestSkipStringLong(t *testing.T) {
	ref := func(data []byte) (int, string) {
		for i := 1; i < len(data); i++ {
			switch c := data[i]; {
			case c == '"':
				return i + 1, ""
			case c == '\\':
				switch {
				case i+1 >= len(data):
					return i, "unterminated string"
				case unescape[data[i+1]] != 0:
					i++
				case data[i+1] == 'u' && i+6 <= len(data) && isHex(data[i+2]) && isHex(data[i+3]) && isHex(data[i+4]) && isHex(data[i+5]):
					i += 5
				case data[i+1] == 'u':
					return i, "invalid \\u escape"
				default:
					return i, "invalid escape"
				}
			case c < 0x20:
				return i, "control character in string"
			}
		}
		return len(data), "unterminated string"
	}
	stops := []string{`"`, `\"`, `\\`, `\n`, `\u00e9`, `\u00`, `\x`, "\x00", "\x1f", "\\", ""}
	for _, plain := range []string{"a", "é", "~\x7f"} {
		for _, stop := range stops {
			for n := 0; n < 200; n++ {
				body := strings.Repeat(plain, n)[:n] + stop
				for _, tail := range []string{"", strings.Repeat("b", 70) + `"`, strings.Repeat(`b\"`, 30) + `"`} {
					in := []byte(`"` + body + tail)
					d := Scanner{Data: in}
					err := d.SkipString()
					wantPos, wantErr := ref(in)
					gotErr := ""
					if err != nil {
						gotErr = err.(*SyntaxError).Msg
					}
					if d.Pos != wantPos || gotErr != wantErr {
						t.Fatalf("%q: pos %d, error %q; want %d, %q", in, d.Pos, gotErr, wantPos, wantErr)
					}
				}
			}
		}
	}
}
