package agenthook

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

// The payloads Gemini CLI 0.61.0 really sent (testdata/gemini/real-*.json,
// recorded against a scripted model on 127.0.0.1; the temporary HOME and
// project paths replaced by /home/user and /home/user/my-project, bulky
// terminal cells and model requests trimmed).
func TestGeminiReal(t *testing.T) {
	const s1, s2 = "c70e0ba5-54d3-4427-91a7-2788bccbe7ca", "2ff8166c-41ff-4b26-9c36-50ea1766b31d"
	runFixtures(t, "gemini", Gemini, []fixture{
		{"real-session-start-startup.json", Set, s2, statusfile.Idle, keep},
		{"real-before-agent.json", Set, s1, statusfile.Working, keep},
		{"real-pre-compress.json", Ignore, s2, "", keep},
		{"real-before-tool-selection.json", Ignore, s2, "", keep},
		{"real-before-tool-shell.json", Set, s1, statusfile.Working, keep},
		{"real-notification-tool-permission-exec.json", Set, s1, statusfile.Blocked, keep},
		{"real-notification-tool-permission-ask-user.json", Set, s1, statusfile.Blocked, keep},
		{"real-after-tool-shell.json", Set, s1, statusfile.Working, keep},
		// Esc while an approved command ran: the turn ends here, and no
		// AfterAgent follows.
		{"real-after-tool-shell-cancelled.json", Set, s1, statusfile.Idle, keep},
		{"real-after-tool-ask-user.json", Set, s1, statusfile.Working, keep},
		{"real-before-tool-update-topic.json", Set, s1, statusfile.Working, keep},
		{"real-after-tool-update-topic.json", Set, s1, statusfile.Working, ptr("Fixing the parser")},
		{"real-after-agent.json", Set, s1, statusfile.Idle, keep},
		{"real-after-agent-esc-streaming.json", Set, s1, statusfile.Idle, keep},
		{"real-after-agent-failed-400.json", Set, s1, statusfile.Idle, keep},
		{"real-session-end-clear.json", Remove, s2, "", keep},
		{"real-session-start-clear.json", Set, s1, statusfile.Idle, keep},
		{"real-session-end-exit.json", Remove, s1, "", keep},
	})
}

func TestGeminiAfterTool(t *testing.T) {
	const pre = `{"session_id":"s","hook_event_name":"AfterTool",`
	tests := []struct {
		name, input string
		state       statusfile.State
		title       *string
	}{
		{"cancelled with output", pre + `"tool_name":"run_shell_command","tool_response":{"llmContent":"<untrusted_context>\nCommand was cancelled by user before it could complete. Below is the output before it was cancelled:\nx\n</untrusted_context>","returnDisplay":"Command cancelled by user.\n\nOutput before cancellation:\nx"}}`, statusfile.Idle, nil},
		{"cancelled before it started", pre + `"tool_name":"run_shell_command","tool_response":{"llmContent":"Command was cancelled by user before it could start.","returnDisplay":"Command cancelled by user."}}`, statusfile.Idle, nil},
		{"cancelled, debug mode", pre + `"tool_name":"run_shell_command","tool_response":{"llmContent":"<untrusted_context>\nCommand was cancelled by user before it could complete. There was no output before it was cancelled.\n</untrusted_context>","returnDisplay":"<untrusted_context>\nCommand was cancelled by user before it could complete. There was no output before it was cancelled.\n</untrusted_context>"}}`, statusfile.Idle, nil},
		{"the inactivity timeout: the turn goes on", pre + `"tool_name":"run_shell_command","tool_response":{"llmContent":"Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output. There was no output before it was cancelled.","returnDisplay":"Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output."}}`, statusfile.Working, nil},
		{"output that quotes the text", pre + `"tool_name":"run_shell_command","tool_response":{"llmContent":"<untrusted_context>\nOutput: Command was cancelled by user before it could complete.\n</untrusted_context>","returnDisplay":"Command was cancelled by user before it could complete.\nCommand cancelled by user."}}`, statusfile.Working, nil},
		{"another tool's cancel text", pre + `"tool_name":"read_file","tool_response":{"returnDisplay":"Command cancelled by user."}}`, statusfile.Working, nil},
		{"returnDisplay as terminal cells", pre + `"tool_name":"run_shell_command","tool_response":{"llmContent":"Output: (empty)","returnDisplay":[[{"text":"Command cancelled by user."}]]}}`, statusfile.Working, nil},
		{"no response", pre + `"tool_name":"run_shell_command"}`, statusfile.Working, nil},
		{"topic with line breaks", pre + `"tool_name":"update_topic","tool_input":{"title":"  Fix\r\n\nthe parser ","strategic_intent":"i"}}`, statusfile.Working, ptr("Fix the parser")},
		{"intent only keeps the topic", pre + `"tool_name":"update_topic","tool_input":{"strategic_intent":"next step"}}`, statusfile.Working, nil},
		{"blank topic keeps it", pre + `"tool_name":"update_topic","tool_input":{"title":" \n ","strategic_intent":"i"}}`, statusfile.Working, nil},
		{"topic not a string", pre + `"tool_name":"update_topic","tool_input":{"title":7}}`, statusfile.Working, nil},
		{"topic before the tool ran", `{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"update_topic","tool_input":{"title":"T"}}`, statusfile.Working, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkAction(t, mapPayload(t, Gemini, tt.input), Set, "s", tt.state, tt.title)
		})
	}
}

// The cancellation lines of real recordings, by line number (1-based).
func TestGeminiChatStateReal(t *testing.T) {
	tests := []struct {
		file   string
		cancel []int
	}{
		// A denied confirmation (17), Esc in an approved tool (32), Esc
		// while streaming (39), Esc before the first token (42), a 400
		// (no line: AfterAgent reports it), Esc while a 500 was retried (56).
		{"transcript-cancels.jsonl", []int{17, 32, 39, 42, 56}},
		// Esc while the model router's request was retried: no AfterAgent
		// came at all, and this line is the only signal.
		{"transcript-esc-before-first-token.jsonl", []int{3}},
		// Esc at ask_user's question: no hook ran after BeforeTool.
		{"transcript-ask-user-esc.jsonl", []int{7}},
		{"transcript-text-and-tool.jsonl", nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "gemini", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for i, line := range bytes.SplitAfter(data, []byte("\n")) {
				switch state, _, ok := GeminiChatState(line, "s", 1); {
				case ok && state == statusfile.Idle:
					got = append(got, i+1)
				case ok || state != "":
					t.Errorf("line %d: state %q", i+1, state)
				}
			}
			if !reflect.DeepEqual(got, tt.cancel) {
				t.Errorf("cancellation lines %v, want %v", got, tt.cancel)
			}
			// Read whole, the file says idle exactly when it has such a line.
			if _, _, ok := GeminiChatState(data, "s", 1); ok != (len(tt.cancel) > 0) {
				t.Errorf("whole file: %v", ok)
			}
		})
	}
}

// Which lines are the cancellation line.
func TestGeminiChatStateLines(t *testing.T) {
	const cancel = `{"id":"1","timestamp":"2026-12-01T13:01:17.474Z","type":"info","content":"Request cancelled."}`
	tests := []struct {
		name, data string
		since      string // "" for no signal
	}{
		{"empty", "", ""},
		{"a whole line", cancel + "\n", "1"},
		{"CRLF", cancel + "\r\n", "1"},
		{"another info", `{"type":"info","content":"This request failed."}` + "\n", ""},
		{"an error", `{"type":"error","content":"[API Error: 400]"}` + "\n", ""},
		{"content not a string", `{"type":"info","content":["Request cancelled."]}` + "\n", ""},
		{"a user message saying it", `{"type":"user","content":[{"text":"Request cancelled."}]}` + "\n", ""},
		{"a history rewrite quoting it", `{"$set":{"messages":[` + cancel + `]}}` + "\n", ""},
		{"not JSON", "Request cancelled.\n", ""},
		{"blank lines", "\n\n", ""},
		{"escaped letters", `{"id":"\u0032","type":"\u0069nfo","content":"Request cancelled\u002e"}` + "\n", "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, since, ok := GeminiChatState([]byte(tt.data), "s", 1)
			if ok != (tt.since != "") || since != tt.since || (ok && state != statusfile.Idle) {
				t.Errorf("GeminiChatState = %q, %q, %v; want since %q", state, since, ok, tt.since)
			}
		})
	}
}

func TestGeminiChatState(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "gemini", "transcript-cancels.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	tests := []struct {
		from, to int // lines, 1-based, inclusive
		since    string
	}{
		{1, 16, ""},
		{17, 17, "2d40826e-b616-441d-a734-bd70d3fd5718"}, // the denial
		{18, 31, ""},
		{1, 40, "a5358aa3-f648-427f-9002-377a15dd0758"}, // the last of three
		{57, len(lines), ""},
	}
	for _, tt := range tests {
		chunk := bytes.Join(lines[tt.from-1:tt.to], nil)
		st, since, ok := GeminiChatState(chunk, "c70e0ba5-54d3-4427-91a7-2788bccbe7ca", 1)
		if ok != (tt.since != "") || since != tt.since || (ok && st != statusfile.Idle) {
			t.Errorf("lines %d-%d: %q %q %v, want since %q", tt.from, tt.to, st, since, ok, tt.since)
		}
	}
}

// The chat recording a payload names is the action's source when its path
// is absolute.
func TestGeminiSource(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "gemini", "real-notification-tool-permission-exec.json"))
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		string(data): "/home/user/.gemini/tmp/my-project/chats/session-2026-12-01T13-00-c70e0ba5.jsonl",
		`{"session_id":"s","transcript_path":"chats/x.jsonl"}`: "",
		`{"session_id":"s"}`: "",
	} {
		a, err := Gemini([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if a.Source != nil && a.Source.Kind == SourceGeminiChat {
			got = a.Source.Path
		}
		if got != want || a.Source != nil && got == "" {
			t.Errorf("Gemini(%.40q).Source = %+v, want %q", in, a.Source, want)
		}
	}
}

// FuzzGeminiChatState: a signal exactly where a line on its own has one,
// since the last such line's, and reading in two parts at a line boundary
// (as a follower does) finds the last signal of the two.
func FuzzGeminiChatState(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "gemini", "transcript-*.jsonl"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, len(data)/2)
	}
	f.Add([]byte("{\"type\":\"info\",\"content\":\"Request cancelled.\"}\n{"), 10)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		state, since, ok := GeminiChatState(data, "s", 1)
		if ok != (state == statusfile.Idle) || !ok && (state != "" || since != "") {
			t.Fatalf("%q %q %v", state, since, ok)
		}
		any, last := false, ""
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			if _, s, ok := GeminiChatState(line, "s", 1); ok {
				any, last = true, s
			}
		}
		if any != ok || last != since {
			t.Fatalf("at once %q %v; line by line %q %v", since, ok, last, any)
		}
		if cut < 0 || cut > len(data) {
			return
		}
		cut = bytes.LastIndexByte(data[:cut], '\n') + 1
		_, s1, ok1 := GeminiChatState(data[:cut], "s", 1)
		_, s2, ok2 := GeminiChatState(data[cut:], "s", 1)
		want, wantOK := s2, ok2
		if !ok2 {
			want, wantOK = s1, ok1
		}
		if wantOK != ok || want != since {
			t.Fatalf("in two parts at %d: %q %v + %q %v; at once %q %v", cut, s1, ok1, s2, ok2, since, ok)
		}
	})
}
