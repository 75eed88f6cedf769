//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// The OpenAI chat-completions API, as OpenCode's @ai-sdk/openai-compatible
// provider speaks it: POST /v1/chat/completions with "stream": true,
// answered by "data:" lines of chat.completion.chunk objects and a final
// "data: [DONE]". Tool calls are deltas with "tool_calls"; a tool's result
// comes back as a message of role "tool".

// chatRequest is the part of a chat-completions request the model reads.
type chatRequest struct {
	Model    string        `json:"model"`
	Stream   bool          `json:"stream"`
	Messages []chatMessage `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string, or parts
}

// text is the message's text: its string content, or its text parts
// joined by newlines.
func (m chatMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(m.Content, &parts)
	var b []string
	for _, p := range parts {
		if p.Type == "text" {
			b = append(b, p.Text)
		}
	}
	return strings.Join(b, "\n")
}

// lastUser returns the text of the last user message, preferring its last
// line that holds a directive (OpenCode may add text parts of its own), and
// whether the conversation ends with a tool's result.
func (r chatRequest) lastUser() (text string, afterTool bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		text = m.text()
		// The last directive: after a failed turn, Qwen Code sends the
		// failed prompt and the next one in one user message.
		lines := strings.Split(text, "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			// Copilot CLI's plan mode sends "My request: PROMPT".
			line := strings.TrimPrefix(strings.TrimSpace(lines[i]), "My request: ")
			if strings.HasPrefix(line, "e2e:") {
				text = line
				break
			}
		}
		break
	}
	n := len(r.Messages)
	return text, n > 0 && r.Messages[n-1].Role == "tool"
}

// chatTools are an agent's shell and ask-the-user tools: their names and
// the arguments of one call.
type chatTools struct {
	shell     string
	shellArgs func(command string, i int) map[string]any
	ask       string
	askArgs   func(question string) map[string]any
	// call, when set, answers the directives the agent has a tool of
	// its own for (a subagent, a plan, a background command): the tool
	// and the arguments of its one call; ok false leaves d to the
	// handler, which answers "ok" to a directive it has no tool for.
	call func(d directive) (tool string, args map[string]any, ok bool)
}

// OpenCode's shell tool is "bash" (command, description); its
// ask-the-user tool is "question" (questions: question, header, options).
var opencodeTools = chatTools{
	shell: "bash",
	shellArgs: func(c string, i int) map[string]any {
		return map[string]any{"command": c, "description": fmt.Sprintf("e2e command %d", i+1)}
	},
	ask: "question",
	askArgs: func(q string) map[string]any {
		return map[string]any{"questions": []any{map[string]any{
			"question": q, "header": "e2e",
			"options": []any{map[string]any{"label": "yes", "description": "say yes"}, map[string]any{"label": "no", "description": "say no"}},
		}}}
	},
	// Its subagent tool is "task", which starts a session whose parentID
	// is the caller's.
	call: func(d directive) (string, map[string]any, bool) {
		if d.kind != "agent" {
			return "", nil, false
		}
		return "task", map[string]any{"description": "e2e subagent", "prompt": "e2e:tool " + d.args[0], "subagent_type": "general"}, true
	},
}

// chatHandler answers OpenCode's chat-completions requests from the model.
func chatHandler(m *model) http.Handler { return chatHandlerWith(m, opencodeTools) }

// chatHandlerWith answers chat-completions requests from the model, with
// the agent's tools.
func chatHandlerWith(m *model, tools chatTools) http.Handler {
	var calls atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		last, afterTool := req.lastUser()
		d := m.directive(last, afterTool, len(req.Tools) > 0)
		if d.kind == "fail" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(d.status())
			fmt.Fprintf(w, `{"error":{"message":"e2e: scripted failure %d","type":"invalid_request_error","code":"e2e_%d"}}`, d.status(), d.status())
			return
		}
		id := fmt.Sprintf("chatcmpl-e2e%d", calls.Add(1))
		s := newSSE(w)
		chunk := func(delta map[string]any, finish any) error {
			b, _ := json.Marshal(map[string]any{
				"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model,
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
			})
			return s.event("", string(b))
		}
		done := func(finish string) {
			chunk(map[string]any{}, finish)
			b, _ := json.Marshal(map[string]any{
				"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model,
				"choices": []any{}, "usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
			})
			s.event("", string(b))
			s.event("", "[DONE]")
		}
		calls := func(name string, args []map[string]any) {
			var tcs []any
			for i, a := range args {
				b, _ := json.Marshal(a)
				tcs = append(tcs, map[string]any{"index": i, "id": fmt.Sprintf("call_%s_%d", id, i), "type": "function",
					"function": map[string]any{"name": name, "arguments": string(b)}})
			}
			chunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": tcs}, nil)
			done("tool_calls")
		}
		if tools.call != nil {
			if name, args, ok := tools.call(d); ok {
				calls(name, []map[string]any{args})
				return
			}
		}
		switch d.kind {
		case "slow":
			chunk(map[string]any{"role": "assistant", "content": ""}, nil)
			if m.slowChunks(r.Context(), func(c string) error { return chunk(map[string]any{"content": c}, nil) }) {
				done("stop")
			}
		case "tool", "parallel":
			var args []map[string]any
			for i, c := range d.args {
				args = append(args, tools.shellArgs(c, i))
			}
			calls(tools.shell, args)
		case "ask":
			calls(tools.ask, []map[string]any{tools.askArgs(d.args[0])})
		default:
			text := "ok"
			if d.kind == "text" {
				text = "done."
			}
			chunk(map[string]any{"role": "assistant", "content": text}, nil)
			done("stop")
		}
	})
	return mux
}
