package statuspub_test

import (
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/testmain"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Codex 0.171.0's rollout says two moments no hook does: the plan a turn
// in Plan mode ends with ("Implement this plan?" waits for the user:
// blocked), and a subagent that outlasts the turn (idle, "1 background
// agent", until its <subagent_notification>). The lines are shaped as in
// internal/agenthook/testdata/codex-rollout/plan-bgagent.jsonl.
func TestOwnerFollowsCodexPlanAndBackgroundAgents(t *testing.T) {
	testmain.SkipShort(t, "waits for the owner while it follows a rollout")
	t.Parallel()
	c := newCodexRollout(t, 500*time.Millisecond)
	c.appendLine(`{"timestamp":"2026-12-03T19:50:09.000Z","ordinal":0,"type":"session_meta","payload":{}}` + "\n")
	c.hook("SessionStart")
	waitOneOwner(t, c.dir, c.session)
	why := func(what, want string) {
		t.Helper()
		waitFor(t, what, 10*time.Second, func() bool {
			rec, ok := record(t, c.dir, c.session)
			return ok && rec.Why() == want
		})
	}
	c.hook("UserPromptSubmit")
	c.appendLine(`{"timestamp":"2026-12-03T19:50:13.731Z","ordinal":1,"type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}` + "\n")
	c.waitState("working", statusfile.Working)
	c.appendLine(`{"timestamp":"2026-12-03T19:50:14.910Z","ordinal":9,"type":"event_msg","payload":{"type":"item_completed","thread_id":"x","turn_id":"t1","item":{"type":"Plan","id":"p1","text":"# E2E plan\n\n- Run the e2e step.\n"}}}` + "\n")
	c.hook("Stop") // runs before task_complete is written
	c.appendLine(`{"timestamp":"2026-12-03T19:50:14.941Z","ordinal":14,"type":"event_msg","payload":{"type":"task_complete","turn_id":"t1","last_agent_message":"Here is the plan.\n\n"}}` + "\n")
	c.waitState("blocked: \"Implement this plan?\"", statusfile.Blocked)
	why("the plan named", "permission: E2E plan")
	// Esc writes nothing; the next prompt ends it.
	c.hook("UserPromptSubmit")
	c.waitState("working after the next prompt", statusfile.Working)
	c.appendLine(`{"timestamp":"2026-12-03T19:50:55.287Z","ordinal":59,"type":"response_item","payload":{"type":"function_call","status":"completed","id":"fc_e2eagent","name":"spawn_agent","namespace":"multi_agent_v1","arguments":"{}","call_id":"call_e2espawn_agent"}}` + "\n")
	c.appendLine(`{"timestamp":"2026-12-03T19:50:55.356Z","ordinal":62,"type":"response_item","payload":{"type":"function_call_output","id":"fco_1","call_id":"call_e2espawn_agent","output":"{\"agent_id\":\"01a23d75-ba4f-7853-8f70-841b6355df0e\",\"nickname\":\"Avicenna\"}"}}` + "\n")
	c.hook("Stop")
	c.appendLine(`{"timestamp":"2026-12-03T19:50:56.423Z","ordinal":69,"type":"event_msg","payload":{"type":"task_complete","turn_id":"t2","last_agent_message":"done."}}` + "\n")
	why("the turn ended, the subagent runs on", "done; 1 background agent")
	c.waitState("idle: Codex takes no turn when it ends", statusfile.Idle)
	c.appendLine(`{"timestamp":"2026-12-03T19:51:03.751Z","ordinal":70,"type":"response_item","payload":{"type":"message","id":"m1","role":"user","content":[{"type":"input_text","text":"<subagent_notification>\n{\"agent_path\":\"01a23d75-ba4f-7853-8f70-841b6355df0e\",\"status\":{\"completed\":\"done.\"}}\n</subagent_notification>"}]}}` + "\n")
	why("the subagent ended", "done")
}
