//go:build linux

package e2e

import "strings"

// Copilot CLI 1.0.102's subagent tool, as its chat-completions requests
// offer it: "task" (name, description, prompt, agent_type: explore, task,
// general-purpose, code-review, research or security-review; mode: sync,
// which waits for the subagent, or background, which returns at once).
// The subagent gets the prompt as its own user message. In plan mode
// (Shift+Tab) it also offers exit_plan_mode (summary; showFleet,
// recommendedAction: exit_only, interactive, autopilot, autopilot_fleet),
// which asks the user to approve the plan. Its shell tool, bash, runs a
// command in the background with mode "async" (attached to the session:
// "it keeps running across later turns", and the agent is notified when
// it ends), or, with detach true as well, as a process of its own.

// copilotCall answers Copilot CLI's own directives: agent and bgagent with
// its task tool, plan with exit_plan_mode, background with bash in async
// mode.
func copilotCall(d directive) (string, map[string]any, bool) {
	switch d.kind {
	case "agent", "bgagent":
		name, args := copilotTask(d)
		return name, args, true
	case "plan":
		name, args := copilotPlan(d)
		return name, args, true
	case "background":
		return "bash", map[string]any{"command": d.args[0], "description": "e2e background command", "mode": "async"}, true
	}
	return "", nil, false
}

// copilotTask is the task call of an agent directive: a general-purpose
// subagent (all CLI tools, so its bash asks permission as the session's
// does) whose prompt is "e2e:tool CMD", in sync mode; bgagent's in
// background mode. A CMD that is a directive itself ("e2e:agent e2e:fail
// 400") is the subagent's prompt as it is.
func copilotTask(d directive) (string, map[string]any) {
	mode := "sync"
	if d.kind == "bgagent" {
		mode = "background"
	}
	prompt := d.args[0]
	if !strings.HasPrefix(prompt, "e2e:") {
		prompt = "e2e:tool " + prompt
	}
	return "task", map[string]any{
		"name": "e2e-sub", "description": "e2e subagent", "agent_type": "general-purpose",
		"prompt": prompt, "mode": mode,
	}
}

// copilotPlan is the exit_plan_mode call of a plan directive: the plan is
// its text.
func copilotPlan(d directive) (string, map[string]any) {
	return "exit_plan_mode", map[string]any{"summary": "- " + d.plan(), "recommendedAction": "interactive"}
}
