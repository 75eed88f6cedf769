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

// geminiCancelledLine is the content of the line that says the user
// cancelled the turn.
const geminiCancelledLine = "Request cancelled."

// GeminiTranscript reads lines appended to a Gemini CLI chat recording
// (the hook payloads' transcript_path). It returns the state the last
// signal among the complete lines of data means ("" when none has one)
// and how many bytes it read: through the last newline, so that a line
// still being written is read again, whole, with the next append.
//
// Only a top-level {"type":"info","content":"Request cancelled."} line is a
// signal (idle): the turn ended, and nothing else says so when the user
// denied a confirmation. Every other line is none: messages, tool calls and
// the "$set" lines that rewrite the history (which may quote earlier info
// lines; they are not new ones). A line that is not JSON is skipped.
func GeminiTranscript(data []byte) (state statusfile.State, n int) {
	end := bytes.LastIndexByte(data, '\n')
	if end < 0 {
		return "", 0
	}
	for _, line := range bytes.Split(data[:end], []byte("\n")) {
		if geminiCancelLine(line) {
			state = statusfile.Idle
		}
	}
	return state, end + 1
}

// geminiCancelLine reports whether one line of the recording is the
// cancellation line.
func geminiCancelLine(line []byte) bool {
	var m struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &m) != nil || m.Type != "info" {
		return false
	}
	var content string
	return json.Unmarshal(m.Content, &content) == nil && content == geminiCancelledLine
}

// GeminiTranscriptPath returns the transcript_path of a Gemini CLI hook
// payload: the chat recording [GeminiTranscript] reads. "" when the payload
// has none or it is not absolute.
func GeminiTranscriptPath(payload []byte) string {
	var in struct {
		TranscriptPath string `json:"transcript_path"`
	}
	if decodeObject(payload, &in) != nil || len(in.TranscriptPath) == 0 || in.TranscriptPath[0] != '/' {
		return ""
	}
	return in.TranscriptPath
}

// GeminiChatState is GeminiTranscript in the shape of [SourceState], for
// a heartbeat owner that reads a Gemini CLI chat recording as an appended
// log: data is the whole lines appended since its last read. It says idle
// when one of them is the cancellation line, with since that line's "id"
// (a new one for every cancellation); ok is false when none is. session
// and pid are not needed: the recording is the session's own file (its
// transcript_path), named after the session.
func GeminiChatState(data []byte, session string, pid int) (st statusfile.State, since string, ok bool) {
	for _, line := range bytes.Split(data, []byte("\n")) {
		if geminiCancelLine(line) {
			var m struct {
				ID string `json:"id"`
			}
			json.Unmarshal(bytes.TrimSpace(line), &m)
			st, since, ok = statusfile.Idle, m.ID, true
		}
	}
	return st, since, ok
}
