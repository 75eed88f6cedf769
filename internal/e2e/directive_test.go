//go:build linux

package e2e

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// The scripted model's directives, which every agent's scenarios rely on.
// These run without AGENTSTATUS_E2E.
func TestParseDirective(t *testing.T) {
	tests := []struct {
		text string
		want directive
	}{
		{"e2e:text", directive{kind: "text"}},
		{"  e2e:slow\n", directive{kind: "slow"}},
		{"e2e:plan", directive{kind: "plan"}},
		{"e2e:tool sleep 4; touch /tmp/x", directive{kind: "tool", args: []string{"sleep 4; touch /tmp/x"}}},
		{"e2e:tool", directive{kind: "ok"}},
		{"e2e:parallel ls ;; pwd", directive{kind: "parallel", args: []string{"ls", "pwd"}}},
		{"e2e:parallel ls", directive{kind: "ok"}},
		{"e2e:fail 400", directive{kind: "fail", args: []string{"400"}}},
		{"e2e:fail 200", directive{kind: "ok"}},
		{"e2e:fail x", directive{kind: "ok"}},
		{"e2e:flaky 429", directive{kind: "flaky", args: []string{"429"}}},
		{"e2e:ask Which database?", directive{kind: "ask", args: []string{"Which database?"}}},
		{"e2e:agent sleep 8", directive{kind: "agent", args: []string{"sleep 8"}}},
		{"e2e:agent", directive{kind: "ok"}},
		{"e2e:agent e2e:fail 400", directive{kind: "agent", args: []string{"e2e:fail 400"}}}, // Copilot CLI: the subagent's prompt
		{"e2e:bgagent sleep 8", directive{kind: "bgagent", args: []string{"sleep 8"}}},
		{"e2e:bgagent", directive{kind: "ok"}},
		{"e2e:plan", directive{kind: "plan"}},
		{"e2e:plan Add a README", directive{kind: "plan", args: []string{"Add a README"}}},
		{"e2e:background timeout 8 tail -f /dev/null", directive{kind: "background", args: []string{"timeout 8 tail -f /dev/null"}}},
		{"e2e:background", directive{kind: "ok"}},
		{"<session>\ne2e:tool rm x\n</session> Write a title", directive{kind: "ok"}}, // a side request quoting it
		{"hello", directive{kind: "ok"}},
		{"e2e:dance", directive{kind: "ok"}},
	}
	for _, tt := range tests {
		if got := parseDirective(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseDirective(%q) = %+v, want %+v", tt.text, got, tt.want)
		}
	}
}

// A directive's tool calls are answered once: a later prompt merged into
// the message that carries their results (as Claude Code sends it) is a
// new directive, not the old one's end.
func TestModelDirectiveAfterTools(t *testing.T) {
	m := &model{}
	if d := m.directive("e2e:tool ls", m.answered("e2e:tool ls", nil), true); d.kind != "tool" {
		t.Fatalf("first request: %+v", d)
	}
	m.called("e2e:tool ls", "t1")
	if d := m.directive("e2e:tool ls", m.answered("e2e:tool ls", []string{"t1"}), true); d.kind != "text" {
		t.Fatalf("after the result: %+v", d)
	}
	if d := m.directive("e2e:ask Which?", m.answered("e2e:ask Which?", []string{"t1"}), true); d.kind != "ask" {
		t.Fatalf("the next prompt, with the old result still in its message: %+v", d)
	}
	// A denied call: no request comes with its result until the next
	// prompt, whose message carries it.
	m.called("e2e:tool rm x", "t2")
	if d := m.directive("e2e:tool tail -f y", m.answered("e2e:tool tail -f y", []string{"t2"}), true); d.kind != "tool" {
		t.Fatalf("the prompt after a denial: %+v", d)
	}
	if d := m.directive("e2e:tool ls", false, false); d.kind != "ok" {
		t.Fatalf("a side request without tools: %+v", d)
	}
}

// A flaky directive fails flakyFails times, then answers; a side request
// quoting it neither fails nor counts.
func TestModelFlaky(t *testing.T) {
	m := &model{}
	if d := m.directive("e2e:flaky 429", false, false); d.kind != "ok" {
		t.Fatalf("a side request: %+v", d)
	}
	for i := range flakyFails {
		if d := m.directive("e2e:flaky 429", false, true); d.kind != "fail" || d.status() != 429 {
			t.Fatalf("request %d: %+v", i+1, d)
		}
	}
	if d := m.directive("e2e:flaky 429", false, true); d.kind != "text" {
		t.Fatalf("the retry after %d failures: %+v", flakyFails, d)
	}
}

// Claude Code's wait for background work counts only while it is the
// screen's last word on the turn.
func TestClaudeScreenBackground(t *testing.T) {
	tests := []struct {
		name, screen, want string
	}{
		{"waiting for the agent", "❯ e2e:agent x\n● Agent(e2e subagent)\n  ⎿  Backgrounded agent\n● done.\n" +
			"✻ Waiting for 1 background agent to finish\n────\n❯ \n────\n  ⏸ manual mode on · ? for shortcuts\n", working},
		{"after it", "❯ e2e:agent x\n● done.\n✻ Waiting for 1 background agent to finish\n● Agent \"e2e subagent\" finished · 38s\n" +
			"● done.\n✻ Cogitated for 1m 1s\n────\n❯ \n────\n  ⏸ manual mode on · ? for shortcuts\n", idle},
		// A background shell: no "Waiting for" line, the footer counts it.
		{"a background shell runs", "❯ e2e:background sleep 8\n● Bash(sleep 8)\n  ⎿  Running in the background (↓ to manage)\n● done.\n" +
			"✻ Baked for 2s · done 7:50 PM · 1 shell still running\n────\n❯ \n────\n  ⏸ manual mode on · 1 shell · ↓ to manage\n", working},
		{"after the shell", "❯ e2e:background sleep 8\n● done.\n✻ Baked for 2s · done 7:50 PM\n" +
			"● Background command \"e2e background command\" completed (exit code 0)\n● done.\n────\n❯ \n────\n  ⏸ manual mode on · ? for shortcuts\n", idle},
		{"a monitor runs", "● done.\n✻ Churned for 2s · done 7:58 PM · 1 monitor still running\n────\n❯ \n────\n" +
			"  ⏸ manual mode on · 1 monitor · ← for agents · ↓ to manage\n", working},
	}
	for _, tt := range tests {
		if got := claudeScreen(tt.screen); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// e2e:background, as the Anthropic handler serves it to Claude Code: a
// Bash call with run_in_background, "done." once its result is back, and
// "done." again for the turn the shell's end starts (a task-notification
// that quotes the directive without a tool result), never a second
// background command.
func TestAnthropicBackgroundCommand(t *testing.T) {
	h := anthropicHandler(&model{})
	ask := func(messages string) map[string]any {
		t.Helper()
		body := `{"model":"m","stream":false,"tools":[{"name":"Bash"}],"messages":[` + messages + `]}`
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(body)))
		var out map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("%v: %s", err, w.Body)
		}
		return out
	}
	prompt := `{"role":"user","content":"e2e:background sleep 8"}`
	first := ask(prompt)
	content, _ := first["content"].([]any)
	call, _ := content[0].(map[string]any)
	input, _ := call["input"].(map[string]any)
	if first["stop_reason"] != "tool_use" || call["name"] != "Bash" || input["command"] != "sleep 8" || input["run_in_background"] != true {
		t.Fatalf("the prompt: %v", first)
	}
	id, _ := call["id"].(string)
	used := `{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{}}]}`
	result := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"Command running in background"}]}`
	notified := `{"role":"user","content":[{"type":"text","text":"<task-notification>\n<status>completed</status>\n</task-notification>"}]}`
	// After a turn, Claude Code merges the session into one user and one
	// assistant message: the directive is then in the last message.
	merged := `{"role":"user","content":"e2e:plan"},{"role":"assistant","content":[{"type":"text","text":"done."},` +
		`{"type":"tool_use","id":"` + id + `","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id +
		`","content":"ok"},{"type":"text","text":"e2e:background sleep 8"},{"type":"text","text":"<system-reminder>\nnotification"}]}`
	// In the order Claude Code sends them: the merged request comes
	// after the directive's result has been answered.
	for _, c := range []struct{ name, messages string }{
		{"its result", prompt + "," + used + "," + result},
		{"the turn its end starts", prompt + "," + used + "," + result + `,{"role":"assistant","content":"done."},` + notified},
		{"that turn, merged by Claude", merged},
	} {
		name, messages := c.name, c.messages
		out := ask(messages)
		content, _ := out["content"].([]any)
		block, _ := content[0].(map[string]any)
		if out["stop_reason"] != "end_turn" || block["text"] != "done." {
			t.Errorf("%s: %v", name, out)
		}
	}
}
