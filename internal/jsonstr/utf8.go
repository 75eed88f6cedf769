package jsonstr

import "unicode/utf8"

// DecodeRune is utf8.DecodeRuneInString, except that an ill-formed sequence
// is consumed as one maximal subpart (Unicode's "substitution of maximal
// subparts", which Python, JavaScript's TextDecoder and the WHATWG Encoding
// standard use), so that every implementation of SPEC.md C6 puts the same
// number of U+FFFD in place of the same bytes. For an ill-formed sequence it
// returns utf8.RuneError and the length of the maximal subpart (at least 1);
// U+FFFD itself decodes as utf8.RuneError with size 3.
func DecodeRune(s string) (rune, int) {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size == 1 {
		return r, maximalSubpart(s)
	}
	return r, size
}

// maximalSubpart returns the length of the longest prefix of s that starts
// a well-formed sequence (Unicode Table 3-7) without completing it, or 1.
// s must not start with a well-formed sequence.
func maximalSubpart(s string) int {
	if len(s) == 0 {
		return 0
	}
	var lo, hi byte = 0x80, 0xbf // range of the second byte
	need := 0                    // continuation bytes the lead byte calls for
	switch c := s[0]; {
	case 0xc2 <= c && c <= 0xdf:
		need = 1
	case c == 0xe0:
		need, lo = 2, 0xa0
	case 0xe1 <= c && c <= 0xec, c == 0xee, c == 0xef:
		need = 2
	case c == 0xed:
		need, hi = 2, 0x9f
	case c == 0xf0:
		need, lo = 3, 0x90
	case 0xf1 <= c && c <= 0xf3:
		need = 3
	case c == 0xf4:
		need, hi = 3, 0x8f
	default:
		return 1
	}
	n := 1
	for n <= need && n < len(s) {
		if c := s[n]; c < lo || c > hi {
			break
		}
		lo, hi = 0x80, 0xbf
		n++
	}
	return n
}

// Shorten returns s when it is at most max bytes long, else its first keep
// bytes, less a character they would cut in two, followed by ell: how
// messages quote what they were given.
func Shorten(s string, max, keep int, ell string) string {
	if len(s) <= max {
		return s
	}
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + ell
}
