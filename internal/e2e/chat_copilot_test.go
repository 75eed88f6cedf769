//go:build linux

package e2e

// Copilot CLI 1.0.102's subagent tool, as its chat-completions requests
// offer it: "task" (name, description, prompt, agent_type: explore, task,
// general-purpose, code-review, research or security-review; mode: sync,
// which waits for the subagent, or background, which returns at once).
// The subagent gets the prompt as its own user message.

// copilotTask is the task call of an agent directive: a general-purpose
// subagent (all CLI tools, so its bash asks permission as the session's
// does) whose prompt is "e2e:tool CMD", in sync mode; bgagent's in
// background mode.
func copilotTask(d directive) (string, map[string]any) {
	mode := "sync"
	if d.kind == "bgagent" {
		mode = "background"
	}
	return "task", map[string]any{
		"name": "e2e-sub", "description": "e2e subagent", "agent_type": "general-purpose",
		"prompt": "e2e:tool " + d.args[0], "mode": mode,
	}
}
