//go:build linux

package e2e

import (
	"fmt"
	"os"
	"regexp"
	"time"
)

// The harder moments: a long idle, compaction, retries, a new
// conversation, subagents. Each agent's steps are in harder_<agent>_test.go;
// resume is in resume_test.go.

// longIdle is how long an idle session is watched (agentRun.holds): past
// the 30 s staleness of a record no hook touches, and past the 60 s after
// which Claude Code and Qwen Code send their idle reminder (Notification
// idle_prompt).
const longIdle = 65 * time.Second

// retries checks a turn whose requests fail and are retried (e2e:flaky):
// prompt (working), then the status must stay working while the screen
// does, through every retry, until answer (idle). The time the status
// showed anything else in between is reported as a step of its own. With
// noSignal set (why the agent gives no signal that a failure will be
// retried, SPEC.md §13.2), that time is reported without failing, and the
// step fails when it is within maxWrong after all.
func (r *agentRun) retries(scenario string, prompt, answer step, noSignal string) {
	r.t.Helper()
	r.throughout(scenario, "retrying (working throughout)", prompt, answer, noSignal)
}

// throughout checks a turn whose screen works from prompt until answer,
// as retries does; name is the step of the time in between.
func (r *agentRun) throughout(scenario, name string, prompt, answer step, noSignal string) {
	r.t.Helper()
	if only := os.Getenv("AGENTSTATUS_E2E_ONLY"); only != "" {
		if ok, _ := regexp.MatchString(only, scenario); !ok {
			return
		}
	}
	r.do(scenario, prompt)
	from := time.Now()
	deadline := from.Add(2 * time.Minute)
	for r.screenTruth() == working && time.Now().Before(deadline) {
		time.Sleep(25 * time.Millisecond)
	}
	to := time.Now()
	wrong := r.status.wrongWithin(from, to, working)
	report(r.agent, scenario, -1, name, working, wrong, true, "")
	switch {
	case noSignal != "" && wrong <= maxWrong:
		r.t.Errorf("%s %s (%s): the status was wrong %.2f s, but SPEC.md §13.2 says there is no signal: %s",
			r.agent, scenario, name, wrong.Seconds(), noSignal)
	case noSignal != "":
		r.t.Logf("%s %s (%s): the status was wrong %.2f s of %.1f s; no signal: %s",
			r.agent, scenario, name, wrong.Seconds(), to.Sub(from).Seconds(), noSignal)
	case wrong > maxWrong:
		r.t.Errorf("%s %s (%s): the screen showed working for %.1f s; the status disagreed for %.2f s of it\nstatus timeline:\n%s",
			r.agent, scenario, name, to.Sub(from).Seconds(), wrong.Seconds(), r.status.timeline(from))
	}
	r.do(scenario, answer)
}

// retriesEach runs retries for a turn whose first requests fail with
// each of codes (e2e:flaky CODE, typed with typ), scenario "retry-CODE":
// working throughout, then idle with the answer. settle and within are
// the agent's (within 0: the default).
func (r *agentRun) retriesEach(typ func(string) func(*agentRun), settle, within time.Duration, codes ...int) {
	r.t.Helper()
	for _, code := range codes {
		r.retries(fmt.Sprintf("retry-%d", code),
			step{name: "prompt", act: typ(fmt.Sprintf("e2e:flaky %d", code)), truth: working, settle: settle, within: within},
			step{name: "answer after retries", truth: idle, settle: settle, why: "^done$", within: within}, "")
	}
}
