package statuspub

import (
	"path/filepath"

	"github.com/agentstatus/agentstatus/internal/agenthook"
)

// The hook adapters of GitHub Copilot CLI and Qwen Code: like claude-hook,
// a command per event with the payload on stdin. Both read exit status 2
// from some hooks as "deny" (Copilot CLI: preToolUse and
// permissionRequest; Qwen Code, as Claude Code: PreToolUse and others), so
// these never exit 2 either (SPEC.md H7, H9).

func copilotHookCmd(f *hookFlags, args []string, env *runner) int {
	return stdinHookCmd("copilot-hook", "copilot", "Copilot CLI", agenthook.Copilot, f, args, env, copilotSource)
}

// copilotSource is Copilot CLI's session log, which says what its hooks
// do not (an approval, a denial, Esc Esc): session-state/<id>/events.jsonl
// in $COPILOT_HOME, else ~/.copilot. The hook runs with the agent's
// environment.
func copilotSource(env *runner, _ int, a agenthook.Action) *agenthook.Source {
	home := env.Getenv("COPILOT_HOME")
	if home == "" {
		if h := env.Getenv("HOME"); h != "" {
			home = filepath.Join(h, ".copilot")
		}
	}
	path, ok := agenthook.CopilotEventsPath(home, a.Session)
	if !ok {
		return nil
	}
	return &agenthook.Source{Kind: agenthook.SourceCopilotEvents, Path: path}
}

func qwenHookCmd(f *hookFlags, args []string, env *runner) int {
	return stdinHookCmd("qwen-hook", "qwen", "Qwen Code", agenthook.Qwen, f, args, env, nil)
}
