//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// The Anthropic Messages API, as Claude Code calls it (POST /v1/messages,
// streamed as server-sent events).

type anthropicRequest struct {
	Stream   bool              `json:"stream"`
	Model    string            `json:"model"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type anthropicBlock struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	ToolUseID string `json:"tool_use_id"`
}

// blocks returns a message's content blocks; a string is one text block.
func anthropicBlocks(raw json.RawMessage) []anthropicBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}
	}
	var bs []anthropicBlock
	json.Unmarshal(raw, &bs)
	return bs
}

// lastUserAt returns the user's last directive (else last) text, the
// ids of the tool results in the last message that is not the system's,
// and the index of the message the directive is in (-1: none). Claude
// Code merges a new prompt into the message that carries the last tool
// results, so order tells nothing.
func (r *anthropicRequest) lastUserAt() (text string, results []string, at int) {
	last := true
	for i := len(r.Messages) - 1; i >= 0; i-- {
		msg := r.Messages[i]
		if msg.Role == "system" {
			continue
		}
		wasLast := last
		last = false
		if msg.Role != "user" {
			continue
		}
		bs := anthropicBlocks(msg.Content)
		for j := len(bs) - 1; j >= 0; j-- {
			if wasLast && bs[j].Type == "tool_result" {
				results = append(results, bs[j].ToolUseID)
			}
		}
		for j := len(bs) - 1; j >= 0; j-- {
			if bs[j].Type == "text" && strings.HasPrefix(strings.TrimSpace(bs[j].Text), "e2e:") {
				return bs[j].Text, results, i
			}
			if bs[j].Type == "text" && text == "" && !strings.HasPrefix(bs[j].Text, "<") {
				text = bs[j].Text
			}
		}
	}
	return text, results, -1
}

// toolIDs numbers tool calls: an id is never used twice.
var toolIDs atomic.Int64

// anthropicHandler answers /v1/messages; other paths (count_tokens and the
// like) get an empty object.
func anthropicHandler(m *model) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.HasSuffix(r.URL.Path, "/v1/messages") {
			if strings.HasSuffix(r.URL.Path, "/count_tokens") {
				io.WriteString(w, `{"input_tokens":10}`)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{}`)
			return
		}
		var req anthropicRequest
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, 400)
			return
		}
		text, results, at := req.lastUserAt()
		// A subagent's directive is done once anything follows it: the
		// subagent's result, or the note that it runs in the background
		// (the tool calls since are the subagent's own). So is a
		// background command's: the turn its end starts quotes the
		// directive again, with a task-notification and no tool result.
		afterAgent := false
		for i := at + 1; followsUp(parseDirective(text).kind) && at >= 0 && i < len(req.Messages); i++ {
			afterAgent = afterAgent || req.Messages[i].Role == "assistant"
		}
		if d := parseDirective(text); followsUp(d.kind) && len(req.Tools) > 0 && !afterAgent {
			// Claude Code merges the messages of a session into one
			// user and one assistant message around the last prompt:
			// later requests quote the directive as the last words.
			key := d.args[0]
			if d.kind == "background" {
				key = "background " + key
			}
			afterAgent = !m.agentOnce(key)
		}
		d := m.directive(text, afterAgent || m.answered(text, results), len(req.Tools) > 0)
		if d.kind == "fail" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(d.status())
			kind := "invalid_request_error"
			switch d.status() {
			case 429:
				kind = "rate_limit_error"
			case 500:
				kind = "api_error"
			case 529:
				kind = "overloaded_error"
			}
			fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":"scripted failure %d"}}`, kind, d.status())
			return
		}
		var content []map[string]any
		stop := "end_turn"
		switch d.kind {
		case "tool", "parallel":
			stop = "tool_use"
			for _, c := range d.args {
				content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_e2e%d", toolIDs.Add(1)),
					"name": "Bash", "input": map[string]any{"command": c, "description": "Run " + c}})
			}
		case "background":
			// Bash's own flag (2.1.332): the call returns at once with
			// the shell's id, and the shell's end is told in a turn of
			// Claude Code's own.
			stop = "tool_use"
			name, input := "Bash", map[string]any{"command": d.args[0], "description": "e2e background command", "run_in_background": true}
			if c, ok := strings.CutPrefix(d.args[0], "monitor "); ok {
				// Its Monitor tool: each line CMD writes is an event,
				// CMD's exit ends the watch.
				name, input = "Monitor", map[string]any{"command": c, "description": "e2e monitor", "timeout_ms": 60000}
			}
			content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_e2e%d", toolIDs.Add(1)), "name": name, "input": input})
		case "agent":
			stop = "tool_use"
			content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_e2e%d", toolIDs.Add(1)), "name": "Agent",
				"input": map[string]any{"description": "e2e subagent", "prompt": "e2e:tool " + d.args[0], "subagent_type": "general-purpose"}})
		case "ask":
			stop = "tool_use"
			content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_e2e%d", toolIDs.Add(1)), "name": "AskUserQuestion",
				"input": map[string]any{"questions": []map[string]any{{
					"question": d.args[0], "header": "Choice", "multiSelect": false,
					"options": []map[string]any{
						{"label": "Alpha", "description": "the first"},
						{"label": "Beta", "description": "the second"},
					}}}}})
		case "plan":
			// The plan as the tool's argument: the session has no plan
			// file (2.1.332's tool description allows either).
			stop = "tool_use"
			content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_e2e%d", toolIDs.Add(1)), "name": "ExitPlanMode",
				"input": map[string]any{"plan": "# e2e plan\n\n1. Reply done."}})
		case "text":
			content = append(content, map[string]any{"type": "text", "text": "done."})
		default:
			content = append(content, map[string]any{"type": "text", "text": "ok"})
		}
		var ids []string
		for _, b := range content {
			if id, ok := b["id"].(string); ok {
				ids = append(ids, id)
			}
		}
		if len(ids) > 0 {
			m.called(text, ids...)
		}
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			if d.kind == "slow" {
				content = []map[string]any{{"type": "text", "text": "slow"}}
			}
			json.NewEncoder(w).Encode(map[string]any{
				"id": "msg_e2e", "type": "message", "role": "assistant", "model": req.Model,
				"content": content, "stop_reason": stop, "stop_sequence": nil,
				"usage": map[string]int{"input_tokens": 10, "output_tokens": 5},
			})
			return
		}
		s := newSSE(w)
		start, _ := json.Marshal(map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_e2e", "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
			"stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}})
		s.event("message_start", string(start))
		if d.kind == "slow" {
			s.event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			if !m.slowChunks(r.Context(), func(chunk string) error {
				delta, _ := json.Marshal(map[string]any{"type": "content_block_delta", "index": 0,
					"delta": map[string]string{"type": "text_delta", "text": chunk}})
				return s.event("content_block_delta", string(delta))
			}) {
				m.log("slow stream interrupted")
				return
			}
			s.event("content_block_stop", `{"type":"content_block_stop","index":0}`)
		}
		for i, b := range content {
			if d.kind == "slow" {
				break
			}
			switch b["type"] {
			case "text":
				s.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i))
				delta, _ := json.Marshal(map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
				s.event("content_block_delta", string(delta))
			case "tool_use":
				s.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, i, b["id"], b["name"]))
				input, _ := json.Marshal(b["input"])
				delta, _ := json.Marshal(map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
				s.event("content_block_delta", string(delta))
			}
			s.event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
		}
		s.event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":5}}`, stop))
		s.event("message_stop", `{"type":"message_stop"}`)
	})
}

// followsUp reports whether a directive of kind starts work that outlives
// its tool call in Claude Code (a subagent, a background command): any
// assistant message after the directive means its call was made.
func followsUp(kind string) bool { return kind == "agent" || kind == "background" }
