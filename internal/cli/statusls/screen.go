package statusls

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
)

// Terminal control sequences of the watch table (xterm, VT100).
const (
	seqEnter     = "\x1b[?1049h\x1b[?25l" // the alternate screen, cursor hidden
	seqLeave     = "\x1b[?25h\x1b[?1049l" // cursor shown, the normal screen back
	seqHome      = "\x1b[H"               // cursor to the top left corner
	seqEraseLine = "\x1b[K"               // erase to the end of the line
	seqEraseDown = "\x1b[J"               // erase to the end of the screen
)

// messageTTL is how long the table shows a message (an error, a failed
// --exec command).
const messageTTL = 10 * time.Second

// tableScreen draws the watch table in place on a terminal: on the
// alternate screen, as full-screen programs do, so that the shell's screen
// comes back as it was when watch ends.
type tableScreen struct {
	out         io.Writer
	env         *cmdEnv
	o           *watchOptions
	loc         location.Location
	width, rows int
	color       bool
	missing     bool // the directory did not exist at start, and no session came since

	started bool
	last    string // what the screen shows
	msgs    []screenMessage
}

type screenMessage struct {
	text  string
	until time.Time
}

func newTableScreen(env *cmdEnv, o *watchOptions, loc location.Location, termWidth int) *tableScreen {
	t := &tableScreen{out: env.Stdout, env: env, o: o, loc: loc, color: useColor(o.color, true, env)}
	t.size(termWidth)
	return t
}

// size takes in the terminal's size: $COLUMNS and $LINES first, as for
// statusls.
func (t *tableScreen) size(termWidth int) {
	t.width = tableWidth(t.env, termWidth)
	t.rows = t.env.Rows()
	if n, err := strconv.Atoi(strings.TrimSpace(t.env.Getenv("LINES"))); err == nil && n > 0 {
		t.rows = n
	}
}

// resize asks the terminal for its size again (after SIGWINCH).
func (t *tableScreen) resize() {
	_, w := t.env.Terminal()
	t.size(w)
	t.last = "" // redraw everything
}

func (t *tableScreen) begin() error {
	_, err := io.WriteString(t.out, seqEnter)
	t.started = err == nil
	return err
}

// end gives the terminal back as it was. It may be called more than once.
func (t *tableScreen) end() {
	if t.started {
		t.started = false
		io.WriteString(t.out, seqLeave)
	}
}

// message shows msg under the table for a while.
func (t *tableScreen) message(msg string, now time.Time) {
	t.msgs = append(t.msgs, screenMessage{"statusls: " + msg, now.Add(messageTTL)})
	if len(t.msgs) > 3 {
		t.msgs = slices.Delete(t.msgs, 0, len(t.msgs)-3)
	}
}

// draw shows the view as at now, unless the screen shows exactly that
// already.
func (t *tableScreen) draw(v *view, now time.Time) error {
	t.msgs = slices.DeleteFunc(t.msgs, func(m screenMessage) bool { return !now.Before(m.until) })
	entries := make([]reader.Entry, 0, len(v.shown))
	for _, e := range v.shown {
		c := *e
		c.Age = now.Sub(c.Status.UpdatedAt)
		entries = append(entries, c)
	}
	slices.SortFunc(entries, func(a, b reader.Entry) int { return cmp.Compare(a.Name, b.Name) })
	render.Sort(entries, render.ByAttention)

	// Never more lines than the terminal has, less one: the newline after
	// the last would scroll the screen.
	budget := 0
	if t.rows > 1 {
		budget = t.rows - 1
	}
	var lines []string
	if len(entries) == 0 {
		what := "fresh sessions"
		if t.o.all {
			what = "sessions"
		}
		if t.o.filter.Narrowed() {
			what = "matching " + what
		}
		lines = append(lines, fmt.Sprintf("no %s in %s", what, quotePath(render.TildePath(t.loc.Dir, t.env.Getenv("HOME")))))
		if t.missing {
			lines = append(lines, "(the directory does not exist yet; waiting for it)")
		}
	} else {
		shown, more := len(entries), 0
		if budget > 0 {
			if room := budget - 1 - len(t.msgs); shown > room {
				shown = max(room-1, 0)
				more = len(entries) - shown
			}
		}
		table := render.Table(entries[:shown], render.TableOptions{Width: t.width, Color: t.color, Home: t.env.Getenv("HOME"), Wide: t.o.wide})
		lines = strings.Split(strings.TrimSuffix(table, "\n"), "\n")
		if more > 0 {
			lines = append(lines, fmt.Sprintf("… %d more", more))
		}
	}
	return t.show(lines, budget)
}

// show puts lines, then the messages, on the screen, in at most budget
// lines (0: no limit), unless the screen shows exactly that already.
func (t *tableScreen) show(lines []string, budget int) error {
	for _, m := range t.msgs {
		lines = append(lines, m.text)
	}
	if budget > 0 && len(lines) > budget {
		lines = lines[:budget]
	}
	var b strings.Builder
	b.WriteString(seqHome)
	for _, l := range lines {
		if !strings.Contains(l, "\x1b") { // table rows are fitted already
			l = render.Truncate(l, t.width)
		}
		b.WriteString(l)
		b.WriteString(seqEraseLine + "\n")
	}
	b.WriteString(seqEraseDown)
	text := b.String()
	if text == t.last {
		return nil
	}
	t.last = text
	_, err := io.WriteString(t.out, text)
	return err
}
