package conformance

import (
	"regexp"
	"strings"
)

// Selector picks cases and checks by id with shell-like globs: "*" matches
// any run of characters, "/" included, and "?" any one character. An empty
// selector selects everything.
type Selector []string

// Match reports whether id is selected.
func (s Selector) Match(id string) bool {
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

// matchAny is Match for a list that selects nothing when empty.
func (s Selector) matchAny(id string) bool {
	return len(s) > 0 && s.Match(id)
}

// first returns the first glob of s that matches id.
func (s Selector) first(id string) string {
	for _, g := range s {
		if (Selector{g}).Match(id) {
			return g
		}
	}
	return ""
}
