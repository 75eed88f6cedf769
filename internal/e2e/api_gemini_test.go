//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The Gemini API, as Gemini CLI 0.61.0 calls it with GEMINI_API_KEY and
// GOOGLE_GEMINI_BASE_URL: POST /v1beta/models/MODEL:streamGenerateContent
// ?alt=sse for turns (server-sent events, each a GenerateContentResponse),
// :generateContent for side requests, :countTokens.

type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text             string          `json:"text"`
			FunctionResponse json.RawMessage `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

// lastUser returns the last text the user typed (the last text part of
// the last user turn that has one: Gemini CLI puts its session context in
// a part before the prompt), and whether the conversation ends with tool
// results.
func (r *geminiRequest) lastUser() (text string, afterTool bool) {
	if n := len(r.Contents); n > 0 {
		for _, p := range r.Contents[n-1].Parts {
			if len(p.FunctionResponse) > 0 {
				afterTool = true
			}
		}
	}
	for i := len(r.Contents) - 1; i >= 0; i-- {
		c := r.Contents[i]
		if c.Role != "user" {
			continue
		}
		for j := len(c.Parts) - 1; j >= 0; j-- {
			if c.Parts[j].Text != "" {
				return c.Parts[j].Text, afterTool
			}
		}
	}
	return "", afterTool
}

// offers reports whether the request offers the tool name.
func (r *geminiRequest) offers(name string) bool {
	for _, t := range r.Tools {
		for _, d := range t.FunctionDeclarations {
			var decl struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(d, &decl) == nil && decl.Name == name {
				return true
			}
		}
	}
	return false
}

func (r *geminiRequest) hasTools() bool {
	for _, t := range r.Tools {
		if len(t.FunctionDeclarations) > 0 {
			return true
		}
	}
	return false
}

// geminiRoute is the answer to Gemini CLI's model router, which asks for
// JSON before each turn (its classifier strategies: reasoning and
// model_choice, or complexity_reasoning and complexity_score); an answer
// that is not this JSON is retried with backoff for a minute.
const geminiRoute = `{"reasoning":"e2e","model_choice":"flash","complexity_reasoning":"e2e","complexity_score":10}`

// geminiPromptTokens is the prompt's size the model reports, about what
// Gemini CLI's system prompt and tools count: /compress compares it with
// its estimate of the compressed history, and with a smaller figure finds
// compression "not beneficial for this history size" and does nothing.
const geminiPromptTokens = 20000

// geminiCandidate is one GenerateContentResponse with parts; finish "" for
// a chunk of a stream that goes on.
func geminiCandidate(finish string, parts ...map[string]any) []byte {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	b, _ := json.Marshal(map[string]any{
		"candidates":    []any{cand},
		"usageMetadata": map[string]any{"promptTokenCount": geminiPromptTokens, "candidatesTokenCount": 2, "totalTokenCount": geminiPromptTokens + 2},
		"modelVersion":  "gemini-e2e",
	})
	return b
}

func geminiText(s string) map[string]any { return map[string]any{"text": s} }
func geminiCall(name string, args map[string]any) map[string]any {
	return map[string]any{"functionCall": map[string]any{"name": name, "args": args}}
}

// geminiStatus is the API's status name of an HTTP error code.
var geminiStatus = map[int]string{400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
	429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}

func geminiHandler(m *model) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		path := r.URL.Path
		stream := strings.HasSuffix(path, ":streamGenerateContent")
		switch {
		case strings.HasSuffix(path, ":countTokens"):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"totalTokens":10}`)
			return
		case !stream && !strings.HasSuffix(path, ":generateContent"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}`)
			return
		}
		var req geminiRequest
		if err := json.Unmarshal(body, &req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"code":400,"message":"bad json","status":"INVALID_ARGUMENT"}}`)
			return
		}
		var answer [][]byte
		if req.GenerationConfig.ResponseMimeType == "application/json" {
			m.log("router (JSON asked)")
			answer = [][]byte{geminiCandidate("STOP", geminiText(geminiRoute))}
		} else {
			text, afterTool := req.lastUser()
			d := m.directive(text, afterTool, req.hasTools())
			switch d.kind {
			case "fail":
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(d.status())
				fmt.Fprintf(w, `{"error":{"code":%d,"message":"scripted failure %d","status":%q}}`, d.status(), d.status(), geminiStatus[d.status()])
				return
			case "slow":
				if stream {
					s := newSSE(w)
					if m.slowChunks(r.Context(), func(chunk string) error {
						return s.event("", string(geminiCandidate("", geminiText(chunk))))
					}) {
						s.event("", string(geminiCandidate("STOP", geminiText("done."))))
					}
					return
				}
				answer = [][]byte{geminiCandidate("STOP", geminiText("done."))}
			case "tool", "parallel":
				var calls []map[string]any
				for _, c := range d.args {
					calls = append(calls, geminiCall("run_shell_command", map[string]any{"command": c, "description": "e2e"}))
				}
				answer = [][]byte{geminiCandidate("STOP", calls...)}
			case "ask":
				answer = [][]byte{geminiCandidate("STOP", geminiCall("ask_user", map[string]any{
					"questions": []any{map[string]any{"question": d.args[0], "header": "Question", "type": "text"}}}))}
			case "plan":
				// The plan file is the test's (startGeminiWith's files), in
				// the plans folder its settings name.
				answer = [][]byte{geminiCandidate("STOP", geminiCall("exit_plan_mode", map[string]any{"plan_filename": geminiPlanFile}))}
			case "agent":
				answer = [][]byte{geminiCandidate("STOP", geminiCall("invoke_agent", map[string]any{
					"agent_name": "generalist", "prompt": "e2e:tool " + d.args[0]}))}
			case "text":
				answer = [][]byte{geminiCandidate("STOP", geminiText("done."))}
				if req.offers("complete_task") {
					// A subagent ends by calling complete_task; a text
					// answer is a protocol violation.
					answer = [][]byte{geminiCandidate("STOP", geminiCall("complete_task", map[string]any{
						"result": map[string]any{"response": "done."}}))}
				}
			default:
				answer = [][]byte{geminiCandidate("STOP", geminiText("ok"))}
			}
		}
		if !stream {
			w.Header().Set("Content-Type", "application/json")
			w.Write(answer[0])
			return
		}
		s := newSSE(w)
		for _, a := range answer {
			s.event("", string(a))
		}
	})
}
