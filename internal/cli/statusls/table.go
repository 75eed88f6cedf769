package statusls

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
)

// writeTable prints entries as the table, or, when there are none, a notice
// on stderr (a terminal or --table only: scripts get empty output).
func writeTable(out io.Writer, entries []reader.Entry, o *listOptions, l *reader.Listing, loc location.Location, isTerm bool, termWidth int, env *Env) {
	if len(entries) == 0 {
		// A notice, not data: on stderr, so that stdout stays empty.
		if isTerm || o.mode == "table" {
			what := "fresh sessions"
			if o.all {
				what = "sessions"
			}
			if o.filter.Narrowed() {
				what = "matching " + what
			}
			fmt.Fprintf(env.Stderr, "statusls: no %s in %s\n", what, quotePath(render.TildePath(loc.Dir, env.Getenv("HOME"))))
			if l.Missing {
				fmt.Fprintln(env.Stderr, "statusls: hint: the directory does not exist yet; run 'statusls doctor' if you expected sessions")
			}
		}
		return
	}
	io.WriteString(out, render.Table(entries, render.TableOptions{
		Width: tableWidth(env, termWidth),
		Color: useColor(o.color, isTerm, env),
		Home:  env.Getenv("HOME"),
		Wide:  o.wide,
	}))
}

// tableWidth is $COLUMNS, else the terminal's width, else 80.
func tableWidth(env *Env, termWidth int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(env.Getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if termWidth > 0 {
		return termWidth
	}
	return 80
}

// useColor decides --color. auto colours a terminal unless NO_COLOR is set
// to anything non-empty (no-color.org) or TERM is dumb; CLICOLOR_FORCE or
// FORCE_COLOR, set to anything but "" and "0", colour off a terminal too
// (bixense.com/clicolors, force-color.org). NO_COLOR wins over them, and
// --color always or never over all.
func useColor(when string, isTerm bool, env *Env) bool {
	switch when {
	case "always":
		return true
	case "never":
		return false
	}
	if env.Getenv("NO_COLOR") != "" {
		return false
	}
	for _, v := range []string{"CLICOLOR_FORCE", "FORCE_COLOR"} {
		if x := env.Getenv(v); x != "" && x != "0" {
			return true
		}
	}
	return isTerm && env.Getenv("TERM") != "dumb"
}
