//go:build linux

package e2e

import "strings"

// Qwen Code's own tools, for the directives the chat-completions handler
// leaves to the agent (chatTools.call).

// qwenCall answers Qwen Code 0.24.4's own directives:
//
//	e2e:agent       its subagent tool, "agent" (description, prompt,
//	                subagent_type, run_in_background): the built-in
//	                general-purpose agent, in the foreground, since a
//	                top-level agent call runs in the background unless
//	                it says otherwise
//	e2e:plan        exit_plan_mode (plan), which asks the user to approve
//	                the plan in the approval mode "plan"
//	e2e:background  run_shell_command with is_background
func qwenCall(d directive) (string, map[string]any, bool) {
	switch d.kind {
	case "agent":
		return "agent", map[string]any{"description": "e2e subagent", "prompt": "e2e:tool " + d.args[0],
			"subagent_type": "general-purpose", "run_in_background": false}, true
	case "plan":
		return "exit_plan_mode", map[string]any{"plan": d.plan()}, true
	case "background":
		if c, ok := strings.CutPrefix(d.args[0], "agent "); ok {
			return "agent", map[string]any{"description": "e2e background subagent", "prompt": "e2e:tool " + c,
				"subagent_type": "general-purpose", "run_in_background": true}, true
		}
		return "run_shell_command", map[string]any{"command": d.args[0], "description": "e2e background command", "is_background": true}, true
	}
	return "", nil, false
}
