package conformance

import (
	"regexp"
	"strings"
)

// selector picks cases and checks by id with shell-like globs: "*" matches
// any run of characters, "/" included, and "?" any one character. An empty
// selector selects everything.
type selector []string

// match reports whether id is selected.
func (s selector) match(id string) bool {
	if len(s) == 0 {
		return true
	}
	for _, g := range s {
		if globRegexp(g).MatchString(id) {
			return true
		}
	}
	return false
}

func globRegexp(g string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for _, r := range g {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// matchAny is match for a list that selects nothing when empty.
func (s selector) matchAny(id string) bool {
	return len(s) > 0 && s.match(id)
}

// first returns the first glob of s that matches id.
func (s selector) first(id string) string {
	for _, g := range s {
		if (selector{g}).match(id) {
			return g
		}
	}
	return ""
}
