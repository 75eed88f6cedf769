// Package shquote quotes words for a POSIX shell, for the command lines
// the tools print as hints or write into agents' hook settings.
package shquote

import "strings"

// safe reports whether c needs no quoting anywhere in a word. '~' is left
// out (a leading one expands to a home directory), and so are '*', '?',
// '[' (patterns), '!' and every shell operator.
func safe(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("/._-+:,@=%", c) >= 0
}

// Quote returns s as one shell word that the shell reads back as exactly
// s: s itself when every byte is safe, else s in single quotes, with each
// single quote written as '\”.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	for i := 0; i < len(s); i++ {
		if !safe(s[i]) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// Join quotes each word and joins them with spaces.
func Join(words ...string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Quote(w)
	}
	return strings.Join(out, " ")
}

// Hint encloses a command line in the quotes of a hint: 'cmd', or "cmd"
// when cmd holds a single quote (a word Quote quoted), so that a hint
// pasted with its quotes runs nothing but a command that is not found.
// cmd must hold no ", $, ` or \ (host names that reach hints hold none).
func Hint(cmd string) string {
	if strings.Contains(cmd, "'") {
		return `"` + cmd + `"`
	}
	return "'" + cmd + "'"
}
