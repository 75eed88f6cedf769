// Package hostname checks the names of the machines statusls reaches
// through ssh (package remote, and statusls's --host flag and hosts file):
// a name is one argv element after "--", and it must not be one that ssh
// or a remote shell could misread.
package hostname

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxHostLen bounds a host name (ssh itself refuses longer ones).
const maxHostLen = 255

// errBad is returned for a host name Check refuses. Its text is worded for
// the message statusls prints, after the flag or file it came from: no
// package prefix.
var errBad = errors.New("bad host name")

// Check refuses host names that ssh could misread: empty ones, those
// starting with "-" (an option to ssh), and those holding white space,
// control or invisible characters, shell quotes or separators, or more
// than 255 bytes. A name may be an ssh_config alias, a host name or
// address, or user@host.
func Check(h string) error {
	switch {
	case h == "":
		return fmt.Errorf("%w: empty", errBad)
	case strings.HasPrefix(h, "-"):
		return fmt.Errorf("%w: %q starts with '-', which ssh would take for an option", errBad, h)
	case len(h) > maxHostLen:
		return fmt.Errorf("%w: longer than %d bytes", errBad, maxHostLen)
	case !utf8.ValidString(h):
		// Ranging over h would turn each invalid byte (such as 0x9b, the
		// C1 CSI byte) into U+FFFD, which counts as graphic.
		return fmt.Errorf("%w: %q is not valid UTF-8", errBad, h)
	}
	for _, r := range h {
		if unicode.IsSpace(r) || !unicode.IsGraphic(r) || r == '\'' || r == '"' || r == '\\' || r == '`' || r == '$' || r == ';' || r == '|' || r == '&' {
			return fmt.Errorf("%w: %q holds a character ssh host names never do", errBad, h)
		}
	}
	return nil
}
