package base

import "strings"

// packagePrefixes are the package names that the module's errors start
// with, for Go callers; a user reading a command's message does not need
// them.
var packagePrefixes = []string{"statusfile: ", "perm: ", "reader: ", "watch: ", "location: ", "statuspub: ", "statusls: ", "conformance: "}

// Message is err's text as a command shows it: one line (line breaks
// become spaces), without the package prefixes of the module's errors,
// wherever the wrapping put them.
func Message(err error) string {
	s := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(err.Error())
	for {
		cut := false
		for _, p := range packagePrefixes {
			if strings.HasPrefix(s, p) {
				s, cut = s[len(p):], true
			}
			if i := strings.Index(s, ": "+p); i >= 0 {
				s, cut = s[:i+2]+s[i+2+len(p):], true
			}
		}
		if !cut {
			return s
		}
	}
}
