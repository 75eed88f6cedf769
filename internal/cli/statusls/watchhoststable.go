package statusls

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// drawHosts shows the sessions of every host on the watch table, with a
// HOST column after SESSION, grouped by host in the order given ("" is this
// machine), each group most urgent first; and a line per host that cannot
// be reached.
func (t *tableScreen) drawHosts(hosts []string, views map[string]*view, offline map[string]string, now time.Time) error {
	t.msgs = slices.DeleteFunc(t.msgs, func(m screenMessage) bool { return !now.Before(m.until) })
	var entries []reader.Entry
	var names []string
	for _, h := range hosts {
		v := views[h]
		group := make([]reader.Entry, 0, len(v.shown))
		for _, e := range v.shown {
			c := *e
			c.Age = now.Sub(c.Status.UpdatedAt)
			group = append(group, c)
		}
		slices.SortFunc(group, func(a, b reader.Entry) int { return cmp.Compare(a.Name, b.Name) })
		render.Sort(group, render.ByAttention)
		entries = append(entries, group...)
		name := h
		if name == "" {
			name = localHostName
		}
		for range group {
			names = append(names, name)
		}
	}
	budget := 0
	if t.rows > 1 {
		budget = t.rows - 1
	}
	var down []string
	for _, h := range hosts {
		if msg, ok := offline[h]; ok {
			down = append(down, "host "+statusfile.SanitizeText(h)+" offline: "+msg+"; retrying")
		}
	}
	var lines []string
	if len(entries) == 0 {
		lines = append(lines, "no sessions on these hosts")
	} else {
		shown, more := len(entries), 0
		if budget > 0 {
			if room := budget - 1 - len(t.msgs) - len(down); shown > room {
				shown = max(room-1, 0)
				more = len(entries) - shown
			}
		}
		table := render.Table(entries[:shown], render.TableOptions{Width: t.width, Color: t.color, Wide: t.o.wide, Hosts: names[:shown]})
		lines = strings.Split(strings.TrimSuffix(table, "\n"), "\n")
		if more > 0 {
			lines = append(lines, fmt.Sprintf("… %d more", more))
		}
	}
	return t.show(append(lines, down...), budget)
}
