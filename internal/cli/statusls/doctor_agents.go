package statusls

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/agentstatus/agentstatus/internal/agentinstall"
	"github.com/agentstatus/agentstatus/internal/render"
)

// doctorAgents reports, for each agent found on the machine, whether
// statuspub's hooks are installed, and returns hints. Nothing is printed
// when no agent is found.
func doctorAgents(out *bufio.Writer, env *Env) []string {
	var hints []string
	home := env.Getenv("HOME")
	first := true
	for _, st := range agentinstall.Check(env.Getenv) {
		if st.Found == "" {
			continue
		}
		if first {
			fmt.Fprintln(out, "\nagents:")
			first = false
		}
		path := quotePath(render.TildePath(st.Path, home))
		switch {
		case st.Err != nil:
			fmt.Fprintf(out, "  %s: PROBLEM: %s\n", st.Agent, oneLineText(st.Err.Error()))
		case st.Installed:
			fmt.Fprintf(out, "  %s: hooks installed (%s)\n", st.Agent, path)
		default:
			fmt.Fprintf(out, "  %s: hooks not installed (%s: missing %s)\n", st.Agent, path, strings.Join(st.Missing, ", "))
			hints = append(hints, fmt.Sprintf("run 'statuspub install %s' to publish %s's state", st.Agent, st.Agent))
		}
	}
	return hints
}

func oneLineText(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
}
