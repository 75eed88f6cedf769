package statusls

import (
	"strconv"
	"strings"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/render"
)

// noSessions says that the table, with filter f, has no rows: "no fresh
// sessions in DIR", "no matching sessions in DIR" (--all and a selection).
func noSessions(f *render.Filter, loc location.Location, env *cmdEnv) string {
	what := "fresh sessions"
	if f.All {
		what = "sessions"
	}
	if f.Narrowed() {
		what = "matching " + what
	}
	return "no " + what + " in " + quotePath(render.TildePath(loc.Dir, env.Getenv("HOME")))
}

// tableWidth is $COLUMNS, else the terminal's width, else 80.
func tableWidth(env *cmdEnv, termWidth int) int {
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
func useColor(when string, isTerm bool, env *cmdEnv) bool {
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
