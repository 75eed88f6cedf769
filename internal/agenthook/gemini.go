package agenthook

import (
	"cmp"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/agentstatus/agentstatus/statusfile"
)

// geminiInput is the part of a Gemini CLI hook payload the mapping uses.
// Every event carries session_id, transcript_path, cwd, hook_event_name and
// timestamp (https://geminicli.com/docs/hooks/reference, "Base input
// schema").
type geminiInput struct {
	hookBase
	Transcript       string          `json:"transcript_path"` // the chat recording (SPEC.md §13.3)
	NotificationType string          `json:"notification_type"`
	ToolName         string          `json:"tool_name"`
	ToolInput        json.RawMessage `json:"tool_input"`
	ToolResponse     json.RawMessage `json:"tool_response"`
	Details          geminiDetails   `json:"details"`         // Notification
	PromptResponse   string          `json:"prompt_response"` // AfterAgent
}

// geminiDetails is what a ToolPermission notification says of the
// confirmation (recorded from 0.61.0: type exec with title, command and
// rootCommand; ask_user with title; edit, mcp and info per its
// documentation).
type geminiDetails struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Command  string `json:"command"`
	FileName string `json:"fileName"`
	FilePath string `json:"filePath"`
	ToolName string `json:"toolName"`
	Prompt   string `json:"prompt"`
}

// geminiNoResponse is the prompt_response of an AfterAgent whose turn got
// no answer from the model: the API failed (0.61.0, HTTP 400 recorded).
const geminiNoResponse = "[no response text]"

// geminiWait is what a ToolPermission notification waits for.
func geminiWait(d geminiDetails) statusfile.Waiting {
	w := statusfile.Waiting{Kind: "permission"}
	switch d.Type {
	case "exec":
		w.Tool, w.Detail = "Shell", d.Command
	case "edit":
		w.Tool, w.Detail = "Edit", cmp.Or(d.FilePath, d.FileName)
	case "mcp":
		w.Tool = d.ToolName
	case "info":
		w.Tool, w.Detail = "WebFetch", d.Prompt
	case "ask_user":
		w.Kind = "question"
	default:
		w.Detail = d.Title
	}
	return w
}

// Gemini maps a Gemini CLI hook payload (SPEC.md §13.1):
//
//	SessionStart                         idle
//	BeforeAgent, BeforeTool, AfterTool   working; AfterTool of write_todos
//	                                     and update_topic also sets the title
//	AfterTool of a shell command the     idle, ended cancelled: Esc in an
//	  user cancelled                     approved tool ends the turn, and no
//	                                     AfterAgent follows
//	Notification ToolPermission          blocked (a tool confirmation, and
//	                                     ask_user's questions), waiting for
//	                                     what its details name
//	AfterAgent                           idle, ended done; failed when the
//	                                     model gave no response
//	SessionEnd                           the record is removed
//	BeforeModel, AfterModel,
//	  BeforeToolSelection, PreCompress   ignored: AfterModel fires for every
//	                                     streamed chunk, PreCompress at the
//	                                     start of every turn
//	anything else                        ignored
//
// Gemini CLI runs no hook when the user denies a confirmation; its chat
// recording says so ([GeminiChatState]).
func Gemini(data []byte) (Action, error) {
	var in geminiInput
	a, err := decode(data, &in, "session_id", &in.Cwd, &in.SessionID)
	if err != nil {
		return Action{}, err
	}
	if filepath.IsAbs(in.Transcript) {
		a.Source = &Source{Kind: SourceGeminiChat, Path: in.Transcript}
	}
	switch in.Event {
	case "SessionStart":
		a.State = statusfile.Idle
	case "BeforeAgent", "BeforeTool":
		a.State = statusfile.Working
	case "AfterTool":
		a.State = statusfile.Working
		switch in.ToolName {
		case "write_todos":
			a.Title = geminiTodoTitle(in.ToolInput)
		case "update_topic":
			a.Title = geminiTopicTitle(in.ToolInput)
		case "run_shell_command":
			if geminiCancelled(in.ToolResponse) {
				a.State, a.Ended = statusfile.Idle, cancelled
			}
		}
	case "Notification":
		if in.NotificationType != "ToolPermission" {
			return ignore(in.SessionID), nil
		}
		a.State = statusfile.Blocked
		a.Waiting = geminiWait(in.Details)
	case "AfterAgent":
		a.State, a.Ended = statusfile.Idle, done
		if in.PromptResponse == geminiNoResponse {
			a.Ended = statusfile.Ended{Reason: "failed", Detail: "no response"}
		}
	case "SessionEnd":
		return Action{Kind: Remove, Session: in.SessionID}, nil
	default:
		return ignore(in.SessionID), nil
	}
	return a, nil
}

// geminiTodoTitle returns the title write_todos sets: the description of
// its in_progress item (the tool allows one), "" when none is in progress,
// nil (keep the title) when the input is not a todo list
// (https://geminicli.com/docs/tools/todos: todos[].description, status
// pending, in_progress, completed, cancelled or blocked).
func geminiTodoTitle(raw json.RawMessage) *string {
	var in struct {
		Todos []struct {
			Description string `json:"description"`
			Status      string `json:"status"`
		} `json:"todos"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &in) != nil || in.Todos == nil {
		return nil
	}
	for _, t := range in.Todos {
		if t.Status == "in_progress" {
			return ptr(t.Description)
		}
	}
	return ptr("")
}

// geminiTopicTitle returns the title update_topic sets: its title, trimmed
// and with line breaks turned into spaces as Gemini CLI's topic state does
// (packages/core/src/config/topicState.ts), or nil (keep the title) when it
// carries none: an update of the intent only keeps the topic.
func geminiTopicTitle(raw json.RawMessage) *string {
	var in struct {
		Title string `json:"title"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &in) != nil {
		return nil
	}
	t := strings.TrimSpace(in.Title)
	if t == "" {
		return nil
	}
	t = strings.Join(strings.FieldsFunc(t, func(r rune) bool { return r == '\r' || r == '\n' }), " ")
	return &t
}

// geminiCancelled reports whether a shell tool's response says the user
// cancelled it (Esc or Ctrl-C while it ran, or before it started). Gemini
// CLI 0.61.0's shell tool answers then with returnDisplay "Command
// cancelled by user." (followed by the output so far, if any), or, in debug
// mode, with its llmContent "Command was cancelled by user before it could
// complete." / "... start.", inside <untrusted_context> tags. Both texts are
// Gemini's own and come first, before any output of the command, so a
// command cannot print its way into this. A command stopped by the
// inactivity timeout says "Command was automatically cancelled", and its
// turn goes on.
func geminiCancelled(raw json.RawMessage) bool {
	var r struct {
		LLMContent    json.RawMessage `json:"llmContent"`
		ReturnDisplay json.RawMessage `json:"returnDisplay"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &r) != nil {
		return false
	}
	var display, content string
	if json.Unmarshal(r.ReturnDisplay, &display) == nil && strings.HasPrefix(display, "Command cancelled by user.") {
		return true
	}
	if json.Unmarshal(r.LLMContent, &content) == nil {
		content = strings.TrimPrefix(content, "<untrusted_context>\n")
		return strings.HasPrefix(content, "Command was cancelled by user before it could ")
	}
	return false
}

// GeminiChatPath checks the transcript_path of a Gemini CLI hook payload
// before its chat recording is followed (SPEC.md H17): a clean path under
// <home>/.gemini/tmp/, a file named session-<time>-<the session id's
// first 8 characters>.jsonl, as 0.61.0 names them.
func GeminiChatPath(home, transcriptPath, session string) (string, bool) {
	if len(session) < 8 || strings.ContainsAny(session[:8], "/\\") || !filepath.IsAbs(home) ||
		!namedIn(filepath.Join(filepath.Clean(home), ".gemini", "tmp"), transcriptPath, "session-", "-"+session[:8]+".jsonl") {
		return "", false
	}
	return transcriptPath, true
}
