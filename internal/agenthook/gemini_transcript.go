package agenthook

import (
	"bytes"
	"encoding/json"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Gemini CLI runs no hook when the user denies a tool confirmation (Esc, or
// "No, suggest changes"), when Esc dismisses ask_user's question, nor when
// Esc cancels a turn while its model router's request is being retried. Its chat recording does
// record both: the file every hook payload names as transcript_path
// (~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl), which Gemini
// CLI 0.61.0 writes as JSON lines and only appends to while the session
// runs. Whenever the CLI stops a turn because the user cancelled it, it
// appends the line
//
//	{"id":"…","timestamp":"…","type":"info","content":"Request cancelled."}
//
// (the CLI's "ℹ Request cancelled." on screen) and goes back to its prompt.
// In every cancelling case recorded (a denied confirmation, Esc at
// ask_user's question, Esc while an approved tool ran, Esc while the answer
// streamed, Esc before the first token, Esc while a failed request was
// being retried) the line's own timestamp was 159–362 ms after the Esc
// key was sent (617 ms on a loaded machine), and it was on disk no later
// than the screen showed the cancellation
// (testdata/gemini/transcript-*.jsonl).

// GeminiChatState reads lines appended to a Gemini CLI chat recording
// (the hook payloads' transcript_path), in the shape of [SourceState], for
// a heartbeat owner that follows it as an appended log: data is the whole
// lines appended since its last read. Only a top-level
// {"type":"info","content":"Request cancelled."} line is a signal: the
// turn ended, and nothing else says so when the user denied a
// confirmation. It says idle when one of the lines is that line, with
// since that line's "id" (a new one for every cancellation); ok is false
// when none is. Every other line says nothing: messages, tool calls, the
// "$set" lines that rewrite the history (which may quote earlier info
// lines; they are not new ones), and a line that is not JSON. session and
// pid are not needed: the recording is the session's own file (its
// transcript_path), named after the session.
func GeminiChatState(data []byte, session string, pid int) (st statusfile.State, since string, ok bool) {
	for _, line := range bytes.Split(data, []byte("\n")) {
		var m struct {
			ID      json.RawMessage `json:"id"`
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		var id, content string
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &m) != nil || m.Type != "info" ||
			json.Unmarshal(m.Content, &content) != nil || content != "Request cancelled." {
			continue
		}
		json.Unmarshal(m.ID, &id)
		st, since, ok = statusfile.Idle, id, true
	}
	return st, since, ok
}
