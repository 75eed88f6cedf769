package conformance

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// selector picks cases and checks by id with shell-like globs: "*" matches
// any run of characters, "/" included, and "?" any one character. An empty
// selector selects everything.
type selector []string

// match reports whether id is selected.
func (s selector) match(id string) bool {
	return len(s) == 0 || slices.ContainsFunc(s, func(g string) bool { return globRegexp(g).MatchString(id) })
}

// globRegexp turns a glob into an anchored regular expression: quoted,
// then the quoted "*" and "?" made wildcards again.
func globRegexp(g string) *regexp.Regexp {
	return regexp.MustCompile("^" + globWildcards.Replace(regexp.QuoteMeta(g)) + "$")
}

var globWildcards = strings.NewReplacer(`\*`, ".*", `\?`, ".")

// first returns the first glob of s that matches id, or "" (none, or s
// empty).
func (s selector) first(id string) string {
	if i := slices.IndexFunc(s, func(g string) bool { return globRegexp(g).MatchString(id) }); i >= 0 {
		return s[i]
	}
	return ""
}

// ReadExpectedFailures reads an expected-failures file: one id or glob
// per line (as --run takes them); blank lines and lines starting with #
// are ignored, and so is anything after " #" on a line. An
// implementation keeps its known gaps there so that it can run the suite
// in CI, giving them as [Options].ExpectedFailures: the run then fails only
// on a new failure (a regression) or on an expected failure that now
// passes (the file is out of date).
func ReadExpectedFailures(r io.Reader) ([]string, error) {
	var sel []string
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), " #")
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.ContainsAny(line, " \t") {
			return nil, fmt.Errorf("line %d: %q is not one id or glob", n, line)
		}
		sel = append(sel, line)
	}
	return sel, sc.Err()
}

// applyExpectedFailures marks the results that expected says are known
// failures: a FAIL among them no longer fails the run, and a PASS among
// them does (the expectation is out of date). Globs that match no result
// go to r.UnusedExpectedFailures, so that a stale file can be reported.
func (r *Report) applyExpectedFailures(expected []string) {
	used := map[string]bool{}
	for i := range r.Results {
		x := &r.Results[i]
		for _, g := range expected {
			if globRegexp(g).MatchString(x.ID) {
				used[g] = true
				x.ExpectedFailure = x.Outcome != outcomeSkip
			}
		}
	}
	for _, g := range expected {
		if !used[g] {
			r.UnusedExpectedFailures = append(r.UnusedExpectedFailures, g)
		}
	}
	r.count()
}
