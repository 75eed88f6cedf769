//go:build linux

package e2e

import (
	"reflect"
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
	waiting := "❯ e2e:agent x\n● Agent(e2e subagent)\n  ⎿  Backgrounded agent\n● done.\n✻ Waiting for 1 background agent to finish\n────\n❯ \n────\n  ⏸ manual mode on · ? for shortcuts\n"
	after := "❯ e2e:agent x\n● done.\n✻ Waiting for 1 background agent to finish\n● Agent \"e2e subagent\" finished · 38s\n● done.\n✻ Cogitated for 1m 1s\n────\n❯ \n────\n  ⏸ manual mode on · ? for shortcuts\n"
	if got := claudeScreen(waiting); got != working {
		t.Errorf("waiting for the agent: %q", got)
	}
	if got := claudeScreen(after); got != idle {
		t.Errorf("after it: %q", got)
	}
}
