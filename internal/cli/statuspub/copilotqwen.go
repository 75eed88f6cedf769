package statuspub

import "github.com/agentstatus/agentstatus/internal/agenthook"

// The hook adapters of GitHub Copilot CLI and Qwen Code: like claude-hook,
// a command per event with the payload on stdin. Both read exit status 2
// from some hooks as "deny" (Copilot CLI: preToolUse and
// permissionRequest; Qwen Code, as Claude Code: PreToolUse and others), so
// these never exit 2 either (SPEC.md H7, H9).

func copilotHookCmd(f *hookFlags, args []string, env Env) int {
	return stdinHookCmd("copilot-hook", "copilot", "Copilot CLI", agenthook.Copilot, f, args, env, nil)
}

func qwenHookCmd(f *hookFlags, args []string, env Env) int {
	return stdinHookCmd("qwen-hook", "qwen", "Qwen Code", agenthook.Qwen, f, args, env, nil)
}
