package statusfile

import (
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/agentstatus/agentstatus/internal/jsonstr"
)

// units is the length of s in UTF-16 code units.
func units(s string) int { return len(utf16.Encode([]rune(s))) }

// unquote decodes the inside of a valid JSON string, whole.
func unquote(inside []byte) string {
	data := append(append([]byte{'"'}, inside...), '"')
	d := jsonstr.Scanner{Data: data}
	return d.Str(jsonstr.Span{Start: 0, End: len(data)})
}

// withTitle is the valid record with a title whose JSON text, between the
// quotes, is inside.
func withTitle(inside string) []byte {
	return []byte(strings.Replace(valid, `"task":null`, `"task":{"title":"`+inside+`"}`, 1))
}

// TestDecodeCutsTitle checks that Decode keeps no more of a title than
// SanitizeTitle looks at, and that what it keeps shows exactly as the whole
// title does, whatever falls on the cut: a surrogate pair, a combining
// mark, an escape sequence, invalid UTF-8, a lone surrogate.
func TestDecodeCutsTitle(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	const max = maxTitleUnits
	tests := []struct {
		name   string
		inside string // the title's JSON text
		cut    bool   // Decode keeps less than the whole title
	}{
		{"short", "Implement the adapter", false},
		{"ascii at the bound", a(max), false},
		{"ascii one past", a(max + 1), false},
		{"ascii two past", a(max + 2), true},
		{"long words", strings.Repeat("refactor the parser ", 3000), true},
		{"emoji across the bound", a(max-1) + "😀" + a(100), true},
		{"emoji at the bound", a(max-2) + "😀" + a(100), true},
		{"escaped pair across the bound", a(max-1) + `\ud83d\ude00` + a(100), true},
		{"escaped pair at the end", a(max-1) + `\ud83d\ude00`, false},
		{"lone surrogate at the bound", a(max-1) + `\ud800` + a(100), true},
		{"combining mark past the bound", a(max) + "\u0301" + a(100), true},
		{"combining mark at the bound", a(max-1) + "e\u0301" + a(100), true},
		{"zwj emoji across the bound", a(max-3) + "👩\u200d💻" + a(100), true},
		{"escape sequence across the bound", a(max-3) + `\u001b[31m` + a(100), true},
		{"osc unterminated before the bound", a(max-10) + `\u001b]0;` + a(100), true},
		{"invalid utf8 at the bound", a(max-1) + "\xff\xfe" + a(100), true},
		{"spaces across the bound", a(max-2) + strings.Repeat(" ", 100) + "b", true},
		{"only spaces", strings.Repeat(`\t `, max), true},
		{"cjk", strings.Repeat("日本語", 5000), true},
		{"escaped cjk", strings.Repeat(`\u65e5\u672c`, 5000), true},
		{"mixed", strings.Repeat("réécrire 日本 🚀 naïve ", 1000), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Decode(withTitle(tt.inside))
			if err != nil {
				t.Fatal(err)
			}
			whole := unquote([]byte(tt.inside))
			if got, want := SanitizeTitle(s.Title), SanitizeTitle(whole); got != want {
				t.Errorf("SanitizeTitle(Decode(x).Title) = %q\nwant SanitizeTitle(whole title) = %q", short(got), short(want))
			}
			if !strings.HasPrefix(whole, s.Title) {
				t.Errorf("the title kept, %q, does not start the whole title", short(s.Title))
			}
			if n := units(s.Title); n > max+2 {
				t.Errorf("kept %d UTF-16 units of %d, more than %d", n, units(whole), max+2)
			}
			if cut := s.Title != whole; cut != tt.cut {
				t.Errorf("cut = %v (%d of %d units), want %v", cut, units(s.Title), units(whole), tt.cut)
			}
		})
	}
}

// FuzzDecodeTitleCut checks, with small bounds, that decoding a string cut
// at max units shows as the whole string does through the sanitizer with
// the same bound.
func FuzzDecodeTitleCut(f *testing.F) {
	f.Add([]byte(`abcdef`), uint8(3))
	f.Add([]byte(`ab😀cd`), uint8(3))
	f.Add([]byte(`ab\ud83d\ude00cd`), uint8(2))
	f.Add([]byte(`ab\ud800cd`), uint8(2))
	f.Add([]byte("abe\u0301fg"), uint8(3))
	f.Add([]byte(`a\u001b[31mbcd`), uint8(4))
	f.Add([]byte("ab\xff\xfecd"), uint8(2))
	f.Add([]byte("a b  c \t d"), uint8(5))
	f.Add([]byte("👩\u200d💻👩\u200d💻"), uint8(3))
	f.Fuzz(func(t *testing.T, inside []byte, m uint8) {
		data := append(append([]byte{'"'}, inside...), '"')
		d := decoder{jsonstr.Scanner{Data: data}}
		if d.SkipString() != nil || d.Pos != len(data) {
			return // not the inside of one JSON string
		}
		max := int(m % 64)
		whole := unquote(inside)
		kept := d.StrUnits(jsonstr.Span{Start: 0, End: len(data)}, max)
		if got, want := sanitizeCap(kept, max), sanitizeCap(whole, max); got != want {
			t.Fatalf("max %d: kept %q shows as %q, the whole %q as %q", max, kept, got, whole, want)
		}
		if !strings.HasPrefix(whole, kept) {
			t.Fatalf("max %d: kept %q, not a prefix of %q", max, kept, whole)
		}
		if n := units(kept); n > max+2 {
			t.Fatalf("max %d: kept %d units of %q", max, n, whole)
		}
		if units(whole) <= max && kept != whole {
			t.Fatalf("max %d: cut %q, which fits, to %q", max, whole, kept)
		}
	})
}

func BenchmarkDecodeLongTitle(b *testing.B) {
	for _, c := range []struct{ name, title string }{
		{"ascii", strings.Repeat("refactor the parser ", 3000)},
		{"utf8", strings.Repeat("réécrire le lecteur 日本語の 🚀 ", 1500)},
		{"escapes", strings.Repeat(`a\n\"b\\`, 7500)},
	} {
		data := withTitle(c.title)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
