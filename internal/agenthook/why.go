package agenthook

import (
	"encoding/json"
	"strings"

	"github.com/agentstatus/agentstatus/statusfile"
)

// The reason keys (SPEC.md §4.4) from what the payloads carry.

// permission is the wait of a permission prompt for tool, whose input is
// in: a question tool's prompt is a question.
func permission(tool string, in json.RawMessage) statusfile.Waiting {
	if q := firstQuestion(in); q != "" || isQuestionTool(tool) {
		return statusfile.Waiting{Kind: "question", Tool: tool, Detail: q}
	}
	return statusfile.Waiting{Kind: "permission", Tool: tool, Detail: toolDetail(in)}
}

// isQuestionTool reports whether tool is an agent's ask-the-user tool.
func isQuestionTool(tool string) bool {
	switch tool {
	case "AskUserQuestion", codexAskTool, "ask_user", "question":
		return true
	}
	return false
}

// toolDetail is the one line that says what a tool call does: its command,
// else the file, URL, pattern or query it is given, else its description.
func toolDetail(in json.RawMessage) string {
	var f map[string]json.RawMessage
	if len(in) == 0 || json.Unmarshal(in, &f) != nil {
		return ""
	}
	for _, key := range []string{"command", "cmd", "file_path", "filePath", "path", "notebook_path", "url", "pattern", "query", "description"} {
		switch v := f[key]; {
		case len(v) > 0 && v[0] == '"':
			var s string
			if json.Unmarshal(v, &s) == nil && strings.TrimSpace(s) != "" {
				return s
			}
		case len(v) > 0 && v[0] == '[' && (key == "command" || key == "cmd"):
			// Codex's shell tools take argv.
			var argv []string
			if json.Unmarshal(v, &argv) == nil && len(argv) > 0 {
				return strings.Join(argv, " ")
			}
		}
	}
	return ""
}

// firstQuestion is the first question of an ask-the-user tool's input
// ({"questions":[{"question":...}]}, as Claude Code and Codex send it),
// or "".
func firstQuestion(in json.RawMessage) string {
	var q struct {
		Questions []struct {
			Question string `json:"question"`
		} `json:"questions"`
	}
	if len(in) == 0 || json.Unmarshal(in, &q) != nil {
		return ""
	}
	for _, x := range q.Questions {
		if x.Question != "" {
			return x.Question
		}
	}
	return ""
}

// failure is how a turn that failed with the error kind kind ended: a
// rate limit is its own reason (ACP and A2A have none; SPEC.md §4.4).
func failure(kind string) statusfile.Ended {
	switch strings.ToLower(kind) {
	case "rate_limit", "rate_limited", "rate_limit_error", "too_many_requests", "usage_limit_exceeded":
		return statusfile.Ended{Reason: "rate_limited", Detail: kind}
	}
	return statusfile.Ended{Reason: "failed", Detail: kind}
}

var (
	done      = statusfile.Ended{Reason: "done"}
	cancelled = statusfile.Ended{Reason: "cancelled"}
)
