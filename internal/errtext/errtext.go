// Package errtext turns the module's errors into the text a user reads:
// one line, without the package prefixes ("statusfile: ", "perm: ") that
// Go callers get. The commands and the JSON they print use it.
package errtext

import "strings"

// packagePrefixes are the package names that the module's errors start
// with, for Go callers.
var packagePrefixes = []string{"statusfile: ", "perm: ", "reader: ", "watch: ", "location: ", "statuspub: ", "hooksession: ", "statusls: ", "conformance: ",
	"agenthook: ", "agentinstall: ", "codexconfig: "}

// Message is err's text as a user reads it: one line (line breaks become
// spaces), without the package prefixes of the module's errors, wherever
// the wrapping put them.
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
