package jsonstr

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// shortEscape is the letter after the backslash of the characters that
// have a short escape.
var shortEscape = [128]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

// Append appends s to dst as a JSON string, quotes included, escaped as
// JSON.stringify escapes it (SPEC.md E2): '"' and '\' with a backslash;
// \b, \f, \n, \r and \t in short form; the other characters below U+0020
// as \u00XX with lowercase hex digits; nothing else. DEL, '<', '>', '&',
// U+2028 and U+2029 are written as they are. Every maximal subpart of an
// ill-formed UTF-8 sequence becomes one U+FFFD (see [DecodeRune]), so the
// result is always valid UTF-8.
func Append(dst []byte, s string) []byte { return appendString(dst, s, false) }

// AppendJQ appends s as the jq command line writes a string (gojq.Marshal):
// as [Append] does, but DEL is escaped too, and each byte of invalid UTF-8
// becomes the escape \ufffd.
func AppendJQ(dst []byte, s string) []byte { return appendString(dst, s, true) }

func appendString(dst []byte, s string, jq bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (c != 0x7f || !jq) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			if e := shortEscape[c]; e != 0 {
				dst = append(dst, '\\', e)
			} else {
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 && !jq {
			size = maximalSubpart(s[i:])
		}
		if r == utf8.RuneError && s[i:i+size] != "\ufffd" { // ill-formed
			dst = append(dst, s[start:i]...)
			if jq {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, "\ufffd"...)
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
