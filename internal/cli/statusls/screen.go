package statusls

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
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

type screenMessage struct {
	text  string
	until time.Time
}

// resize asks the terminal for its size (at start, and after SIGWINCH):
// $COLUMNS and $LINES first, as for statusls.
func (r *watchRun) resize() {
	_, w := r.env.Terminal()
	r.width = tableWidth(r.env, w)
	r.rows = r.env.Rows()
	if n, err := strconv.Atoi(strings.TrimSpace(r.env.Getenv("LINES"))); err == nil && n > 0 {
		r.rows = n
	}
	r.last = "" // redraw everything
}

// end gives the terminal back as it was. It may be called more than once.
func (r *watchRun) end() {
	if r.started {
		r.started = false
		io.WriteString(r.env.Stdout, seqLeave)
	}
}

// draw shows the sessions of every host of the run as at now: grouped by
// host in the run's order ("" is this machine), each group most urgent
// first, with a HOST column after SESSION when other machines are watched,
// and a line per host that cannot be reached; then the messages. Never
// more lines than the terminal has, less one: the newline after the last
// would scroll the screen. It draws nothing when the screen shows exactly
// that already.
func (r *watchRun) draw(now time.Time) error {
	r.msgs = slices.DeleteFunc(r.msgs, func(m screenMessage) bool { return !now.Before(m.until) })
	var entries []reader.Entry
	var names, down []string
	for _, h := range r.order {
		group := make([]reader.Entry, 0, len(r.views[h]))
		for _, name := range slices.Sorted(maps.Keys(r.views[h])) {
			c := *r.views[h][name]
			c.Age = now.Sub(c.Status.UpdatedAt)
			group = append(group, c)
		}
		render.Sort(group, render.ByAttention)
		entries = append(entries, group...)
		names = append(names, slices.Repeat([]string{cmp.Or(h, localHostName)}, len(group))...)
		if msg, ok := r.offline[h]; ok {
			down = append(down, "host "+statusfile.SanitizeText(h)+" offline: "+msg+"; retrying")
		}
	}

	budget := max(r.rows-1, 0) // 0: no limit
	var lines []string
	switch {
	case len(entries) > 0:
		shown, more := len(entries), 0
		if budget > 0 {
			if room := budget - 1 - len(r.msgs) - len(down); shown > room {
				shown = max(room-1, 0)
				more = len(entries) - shown
			}
		}
		opts := render.TableOptions{Width: r.width, Color: r.color, Wide: r.o.wide}
		if r.withHosts {
			opts.Hosts = names[:shown]
		} else {
			opts.Home = r.env.Getenv("HOME")
		}
		table := render.Table(entries[:shown], opts)
		lines = strings.Split(strings.TrimSuffix(table, "\n"), "\n")
		if more > 0 {
			lines = append(lines, fmt.Sprintf("… %d more", more))
		}
	case r.withHosts:
		lines = append(lines, "no sessions on these hosts")
	default:
		lines = append(lines, noSessions(&r.o.filter, r.loc, r.env))
		if r.missing {
			lines = append(lines, "(the directory does not exist yet; waiting for it)")
		}
	}
	lines = append(lines, down...)
	for _, m := range r.msgs {
		lines = append(lines, m.text)
	}
	if budget > 0 && len(lines) > budget {
		lines = lines[:budget]
	}
	var b strings.Builder
	b.WriteString(seqHome)
	for _, l := range lines {
		if !strings.Contains(l, "\x1b") { // table rows are fitted already
			l = render.Truncate(l, r.width)
		}
		b.WriteString(l)
		b.WriteString(seqEraseLine + "\n")
	}
	b.WriteString(seqEraseDown)
	text := b.String()
	if text == r.last {
		return nil
	}
	r.last = text
	_, err := io.WriteString(r.env.Stdout, text)
	return err
}
