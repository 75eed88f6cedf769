package agenthook

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/agentstatus/agentstatus/statusfile"
)

// CodexRollout follows what Codex's rollout file (the hooks'
// transcript_path) says across its lines, for two moments of Codex
// 0.171.0 that no hook announces:
//
//   - A turn in Plan mode that proposes a plan ends with a plain Stop, and
//     the TUI asks "Implement this plan?": the session waits for the
//     user's decision (blocked). The rollout has the plan, an
//     item_completed of type Plan, just before the turn's task_complete.
//     "Yes" is a new prompt (its task_started, and UserPromptSubmit); Esc
//     and "No, stay in Plan mode" only close the dialog, and write and
//     send nothing at all, so the blocked lasts until the next prompt.
//   - A subagent (spawn_agent) the model does not wait for outlasts the
//     turn, and Codex takes no turn when it ends: the session is idle, with
//     "1 background agent" (SPEC.md Y8) until the subagent's end, which
//     only the rollout records.
//
// The zero value is ready.
type CodexRollout struct {
	plan     string            // the first line of the last turn's plan, until its end
	planTurn string            // the turn that proposed it
	calls    map[string]string // spawn_agent and wait_agent calls, by call id
	running  map[string]bool   // subagents started and not ended
}

// codexRolloutItem is the part of a rollout line CodexRollout reads.
type codexRolloutItem struct {
	Type    string          `json:"type"`
	Ordinal json.RawMessage `json:"ordinal"`
	Payload struct {
		Type   string          `json:"type"`
		TurnID string          `json:"turn_id"`
		Error  json.RawMessage `json:"error"`
		Item   struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"item"`
		// function_call and function_call_output (response_item)
		Name   string          `json:"name"`
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
		// a message (response_item)
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"payload"`
}

// LineState reads one line of the rollout (StateFollower):
//
//	item_completed Plan            remembered: the plan of its turn
//	task_complete of that turn     blocked: "Implement this plan?", the
//	  (no error)                   plan's first line as detail
//	task_complete, subagents       idle, bg counting them: they outlast
//	  running                      the turn
//	spawn_agent's output           remembered: a subagent runs
//	a subagent's end (its          the count alone
//	  <subagent_notification>,
//	  or wait_agent's output)
//	task_started                   forgets the plan
//
// Every other line says nothing here.
func (c *CodexRollout) LineState(line []byte) (st statusfile.State, bg statusfile.Background, wait statusfile.Waiting, since string, ok bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || len(line) > MaxCodexRolloutLine || line[0] != '{' {
		return "", bg, wait, "", false
	}
	var l codexRolloutItem
	if json.Unmarshal(line, &l) != nil {
		return "", bg, wait, "", false
	}
	since = string(l.Ordinal)
	p := l.Payload
	switch {
	case l.Type == "event_msg" && p.Type == "task_started":
		c.plan, c.planTurn = "", ""
	case l.Type == "event_msg" && p.Type == "item_completed" && p.Item.Type == "Plan":
		c.plan, c.planTurn = planTitle(p.Item.Text), p.TurnID
	case l.Type == "event_msg" && p.Type == "task_complete":
		bg = statusfile.Background{Agents: len(c.running)}
		if c.plan != "" && p.TurnID == c.planTurn && isNull(p.Error) {
			wait = statusfile.Waiting{Kind: "permission", Detail: c.plan}
			c.plan, c.planTurn = "", ""
			return statusfile.Blocked, bg, wait, since, true
		}
		if len(c.running) == 0 {
			return "", statusfile.Background{}, wait, "", false
		}
		return statusfile.Idle, bg, wait, since, true
	case l.Type == "response_item" && p.Type == "function_call" &&
		(strings.HasSuffix(p.Name, "spawn_agent") || strings.HasSuffix(p.Name, "wait_agent")):
		if c.calls == nil {
			c.calls = map[string]string{}
		}
		c.calls[p.CallID] = p.Name
	case l.Type == "response_item" && p.Type == "function_call_output" && c.calls[p.CallID] != "":
		name := c.calls[p.CallID]
		delete(c.calls, p.CallID)
		var out string
		if json.Unmarshal(p.Output, &out) != nil {
			out = string(p.Output)
		}
		var res struct {
			AgentID string                     `json:"agent_id"`
			Status  map[string]json.RawMessage `json:"status"`
		}
		json.Unmarshal([]byte(out), &res)
		if strings.HasSuffix(name, "spawn_agent") && res.AgentID != "" {
			if c.running == nil {
				c.running = map[string]bool{}
			}
			c.running[res.AgentID] = true
			return "", bg, wait, "", false
		}
		// wait_agent's output names the subagents that have ended.
		return c.ended(slices.Collect(maps.Keys(res.Status)), since)
	case l.Type == "response_item" && p.Type == "message" && p.Role == "user":
		return c.ended(subagentNotified(p.Content), since)
	}
	return "", bg, wait, "", false
}

// ended takes the subagents ids off the running ones: ok, with the count
// alone, when one of them was.
func (c *CodexRollout) ended(ids []string, since string) (st statusfile.State, bg statusfile.Background, wait statusfile.Waiting, _ string, ok bool) {
	for _, id := range ids {
		if c.running[id] {
			delete(c.running, id)
			ok = true
		}
	}
	if !ok {
		return "", bg, wait, "", false
	}
	return "", statusfile.Background{Agents: len(c.running)}, wait, since, true
}

// subagentNotified returns the subagents whose end a message's content
// reports: Codex 0.171.0 writes, into the session's rollout, as the user's
// message the model reads at its next turn,
//
//	<subagent_notification>
//	{"agent_path":"<agent id>","status":{"completed":"done."}}
//	</subagent_notification>
func subagentNotified(content json.RawMessage) []string {
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(content, &parts)
	var ids []string
	for _, part := range parts {
		_, rest, ok := strings.Cut(part.Text, "<subagent_notification>")
		body, _, closed := strings.Cut(rest, "</subagent_notification>")
		var n struct {
			AgentPath string `json:"agent_path"`
		}
		if ok && closed && json.Unmarshal([]byte(strings.TrimSpace(body)), &n) == nil && n.AgentPath != "" {
			ids = append(ids, n.AgentPath)
		}
	}
	return ids
}

// planTitle is the first line of a plan, without its Markdown marks.
func planTitle(plan string) string {
	for l := range strings.SplitSeq(plan, "\n") {
		if t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#-*> ")); t != "" {
			return t
		}
	}
	return ""
}

// isNull reports whether a JSON value is absent or null.
func isNull(v json.RawMessage) bool {
	return len(v) == 0 || string(v) == "null"
}
