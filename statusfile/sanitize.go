package statusfile

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentstatus/agentstatus/internal/jsonstr"
	"github.com/rivo/uniseg"
)

// SanitizeTitle returns the title as SPEC.md says a publisher writes it and a
// reader displays it. It looks at the first 4096 UTF-16 code units
// of raw; removes whole terminal escape sequences (CSI, OSC, DCS, SOS, PM,
// APC and other ESC sequences, in their 7-bit and 8-bit forms; an
// unterminated sequence removes the rest of the text); turns C0 and C1
// controls, line and paragraph separators, zero-width and invisible
// formatting characters and bidi controls into spaces; collapses white space
// into single spaces and trims it; and, when raw was cut, drops the last
// grapheme cluster so that no partial one survives. An empty result means no
// task ("task": null).
//
// The result is valid UTF-8 (invalid bytes in raw become U+FFFD), and
// SanitizeTitle(SanitizeTitle(s)) == SanitizeTitle(s).
func SanitizeTitle(raw string) string {
	return sanitizeCap(raw, maxTitleUnits)
}

// sanitizeCap is SanitizeTitle with max UTF-16 code units in place of
// maxTitleUnits.
func sanitizeCap(raw string, max int) string {
	if len(raw) <= max && (raw == "" || raw[0] != ' ' && raw[len(raw)-1] != ' ' && isPlainRun(raw)) {
		return raw // printable ASCII with single inner spaces: its own sanitized form
	}
	if max > 0 && len(raw) > max && raw[0] != ' ' && isPlainRun(raw[:max]) {
		// Cut in plain ASCII, one code unit a byte: the cut text less its
		// trailing space, its last character (a cluster of its own
		// between ASCII characters), and the space that may precede it.
		t := strings.TrimSuffix(raw[:max], " ")
		return strings.TrimSuffix(t[:len(t)-1], " ")
	}
	return sanitizeCut(raw, max)
}

// sanitizeCut is sanitizeCap without its shortcuts for plain ASCII.
func sanitizeCut(raw string, max int) string {
	text, cut, halfDropped := cutUTF16(raw, max)
	out := sanitize(make([]byte, 0, len(text)), text, true)
	if cut && !halfDropped {
		// A lone surrogate left by the cut is itself the last cluster: it
		// was dropped by cutUTF16. Otherwise drop the last cluster here.
		out = bytes.TrimRight(dropLastCluster(out), " ")
	}
	return string(out)
}

// SanitizeText makes any other field of a record safe to display: escape
// sequences are removed and every character SanitizeTitle turns into a space
// becomes one space, but spacing is otherwise kept and nothing is cut. Use it
// for agent, session, state and cwd.
func SanitizeText(s string) string {
	if isPlainText(s) {
		return s
	}
	return string(sanitize(make([]byte, 0, len(s)), s, false))
}

// isPlainRun reports whether s is printable ASCII without two spaces in a
// row.
func isPlainRun(s string) bool { return isPlainText(s) && !strings.Contains(s, "  ") }

// isPlainText reports whether s is printable ASCII.
func isPlainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// cutUTF16 returns the longest prefix of s that fits in max UTF-16 code
// units, whether s was longer, and whether the cut fell inside a surrogate
// pair (the lone half is then left out).
func cutUTF16(s string, max int) (prefix string, cut, halfDropped bool) {
	if len(s) <= max {
		return s, false, false // every byte is at most one unit
	}
	units := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf { // one unit
			if units == max {
				return s[:i], true, false
			}
			units++
			i++
			continue
		}
		r, size := jsonstr.DecodeRune(s[i:])
		n := 1
		if r >= 0x10000 {
			n = 2
		}
		if units+n > max {
			return s[:i], true, units+1 == max
		}
		units += n
		i += size
	}
	return s, false, false
}

// Escape-sequence scanner states.
const (
	stText      = iota
	stEsc       // after ESC
	stEscInter  // ESC followed by intermediate bytes
	stCSIParam  // CSI parameter bytes
	stCSIInter  // CSI intermediate bytes
	stString    // OSC: ends at BEL or ST
	stCtrlStr   // DCS, SOS, PM, APC: end at ST
	stStringEsc // ESC inside a string: ST if followed by '\'
)

// sanitize appends the sanitized form of s to out. When collapse is set, runs
// of white space become one space and the result is trimmed (titles);
// otherwise every removed character becomes exactly one space.
func sanitize(out []byte, s string, collapse bool) []byte {
	state := stText
	strKind := stString
	pendingSpace := false
	emit := func(r rune) {
		if collapse {
			if r == ' ' {
				pendingSpace = len(out) > 0
				return
			}
			if pendingSpace {
				out = append(out, ' ')
				pendingSpace = false
			}
		}
		out = utf8.AppendRune(out, r)
	}
	for i := 0; i < len(s); {
		if state == stText {
			// A run of printable ASCII other than the space is text as
			// it is.
			j := i
			for j < len(s) && 0x20 < s[j] && s[j] < 0x7f {
				j++
			}
			if j > i {
				if pendingSpace {
					out = append(out, ' ')
					pendingSpace = false
				}
				out = append(out, s[i:j]...)
				i = j
				continue
			}
		}
		r, size := jsonstr.DecodeRune(s[i:])
		switch state {
		case stText:
			switch r {
			case 0x1b:
				state = stEsc
			case 0x9b: // CSI
				state = stCSIParam
			case 0x9d: // OSC
				state, strKind = stString, stString
			case 0x90, 0x98, 0x9e, 0x9f: // DCS, SOS, PM, APC
				state, strKind = stCtrlStr, stCtrlStr
			default:
				if toSpace(r) {
					emit(' ')
				} else {
					emit(r)
				}
			}
		case stEsc:
			switch {
			case r == '[':
				state = stCSIParam
			case r == ']':
				state, strKind = stString, stString
			case r == 'P' || r == 'X' || r == '^' || r == '_':
				state, strKind = stCtrlStr, stCtrlStr
			case 0x20 <= r && r <= 0x2f:
				state = stEscInter
			case 0x30 <= r && r <= 0x7e:
				state = stText // a two-character sequence, removed
			default:
				// Not a sequence: the ESC alone is removed and r is
				// looked at again as text.
				state = stText
				continue
			}
		case stEscInter:
			switch {
			case 0x20 <= r && r <= 0x2f:
			case 0x30 <= r && r <= 0x7e:
				state = stText
			default:
				state = stText
				continue
			}
		case stCSIParam, stCSIInter:
			switch {
			case 0x30 <= r && r <= 0x3f && state == stCSIParam:
			case 0x20 <= r && r <= 0x2f:
				state = stCSIInter
			case 0x40 <= r && r <= 0x7e:
				state = stText // final byte: the whole sequence is removed
			default:
				// Malformed: what was read is removed, r is text again.
				state = stText
				continue
			}
		case stString, stCtrlStr:
			switch {
			case r == 0x1b:
				state = stStringEsc
			case r == 0x9c:
				state = stText
			case r == 0x07 && state == stString:
				state = stText
			}
		case stStringEsc:
			switch r {
			case '\\':
				state = stText
			case 0x1b:
			default:
				// Not ST: r belongs to the string (and may end it).
				state = strKind
				continue
			}
		}
		i += size
	}
	// Whatever sequence is still open at the end is unterminated: the rest
	// of the text has been removed. A pending space is a trailing one.
	return out
}

// toSpace reports whether r is shown as a space: C0 and C1 controls, DEL,
// white space, line and paragraph separators, zero-width space and
// non-joiner, the BOM, U+2060–U+206F (word joiner, invisible operators,
// isolates) and every bidi control. ZWJ (U+200D) and variation selectors are
// kept: emoji need them.
func toSpace(r rune) bool {
	if r < 0x80 {
		return r < 0x20 || r == 0x7f || r == ' '
	}
	switch {
	case r <= 0x9f: // C1
		return true
	case r == 0x061c, // ARABIC LETTER MARK
		r == 0x200b, r == 0x200c, // ZWSP, ZWNJ
		r == 0x200e, r == 0x200f, // LRM, RLM
		r == 0x2028, r == 0x2029,
		0x202a <= r && r <= 0x202e, // embeddings and overrides
		0x2060 <= r && r <= 0x206f, // word joiner, invisible operators, isolates
		r == 0xfeff:
		return true
	}
	return unicode.IsSpace(r)
}

// isControl reports whether r is a C0 or C1 control character or DEL.
func isControl(r rune) bool {
	return r < 0x20 || 0x7f <= r && r <= 0x9f
}

// dropLastCluster removes the last extended grapheme cluster of b.
func dropLastCluster(b []byte) []byte {
	// Between two ASCII characters there is always a cluster boundary (b
	// holds no CR or LF), so segmentation can start at the last such pair
	// instead of at the beginning.
	from := 0
	for i := len(b) - 1; i > 0; i-- {
		if b[i] < utf8.RuneSelf && b[i-1] < utf8.RuneSelf {
			from = i
			break
		}
	}
	last := from
	state := -1
	for rest := b[from:]; len(rest) > 0; {
		var c []byte
		c, rest, _, state = uniseg.Step(rest, state)
		last = len(b) - len(rest) - len(c)
	}
	return b[:last]
}
