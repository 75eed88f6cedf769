package agenthook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

// A subagent's hooks (Codex 0.171.0, spawn_agent) carry the session's id
// and the subagent's agent_id: mapped as the session's, and marked, so
// that the publisher lets them say only what the subagent's dialog does.
func TestCodexSubagentEvents(t *testing.T) {
	const (
		parent = `{"session_id":"01a23ca4-7b61-7e31-8121-106edec5ea2f","turn_id":"01a23ca4-846d-7442-a74d-3d8d28e8804b","transcript_path":"/tmp/cx/home/.codex/sessions/2026/12/03/rollout-2026-12-03T16-02-22-01a23ca4-7b61-7e31-8121-106edec5ea2f.jsonl","cwd":"/tmp/cx/proj","model":"gpt-e2e","permission_mode":"default",`
		sub    = `{"session_id":"01a23ca4-7b61-7e31-8121-106edec5ea2f","turn_id":"01a23ca4-8948-7f40-a720-a785cfa06895","agent_id":"01a23ca4-893c-73e0-b904-949614d4d96a","agent_type":"default","transcript_path":"/tmp/cx/home/.codex/sessions/2026/12/03/rollout-2026-12-03T16-02-25-01a23ca4-893c-73e0-b904-949614d4d96a.jsonl","cwd":"/tmp/cx/proj","model":"gpt-e2e","permission_mode":"default",`
	)
	tests := []struct {
		name     string
		payload  string
		state    statusfile.State
		subagent bool
	}{
		{"the session's prompt", parent + `"hook_event_name":"UserPromptSubmit","prompt":"e2e:bgagent sleep 3"}`, statusfile.Working, false},
		{"the session's Stop", parent + `"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done."}`, statusfile.Idle, false},
		{"the subagent's prompt", sub + `"hook_event_name":"UserPromptSubmit","prompt":"e2e:tool sleep 3"}`, statusfile.Working, true},
		{"the subagent's dialog", sub + `"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"sleep 3","description":"e2e: run sleep 3"}}`, statusfile.Blocked, true},
		{"the subagent's tool ends", sub + `"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"sleep 3"},"tool_response":"","tool_use_id":"call_e2e0"}`, statusfile.Working, true},
		{"the subagent's denial", sub + `"hook_event_name":"Interrupt"}`, statusfile.Idle, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Codex([]byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			if a.State != tt.state || a.Subagent != tt.subagent || a.Session != "01a23ca4-7b61-7e31-8121-106edec5ea2f" {
				t.Errorf("%q subagent %v session %q, want %q subagent %v", a.State, a.Subagent, a.Session, tt.state, tt.subagent)
			}
		})
	}
}

// The lines CodexRollout reads of a rollout recorded from Codex 0.171.0
// (testdata/codex-rollout/plan-bgagent.jsonl, the other lines left out):
// three turns in Plan mode that each proposed a plan ("Implement this
// plan?": Esc, "No, stay in Plan mode", then "Yes, implement"), the turn
// that implemented it, and a turn whose subagent (spawn_agent, no
// wait_agent) outlasted it.
func TestCodexRolloutReal(t *testing.T) {
	type out struct {
		st   statusfile.State
		bg   int
		wait string
	}
	plan := out{statusfile.Blocked, 0, "E2E plan"}
	want := map[string]out{
		"14": plan, "27": plan, "40": plan,
		"69": {statusfile.Idle, 1, ""}, // the turn ends, the subagent runs on
		"70": {"", 0, ""},              // its <subagent_notification>: the count alone
	}
	data, err := os.ReadFile(filepath.Join("testdata", "codex-rollout", "plan-bgagent.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var c CodexRollout
	seen := 0
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		st, bg, wait, since, ok := c.LineState(line)
		var l struct{ Ordinal json.Number }
		json.Unmarshal(line, &l)
		w, wok := want[l.Ordinal.String()]
		if ok != wok {
			t.Errorf("line %s: ok %v, want %v", l.Ordinal, ok, wok)
			continue
		}
		if !ok {
			continue
		}
		seen++
		got := out{st, bg.Agents, wait.Detail}
		if got != w || since != l.Ordinal.String() || (st == statusfile.Blocked && wait.Kind != "permission") {
			t.Errorf("line %s: %+v %q (since %q), want %+v", l.Ordinal, got, wait.Kind, since, w)
		}
	}
	if seen != len(want) {
		t.Errorf("%d lines said something, want %d", seen, len(want))
	}
}

func TestCodexRolloutEdges(t *testing.T) {
	const (
		started  = `{"ordinal":1,"type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}`
		plan     = `{"ordinal":2,"type":"event_msg","payload":{"type":"item_completed","turn_id":"t1","item":{"type":"Plan","text":"\n## Step one\n- then two\n"}}}`
		complete = `{"ordinal":3,"type":"event_msg","payload":{"type":"task_complete","turn_id":"t1"}}`
		failed   = `{"ordinal":3,"type":"event_msg","payload":{"type":"task_complete","turn_id":"t1","error":{"message":"boom"}}}`
		other    = `{"ordinal":3,"type":"event_msg","payload":{"type":"task_complete","turn_id":"t2"}}`
		spawn    = `{"ordinal":4,"type":"response_item","payload":{"type":"function_call","name":"spawn_agent","call_id":"c1"}}`
		spawned  = `{"ordinal":5,"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"agent_id\":\"a1\"}"}}`
		waitCall = `{"ordinal":6,"type":"response_item","payload":{"type":"function_call","name":"multi_agent_v1wait_agent","call_id":"c2"}}`
		waited   = `{"ordinal":7,"type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"{\"status\":{\"a1\":{\"completed\":\"done.\"}},\"timed_out\":false}"}}`
		timedOut = `{"ordinal":7,"type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"{\"status\":{},\"timed_out\":true}"}}`
		notified = `{"ordinal":8,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<subagent_notification>\n{\"agent_path\":\"a1\",\"status\":{\"errored\":\"x\"}}\n</subagent_notification>"}]}}`
		stranger = `{"ordinal":8,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<subagent_notification>\n{\"agent_path\":\"a9\"}\n</subagent_notification>"}]}}`
		end      = `{"ordinal":9,"type":"event_msg","payload":{"type":"task_complete","turn_id":"t3"}}`
	)
	tests := []struct {
		name  string
		lines []string
		st    statusfile.State
		bg    int
		ok    bool
		wait  string
	}{
		{"a plan: its first line, without its marks", []string{started, plan, complete}, statusfile.Blocked, 0, true, "Step one"},
		{"a failed turn proposes nothing", []string{started, plan, failed}, "", 0, false, ""},
		{"another turn's end", []string{started, plan, other}, "", 0, false, ""},
		{"a new turn forgets the plan", []string{started, plan, started, complete}, "", 0, false, ""},
		{"a turn without subagents", []string{started, end}, "", 0, false, ""},
		{"a subagent outlasts the turn", []string{spawn, spawned, end}, statusfile.Idle, 1, true, ""},
		{"waited for: it ended in the turn", []string{spawn, spawned, waitCall, waited}, "", 0, true, ""},
		{"a wait that timed out", []string{spawn, spawned, waitCall, timedOut, end}, statusfile.Idle, 1, true, ""},
		{"its notification, whatever its status", []string{spawn, spawned, end, notified}, "", 0, true, ""},
		{"another subagent's notification", []string{spawn, spawned, stranger}, "", 0, false, ""},
		{"a plan and a subagent", []string{started, spawn, spawned, plan, complete}, statusfile.Blocked, 1, true, "Step one"},
		{"not JSON", []string{"{", "", "[1]"}, "", 0, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c CodexRollout
			var (
				st   statusfile.State
				bg   statusfile.Background
				wait statusfile.Waiting
				ok   bool
			)
			for _, l := range tt.lines {
				st, bg, wait, _, ok = c.LineState([]byte(l))
			}
			if st != tt.st || bg.Agents != tt.bg || ok != tt.ok || wait.Detail != tt.wait {
				t.Errorf("%q %d %v %q, want %q %d %v %q", st, bg.Agents, ok, wait.Detail, tt.st, tt.bg, tt.ok, tt.wait)
			}
		})
	}
}
