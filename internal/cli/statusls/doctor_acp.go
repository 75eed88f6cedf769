package statusls

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/agentstatus/agentstatus/internal/agentinstall"
	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/render"
)

// doctorACP adds the agents Zed runs through `statuspub acp` (SPEC.md
// §13.5), and a hint for each whose command is missing: Zed would start
// statuspub, which could not start the agent. Nothing when Zed's settings
// name none.
func doctorACP(r *doctorReport, env *cmdEnv) {
	path := agentinstall.ZedSettingsPath(env.Getenv)
	shown := quotePath(render.TildePath(path, env.Getenv("HOME")))
	servers, err := agentinstall.ZedACPServers(path)
	if err != nil {
		r.out = append(r.out, "", "agents over ACP (Zed):", fmt.Sprintf("  PROBLEM: %s", base.Message(err)))
		return
	}
	if len(servers) == 0 {
		return
	}
	r.out = append(r.out, "", "agents over ACP (Zed, "+shown+"):")
	for _, s := range servers {
		if len(s.Command) == 0 {
			r.out = append(r.out, fmt.Sprintf("  %s: PROBLEM: statuspub acp without a command after --", s.Name))
			r.hint("acp-"+s.Name, fmt.Sprintf("give %q's args as [\"acp\", \"--\", COMMAND, ARGS...] in %s", s.Name, shown))
			continue
		}
		line := strings.Join(s.Command, " ")
		if _, err := exec.LookPath(s.Command[0]); err != nil {
			r.out = append(r.out, fmt.Sprintf("  %s: PROBLEM: runs %s through statuspub acp, but %s is not found", s.Name, line, s.Command[0]))
			r.hint("acp-"+s.Name, fmt.Sprintf("install %s, or give its absolute path in %q's args in %s", s.Command[0], s.Name, shown))
			continue
		}
		r.out = append(r.out, fmt.Sprintf("  %s: runs %s through statuspub acp", s.Name, line))
	}
}
