package statusls

import (
	"fmt"
	"strings"

	"github.com/agentstatus/agentstatus/internal/agentinstall"
	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/render"
)

// doctorAgent is one agent found on the machine, and whether statuspub's
// hooks are installed in its user configuration.
type doctorAgent struct {
	Agent string `json:"agent"`
	Found string `json:"found"` // its configuration directory or its program
	Path  string `json:"path"`  // the file that holds the hooks
	// Status is installed, not-installed, problem (its settings cannot be
	// read or parsed), untrusted (installed, but the agent runs the
	// hooks only once the user trusts them, as Codex does, and has not) or
	// gone (installed, but the statuspub they start no longer exists).
	Status  string   `json:"status"`
	Missing []string `json:"missing,omitempty"` // the events without statuspub's hook
	// Untrusted (Codex) are the events whose hook Codex will not run until
	// the user trusts it.
	Untrusted []string `json:"untrusted,omitempty"`
	// Gone are the programs the hooks start that no longer exist.
	Gone      []string `json:"gone,omitempty"`
	Detail    string   `json:"detail,omitempty"`
	Installed bool     `json:"installed"`
}

// doctorAgents adds, for each agent found on the machine, whether
// statuspub's hooks are installed, with a hint for each that is not, and
// its text: none when no agent is found. An agent's settings never make
// doctor fail: they are not the status directory's.
func doctorAgents(r *doctorReport, env *cmdEnv) {
	home := env.Getenv("HOME")
	for _, st := range agentinstall.Check(env.Getenv) {
		if st.Found == "" {
			continue
		}
		if len(r.Agents) == 0 {
			r.out = append(r.out, "", "agents:")
		}
		a := doctorAgent{Agent: st.Agent, Found: st.Found, Path: st.Path, Installed: st.Installed}
		path := quotePath(render.TildePath(st.Path, home))
		switch {
		case st.Err != nil:
			a.Status, a.Detail = "problem", base.Message(st.Err)
			r.out = append(r.out, fmt.Sprintf("  %s: PROBLEM: %s", st.Agent, a.Detail))
			r.hint("agent-"+st.Agent, fmt.Sprintf("%s's settings cannot be read (see above): fix them, then run 'statuspub install %s'", st.Agent, st.Agent))
		case len(st.Gone) > 0:
			a.Status, a.Gone = "gone", st.Gone
			r.out = append(r.out, fmt.Sprintf("  %s: PROBLEM: the hooks start %s, which no longer exists (%s)", st.Agent, quotePath(render.TildePath(st.Gone[0], home)), path))
			r.hint("agent-"+st.Agent, fmt.Sprintf("run 'statuspub install %s' with the statuspub you use now, so that %s's hooks start it", st.Agent, st.Agent))
		case st.Installed && len(st.Untrusted) > 0:
			a.Status, a.Untrusted = "untrusted", st.Untrusted
			r.out = append(r.out, fmt.Sprintf("  %s: hooks installed but not trusted, so %s does not run them (%s: %s)", st.Agent, st.Agent, path, strings.Join(st.Untrusted, ", ")))
			r.hint("agent-"+st.Agent, fmt.Sprintf("%s runs statuspub's hooks only once you trust them: in Codex type /hooks and press t, or run 'statuspub install codex --trust'", st.Agent))
		case st.Installed:
			a.Status = "installed"
			r.out = append(r.out, fmt.Sprintf("  %s: hooks installed (%s)", st.Agent, path))
		default:
			a.Status, a.Missing = "not-installed", st.Missing
			r.out = append(r.out, fmt.Sprintf("  %s: hooks not installed (%s: missing %s)", st.Agent, path, strings.Join(st.Missing, ", ")))
			r.hint("agent-"+st.Agent, fmt.Sprintf("run 'statuspub install %s' to publish %s's state", st.Agent, st.Agent))
		}
		r.Agents = append(r.Agents, a)
	}
}
