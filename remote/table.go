package remote

import (
	"strings"

	"github.com/rivo/uniseg"

	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/statusfile"
)

// maxHostColumn bounds the HOST column's share of a table.
const maxHostColumn = 24

// HostTable puts a HOST column in front of a table of sessions: hosts[i]
// is the host of the table's row i+1 (row 0 is the header), and table
// renders the rest of the table in the width it is given. No line is
// longer than width; long host names are shortened with "…".
func HostTable(hosts []string, width int, table func(width int) string) string {
	hw := uniseg.StringWidth("HOST")
	for i, h := range hosts {
		hosts[i] = statusfile.SanitizeText(h)
		hw = max(hw, uniseg.StringWidth(hosts[i]))
	}
	hw = min(hw, maxHostColumn, max(width/3, 4))
	const gap = 2
	rest := table(max(width-hw-gap, 1))
	lines := strings.SplitAfter(rest, "\n")
	var b strings.Builder
	for i, l := range lines {
		if l == "" {
			continue
		}
		cell := "HOST"
		if i > 0 && i-1 < len(hosts) {
			cell = render.Truncate(hosts[i-1], hw)
		}
		b.WriteString(cell)
		b.WriteString(strings.Repeat(" ", hw-uniseg.StringWidth(cell)+gap))
		b.WriteString(l)
	}
	return b.String()
}
