package remote

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxHostLen bounds a host name (ssh itself refuses longer ones).
const maxHostLen = 255

// errBadHost is returned for a host name this package refuses. Its text,
// like that of the package's other errors, is worded for the message
// statusls prints, after the flag or file it came from: no package prefix.
var errBadHost = errors.New("bad host name")

// CheckHost refuses host names that ssh could misread: empty ones, those
// starting with "-" (an option to ssh), and those holding white space,
// control or invisible characters, or more than 255 bytes. A name may be
// an ssh_config alias, a host name or address, or user@host.
func CheckHost(h string) error {
	switch {
	case h == "":
		return fmt.Errorf("%w: empty", errBadHost)
	case strings.HasPrefix(h, "-"):
		return fmt.Errorf("%w: %q starts with '-', which ssh would take for an option", errBadHost, h)
	case len(h) > maxHostLen:
		return fmt.Errorf("%w: longer than %d bytes", errBadHost, maxHostLen)
	case !utf8.ValidString(h):
		// Ranging over h would turn each invalid byte (such as 0x9b, the
		// C1 CSI byte) into U+FFFD, which counts as graphic.
		return fmt.Errorf("%w: %q is not valid UTF-8", errBadHost, h)
	}
	for _, r := range h {
		if unicode.IsSpace(r) || !unicode.IsGraphic(r) || r == '\'' || r == '"' || r == '\\' || r == '`' || r == '$' || r == ';' || r == '|' || r == '&' {
			return fmt.Errorf("%w: %q holds a character ssh host names never do", errBadHost, h)
		}
	}
	return nil
}
