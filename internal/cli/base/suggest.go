package base

import "strings"

// Suggest returns the candidate closest to s, if one is close enough to be
// what was meant ("" otherwise): a case-insensitive match, a unique prefix,
// or one within an edit distance of one per three letters (at least one).
func Suggest(s string, candidates []string) string {
	if s == "" {
		return ""
	}
	lower := toLower(s)
	var prefixed []string
	best, bestDist := "", max(1, len(s)/3)+1 // the first closest within the limit
	for _, c := range candidates {
		lc := toLower(c)
		if lc == lower {
			return c
		}
		if len(s) >= 2 && len(c) > len(s) && strings.HasPrefix(lc, lower) {
			prefixed = append(prefixed, c)
		}
		if d := distance(lower, lc); d < bestDist {
			best, bestDist = c, d
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return best
}

func toLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// distance is the Damerau-Levenshtein distance (with adjacent
// transpositions) between a and b, bytewise.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 30
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
