//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The OpenAI Responses API, as Codex calls it through a model_provider
// with wire_api = "responses" (POST /v1/responses, streamed as server-sent
// events; the stream must end with response.completed, or Codex retries).

type responsesRequest struct {
	Model  string            `json:"model"`
	Stream bool              `json:"stream"`
	Tools  []json.RawMessage `json:"tools"`
	Input  []responsesItem   `json:"input"`
}

type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Name    string          `json:"name"`    // a function_call's
	CallID  string          `json:"call_id"` // a function_call's, and its output's
	Output  json.RawMessage `json:"output"`  // a function_call_output's
}

// codexAgentStep is what the parent does next in an agent directive
// (Codex's subagent tools, multi_agent_v1): "spawn" the subagent, "wait"
// for it (wait_agent, again while it runs: the wait times out), or "done"
// once it has finished; id is the subagent's, from spawn_agent's output.
func (r *responsesRequest) codexAgentStep() (step, id string) {
	// The last tool output since the directive's prompt: Codex may put a
	// message after it (a <subagent_notification> once the subagent ends).
	last := -1
	for i := len(r.Input) - 1; i >= 0 && last < 0; i-- {
		switch it := r.Input[i]; {
		case it.Type == "function_call_output":
			last = i
		case it.Type == "message" && it.Role == "user" && strings.Contains(string(it.Content), "e2e:"):
			return "spawn", ""
		}
	}
	if last < 0 {
		return "spawn", ""
	}
	calls := map[string]string{} // call id: function name
	for _, it := range r.Input {
		if it.Type == "function_call" {
			calls[it.CallID] = it.Name
		}
	}
	var out string
	if json.Unmarshal(r.Input[last].Output, &out) != nil {
		out = string(r.Input[last].Output)
	}
	var res struct {
		AgentID  string         `json:"agent_id"`
		Status   map[string]any `json:"status"`
		TimedOut bool           `json:"timed_out"`
	}
	json.Unmarshal([]byte(out), &res)
	switch calls[r.Input[last].CallID] {
	case "spawn_agent":
		return "wait", res.AgentID
	case "wait_agent":
		if res.TimedOut || len(res.Status) == 0 {
			// Still running: wait again, on the id the spawn gave.
			for _, it := range r.Input {
				if it.Type == "function_call_output" && calls[it.CallID] == "spawn_agent" {
					var o string
					json.Unmarshal(it.Output, &o)
					json.Unmarshal([]byte(o), &res)
				}
			}
			return "wait", res.AgentID
		}
	}
	return "done", ""
}

// lastUser returns the user's last directive (else last) text, and whether
// the input ends with a tool's output.
func (r *responsesRequest) lastUser() (text string, afterTool bool) {
	if n := len(r.Input); n > 0 && strings.HasSuffix(r.Input[n-1].Type, "_call_output") {
		afterTool = true
	}
	for i := len(r.Input) - 1; i >= 0; i-- {
		it := r.Input[i]
		if it.Type != "message" || it.Role != "user" {
			continue
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		var s string
		if json.Unmarshal(it.Content, &s) == nil {
			parts = append(parts, struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}{"input_text", s})
		} else {
			json.Unmarshal(it.Content, &parts)
		}
		for j := len(parts) - 1; j >= 0; j-- {
			t := strings.TrimSpace(parts[j].Text)
			if strings.HasPrefix(t, "e2e:") {
				return t, afterTool
			}
			if text == "" && t != "" && !strings.HasPrefix(t, "<") && !strings.HasPrefix(t, "#") {
				text = t
			}
		}
	}
	return text, afterTool
}

// toolNames lists the names of the tools a request offers.
func (r *responsesRequest) toolNames() []string {
	var names []string
	for _, raw := range r.Tools {
		var t struct {
			Type, Name string
		}
		json.Unmarshal(raw, &t)
		if t.Name == "" {
			t.Name = t.Type
		}
		names = append(names, t.Name)
	}
	return names
}

// responsesShellCall is a call of the shell tool the request offers, with
// the arguments that tool takes.
func responsesShellCall(tools []string, cmd string) (name, args string) {
	has := func(n string) bool {
		for _, t := range tools {
			if t == n {
				return true
			}
		}
		return false
	}
	var a []byte
	switch {
	case has("exec_command"):
		name = "exec_command"
		a, _ = json.Marshal(map[string]any{"cmd": cmd, "sandbox_permissions": "require_escalated",
			"justification": "e2e: run " + cmd})
	case has("shell_command"):
		name = "shell_command"
		a, _ = json.Marshal(map[string]any{"command": cmd, "sandbox_permissions": "require_escalated",
			"justification": "e2e: run " + cmd})
	default:
		name = "shell"
		a, _ = json.Marshal(map[string]any{"command": []string{"bash", "-lc", cmd}, "sandbox_permissions": "require_escalated",
			"justification": "e2e: run " + cmd})
	}
	return name, string(a)
}

// responsesHandler answers POST /v1/responses; /v1/models gets an empty
// list and other paths an empty object.
func responsesHandler(m *model) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case strings.HasSuffix(r.URL.Path, "/models"):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
			return
		case !strings.HasSuffix(r.URL.Path, "/responses"):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{}`)
			return
		}
		var req responsesRequest
		if err := json.Unmarshal(body, &req); err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"type":"invalid_request_error","code":null,"message":"bad json","param":null}}`)
			return
		}
		text, afterTool := req.lastUser()
		tools := req.toolNames()
		m.log("responses: tools %v", tools)
		d := m.directive(text, afterTool, len(tools) > 0)
		agentStep, agentID := "", ""
		if p := parseDirective(text); p.kind == "agent" || p.kind == "bgagent" {
			agentStep, agentID = req.codexAgentStep()
			if p.kind == "bgagent" && agentStep == "wait" {
				agentStep = "done" // no wait: the turn ends while it runs
			}
			m.log("responses: agent step %s %q", agentStep, agentID)
			if d.kind == p.kind || d.kind == "text" {
				d = directive{kind: "text"}
				if agentStep != "done" {
					d = directive{kind: "agent", args: p.args}
				}
			}
		}
		if d.kind == "fail" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(d.status())
			kind, code := "invalid_request_error", "invalid_request"
			switch d.status() {
			case 429:
				kind, code = "rate_limit_exceeded", "rate_limit_exceeded"
			case 500:
				kind, code = "server_error", "server_error"
			}
			fmt.Fprintf(w, `{"error":{"type":%q,"code":%q,"message":"scripted failure %d","param":null}}`, kind, code, d.status())
			return
		}
		s := newSSE(w)
		seq := 0
		emit := func(typ string, fields map[string]any) error {
			fields["type"] = typ
			fields["sequence_number"] = seq
			seq++
			data, _ := json.Marshal(fields)
			return s.event(typ, string(data))
		}
		resp := map[string]any{"id": "resp_e2e", "object": "response", "status": "in_progress", "model": req.Model, "output": []any{}}
		emit("response.created", map[string]any{"response": resp})
		message := func(idx int, id, text string) {
			item := map[string]any{"id": id, "type": "message", "role": "assistant", "status": "completed",
				"content": []map[string]any{{"type": "output_text", "text": text, "annotations": []any{}}}}
			emit("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		}
		switch d.kind {
		case "slow":
			item := map[string]any{"id": "msg_e2e", "type": "message", "role": "assistant", "status": "in_progress", "content": []any{}}
			emit("response.output_item.added", map[string]any{"output_index": 0, "item": item})
			var all strings.Builder
			if !m.slowChunks(r.Context(), func(chunk string) error {
				all.WriteString(chunk)
				return emit("response.output_text.delta", map[string]any{"item_id": "msg_e2e", "output_index": 0,
					"content_index": 0, "delta": chunk})
			}) {
				m.log("slow stream interrupted")
				return
			}
			message(0, "msg_e2e", all.String())
		case "tool", "parallel":
			for i, c := range d.args {
				name, args := responsesShellCall(tools, c)
				item := map[string]any{"id": fmt.Sprintf("fc_e2e%d", i), "type": "function_call", "status": "completed",
					"name": name, "arguments": args, "call_id": fmt.Sprintf("call_e2e%d", i)}
				emit("response.output_item.done", map[string]any{"output_index": i, "item": item})
			}
		case "ask":
			q, _ := json.Marshal(map[string]any{"questions": []map[string]any{{
				"id": "choice", "header": "Choice", "question": d.args[0],
				"options": []map[string]any{
					{"label": "Alpha", "description": "the first"},
					{"label": "Beta", "description": "the second"},
				}}}})
			item := map[string]any{"id": "fc_e2eask", "type": "function_call", "status": "completed",
				"name": "request_user_input", "arguments": string(q), "call_id": "call_e2eask"}
			emit("response.output_item.done", map[string]any{"output_index": 0, "item": item})
		case "agent":
			// Codex's subagent tools live in the multi_agent_v1 namespace.
			name, args := "spawn_agent", map[string]any{"message": "e2e:tool " + d.args[0]}
			if agentStep == "wait" {
				name, args = "wait_agent", map[string]any{"targets": []string{agentID}, "timeout_ms": 3600000}
			}
			a, _ := json.Marshal(args)
			item := map[string]any{"id": "fc_e2eagent", "type": "function_call", "status": "completed", "namespace": "multi_agent_v1",
				"name": name, "arguments": string(a), "call_id": "call_e2e" + name}
			emit("response.output_item.done", map[string]any{"output_index": 0, "item": item})
		case "plan":
			message(0, "msg_e2e", "Here is the plan.\n\n<proposed_plan>\n# E2E plan\n\n- Run the e2e step.\n</proposed_plan>\n")
		case "text":
			message(0, "msg_e2e", "done.")
		default:
			message(0, "msg_e2e", "ok")
		}
		resp["status"] = "completed"
		resp["usage"] = map[string]any{"input_tokens": 10, "input_tokens_details": map[string]int{"cached_tokens": 0},
			"output_tokens": 5, "output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": 15}
		emit("response.completed", map[string]any{"response": resp})
	})
}
