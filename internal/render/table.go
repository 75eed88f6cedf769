package render

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// TableOptions shape the terminal table.
type TableOptions struct {
	// Width is the terminal's width in columns; no line is longer.
	Width int
	// Color adds colours that follow the state.
	Color bool
	// Home, when set, is shown as ~ at the start of a cwd.
	Home string
	// Wide shows full session ids; else each is cut to its shortest
	// prefix of at least 8 characters that no other row shares (see
	// [shortIDs]).
	Wide bool
	// Hosts, when not nil, adds a HOST column after SESSION: Hosts[i] is
	// the host of entries[i] (statusls --host).
	Hosts []string
}

// The table's columns.
const (
	colState = iota
	colSession
	colHost
	colAge
	colAgent
	colCwd
	colTitle
	colWhy
	nCols
)

var headers = [nCols]string{"STATE", "SESSION", "HOST", "AGE", "AGENT", "CWD", "TITLE", "WHY"}

// Minimum widths the first shortening steps stop at.
const (
	whyKeep   = 16 // step 1 shortens the reason to no less than this
	titleKeep = 16 // step 1 shortens the title to no less than this
	cwdKeep   = 12 // step 2 shortens the cwd to no less than this
	titleMin  = 8  // step 6 shortens the title to no less than this
	gap       = 2  // spaces between columns
	hostMax   = 24 // the host column is never wider
	hostMin   = 8  // step 8 shortens the host to no less than this
)

// Colours (SGR).
const (
	sgrReset   = "\x1b[0m"
	sgrBlocked = "\x1b[1;31m" // bold red: waits for the user
	sgrWorking = "\x1b[32m"   // green
	sgrIdle    = "\x1b[34m"   // blue
	sgrOther   = "\x1b[35m"   // magenta: a state this reader does not know
	sgrStale   = "\x1b[2m"    // dim: a stale row (--all)
)

// stateColors are the SGR sequences of the known states; the others have
// sgrOther.
var stateColors = map[statusfile.State]string{statusfile.Blocked: sgrBlocked, statusfile.Working: sgrWorking, statusfile.Idle: sgrIdle}

// Table renders entries (sessions: fresh or stale) as an aligned table with
// a header, fitted to opts.Width. A stale session's age says "stale" (and,
// in colour, its row is dim). The last column, WHY, says why a session is
// in its state ([statusfile.Status.Why]: "Bash: rm -rf build",
// "cancelled"); it is left out when no row has a reason. When the full
// table is too wide, columns give way one at a time, in this fixed order,
// each step taken only while the table is still too wide:
//
//  1. the reason is shortened (with …), down to 16 columns;
//  2. the reason column is dropped;
//  3. the title is shortened (with …), down to 16 columns;
//  4. the cwd is shortened from the left (…/end), down to 12 columns;
//  5. the agent column is dropped;
//  6. the age column is dropped;
//  7. the cwd column is dropped;
//  8. the title is shortened further, down to 8 columns;
//  9. the title column is dropped;
//  10. the host column (with [TableOptions.Hosts]; at most 24 columns
//     wide) is shortened, down to 8 columns;
//  11. the session column is dropped;
//  12. the host column is dropped.
//
// The state is the last column standing; below its width every line is cut
// to the width. No line is ever longer than opts.Width, so rows never wrap.
// Widths are display widths (wide CJK and emoji count two).
func Table(entries []reader.Entry, opts TableOptions) string {
	width := opts.Width
	if width <= 0 {
		width = 80
	}
	rows := make([][nCols]string, len(entries))
	ids := shortIDs(entries, opts.Wide)
	var w [nCols]int
	anyWhy := false
	for c := range headers {
		w[c] = uniseg.StringWidth(headers[c])
	}
	for i := range entries {
		e := &entries[i]
		s := &e.Status
		r := &rows[i]
		r[colState] = statusfile.SanitizeText(string(s.State))
		r[colSession] = statusfile.SanitizeText(ids[i])
		if opts.Hosts != nil && i < len(opts.Hosts) {
			r[colHost] = statusfile.SanitizeText(opts.Hosts[i])
		}
		r[colAge] = FormatAge(e.Age)
		if e.Verdict == reader.Stale {
			r[colAge] += " stale"
		}
		r[colAgent] = statusfile.SanitizeText(s.Agent)
		r[colCwd] = statusfile.SanitizeText(TildePath(s.Cwd, opts.Home))
		r[colTitle] = statusfile.SanitizeTitle(s.Title)
		r[colWhy] = statusfile.SanitizeTitle(s.Why())
		anyWhy = anyWhy || r[colWhy] != ""
		for c := range r {
			w[c] = max(w[c], uniseg.StringWidth(r[c]))
		}
	}
	show := [nCols]bool{true, true, opts.Hosts != nil, true, true, true, true, anyWhy}
	w[colHost] = min(w[colHost], hostMax)
	total := func() int {
		t, n := 0, 0
		for c := range w {
			if show[c] {
				t += w[c]
				n++
			}
		}
		return t + gap*max(n-1, 0)
	}
	natural := w
	// The steps above, in order: shorten the column down to floor, or
	// drop it (floor 0).
	for _, st := range [...]struct{ col, floor int }{
		{colWhy, whyKeep}, {colWhy, 0}, {colTitle, titleKeep}, {colCwd, cwdKeep},
		{colAgent, 0}, {colAge, 0}, {colCwd, 0}, {colTitle, titleMin},
		{colTitle, 0}, {colHost, hostMin}, {colSession, 0}, {colHost, 0},
	} {
		excess := total() - width
		switch {
		case excess <= 0:
		case st.floor == 0:
			show[st.col] = false
		case w[st.col] > st.floor:
			w[st.col] = max(st.floor, w[st.col]-excess, uniseg.StringWidth(headers[st.col]))
		}
	}
	// Give room that dropping a column freed back to the shortened title,
	// then to the cwd.
	for _, c := range []int{colTitle, colCwd} {
		if slack := width - total(); slack > 0 && show[c] && w[c] < natural[c] {
			w[c] = min(natural[c], w[c]+slack)
		}
	}

	var b strings.Builder
	line := func(cells [nCols]string, color string, stale bool) {
		var l strings.Builder
		for c, cell := range cells {
			if !show[c] {
				continue
			}
			if c != colState { // the first column, never dropped
				l.WriteString(strings.Repeat(" ", gap))
			}
			if c == colCwd {
				cell = TruncateLeft(cell, w[c])
			} else {
				cell = Truncate(cell, w[c])
			}
			pad := strings.Repeat(" ", w[c]-uniseg.StringWidth(cell))
			if c == colState && color != "" {
				cell = color + cell + sgrReset
			}
			l.WriteString(cell + pad) // the last column's padding is trimmed below
		}
		text := strings.TrimRight(l.String(), " ")
		if total() > width { // the state alone, wider than the line: cut, in its colour
			if color == "" {
				text = cut(strings.TrimRight(cells[colState], " "), width)
			} else {
				text = color + cut(cells[colState], width) + sgrReset
			}
		}
		if stale && opts.Color {
			text = sgrStale + strings.ReplaceAll(text, sgrReset, sgrReset+sgrStale) + sgrReset
		}
		b.WriteString(text)
		b.WriteByte('\n')
	}
	line(headers, "", false)
	for i, r := range rows {
		color := ""
		if opts.Color {
			color = cmp.Or(stateColors[entries[i].Status.State], sgrOther)
		}
		line(r, color, entries[i].Verdict == reader.Stale)
	}
	return b.String()
}

// shortID is the shortest prefix a session id is cut to in the table.
const shortID = 8

// shortIDs returns, for each entry, its session id; unless wide, cut to
// the shortest prefix of at least 8 characters (bytes) that is not a
// prefix of another entry's id, with "…" when it was cut. An id that is a
// prefix of another stays whole.
func shortIDs(entries []reader.Entry, wide bool) []string {
	ids := make([]string, len(entries))
	for i := range entries {
		ids[i] = entries[i].Status.Session
	}
	if wide {
		return ids
	}
	sorted := slices.Sorted(slices.Values(ids))
	for i, id := range ids {
		// The neighbours in sorted order share the longest prefixes.
		j, _ := slices.BinarySearch(sorted, id)
		n := shortID
		for _, k := range []int{j - 1, j + 1} {
			if k >= 0 && k < len(sorted) && sorted[k] != id {
				n = max(n, commonPrefix(id, sorted[k])+1)
			}
		}
		if n+1 >= len(id) {
			continue // cutting would not make it shorter
		}
		// Cut on a character boundary.
		for n < len(id) && !utf8.RuneStart(id[n]) {
			n++
		}
		if n < len(id) {
			ids[i] = id[:n] + "…"
		}
	}
	return ids
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Truncate shortens s to at most width display columns, ending it with …
// when it had to be cut. It cuts between grapheme clusters.
func Truncate(s string, width int) string {
	if uniseg.StringWidth(s) <= width {
		return s
	}
	if width <= 0 {
		return ""
	}
	return strings.TrimRight(cut(s, width-1), " ") + "…"
}

// cut returns the longest start of s, in whole grapheme clusters, that is
// at most width display columns wide.
func cut(s string, width int) string {
	n, used, state := 0, 0, -1
	for n < len(s) {
		_, rest, cw, st := uniseg.FirstGraphemeClusterInString(s[n:], state)
		if used+cw > width {
			break
		}
		n, used, state = len(s)-len(rest), used+cw, st
	}
	return s[:n]
}

// TruncateLeft shortens s to at most width display columns by cutting its
// start, which it replaces with …: the end of a path says most.
func TruncateLeft(s string, width int) string {
	total := uniseg.StringWidth(s)
	if total <= width {
		return s
	}
	if width <= 0 {
		return ""
	}
	// Drop clusters from the start until the rest fits beside the "…".
	state := -1
	for len(s) > 0 && total > width-1 {
		var cw int
		_, s, cw, state = uniseg.FirstGraphemeClusterInString(s, state)
		total -= cw
	}
	return "…" + s
}

// TildePath shows home (and paths below it) as ~.
func TildePath(path, home string) string {
	if home == "" || home == "/" || path == "" {
		return path
	}
	if rest, ok := strings.CutPrefix(path, strings.TrimRight(home, "/")); ok && (rest == "" || rest[0] == '/') {
		return "~" + rest
	}
	return path
}

// FormatAge formats an age for the table: 12s, 5m, 3h, 2d. A record a little
// in the future (clock skew within the 30 s tolerance) shows 0s; one further
// ahead shows "in 1h".
func FormatAge(age time.Duration) string {
	if age < 0 {
		if age >= -statusfile.StaleAfter {
			return "0s"
		}
		return "in " + FormatAge(-age)
	}
	switch {
	case age < time.Minute:
		return strconv.Itoa(int(age/time.Second)) + "s"
	case age < time.Hour:
		return strconv.Itoa(int(age/time.Minute)) + "m"
	case age < 48*time.Hour:
		return strconv.Itoa(int(age/time.Hour)) + "h"
	}
	return strconv.Itoa(int(age/(24*time.Hour))) + "d"
}
