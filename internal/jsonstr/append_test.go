package jsonstr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppend(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`"q"\`, `"\"q\"\\"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1b\x1f", `"\u0000\u0001\u001b\u001f"`},
		{"\x7f", "\"\x7f\""},                 // DEL: not escaped by JSON.stringify
		{"<a&b>/", `"<a&b>/"`},               // no HTML escaping, no "\/"
		{"\u2028\u2029", "\"\u2028\u2029\""}, // not escaped
		{"\u0080\u009f", "\"\u0080\u009f\""}, // C1: valid UTF-8, written as is
		{"é😀", `"é😀"`},
		{"\ufffd", "\"\ufffd\""},
		{"a\xffb", "\"a\ufffdb\""},
		{"a\xe2\x82b", "\"a\ufffdb\""},                 // one maximal subpart
		{"a\xed\xa0\x80b", "\"a\ufffd\ufffd\ufffdb\""}, // a UTF-8 surrogate: three
		{"\xf0\x9f\x98", "\"\ufffd\""},                 // truncated at the end
	}
	for _, tt := range tests {
		if got := string(Append(nil, tt.in)); got != tt.want {
			t.Errorf("Append(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := string(Append([]byte("x:"), "y")); got != `x:"y"` {
		t.Errorf("Append does not append: %s", got)
	}
}

// encodingJSON is what encoding/json writes for s, without HTML escaping.
// It differs from JSON.stringify only on U+2028 and U+2029, which it
// escapes; the caller leaves them out.
func encodingJSON(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// FuzzAppend checks Append against encoding/json, which since Go 1.22
// escapes exactly as JSON.stringify does, except for U+2028 and U+2029;
// and, for any input, that the result is valid JSON and valid UTF-8 that
// decodes to the input with ill-formed sequences replaced.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\\b\f\n\r\t\x00\x1f\x7f", "<&>", "\u2028", "é😀", "a\xffb", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\ufffd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Append(nil, s)
		if !utf8.Valid(got) {
			t.Fatalf("Append(%q) = %q: not valid UTF-8", s, got)
		}
		for _, c := range got {
			if c < 0x20 {
				t.Fatalf("Append(%q) = %q: raw control byte %#x", s, got, c)
			}
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("Append(%q) = %q: not a JSON string: %v", s, got, err)
		}
		// The replacement rule, applied independently of Append.
		var want strings.Builder
		for i := 0; i < len(s); {
			r, size := DecodeRune(s[i:])
			if size < 1 || i+size > len(s) {
				t.Fatalf("DecodeRune(%q) size %d", s[i:], size)
			}
			if r == utf8.RuneError {
				want.WriteString("\ufffd")
			} else {
				want.WriteString(s[i : i+size])
			}
			i += size
		}
		if back != want.String() {
			t.Fatalf("Append(%q) = %q decodes to %q, want %q", s, got, back, want.String())
		}
		if utf8.ValidString(s) && !strings.ContainsAny(s, "\u2028\u2029") {
			if ref := encodingJSON(t, s); !bytes.Equal(got, ref) {
				t.Fatalf("Append(%q) = %s, encoding/json writes %s", s, got, ref)
			}
		}
	})
}

func TestDecodeRuneMaximalSubparts(t *testing.T) {
	tests := []struct {
		in   string
		r    rune
		size int
	}{
		{"a", 'a', 1},
		{"é", 'é', 2},
		{"\ufffd", utf8.RuneError, 3},
		{"\xff", utf8.RuneError, 1},
		{"\xe2\x82", utf8.RuneError, 2},
		{"\xe2\x82b", utf8.RuneError, 2},
		{"\xf0\x9f\x98", utf8.RuneError, 3},
		{"\xe0\x80", utf8.RuneError, 1}, // E0 must be followed by A0–BF
		{"\xed\xa0\x80", utf8.RuneError, 1},
		{"\xf4\x90", utf8.RuneError, 1}, // above U+10FFFF
		{"\xc0\xaf", utf8.RuneError, 1}, // overlong
	}
	for _, tt := range tests {
		r, size := DecodeRune(tt.in)
		if r != tt.r || size != tt.size {
			t.Errorf("DecodeRune(%q) = %U, %d; want %U, %d", tt.in, r, size, tt.r, tt.size)
		}
	}
}

func TestShorten(t *testing.T) {
	for _, c := range []struct {
		s         string
		max, keep int
		ell, want string
	}{
		{"abc", 3, 2, "...", "abc"},
		{"abcd", 3, 2, "...", "ab..."},
		{"aé", 2, 2, "…", "a…"}, // é is not cut in two
		{"éé", 3, 1, "…", "…"},
	} {
		if got := Shorten(c.s, c.max, c.keep, c.ell); got != c.want {
			t.Errorf("Shorten(%q, %d, %d, %q) = %q, want %q", c.s, c.max, c.keep, c.ell, got, c.want)
		}
	}
}
