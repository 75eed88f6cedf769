//go:build linux

package e2e

import "time"

// The moments every agent goes through (a turn, a failed turn, a tool that
// asks and is approved), built once from the agent's keys: each agent's
// test is the list of moments its agent has, with the steps that are its
// own written out, so that a new agent is its keys and that list.

// keys is how the moments' steps talk to one agent.
type keys struct {
	typ    func(text string) func(*agentRun) // types a prompt and submits it
	settle time.Duration                     // how long a state must stay on screen to count
	within time.Duration                     // the bound of a step that sets none (0: the default)
}

// bound gives every step without a bound of its own k.within.
func (k keys) bound(steps []step) []step {
	for i := range steps {
		if steps[i].within == 0 {
			steps[i].within = k.within
		}
	}
	return steps
}

// step is a step with the agent's settle time.
func (k keys) step(name string, act func(*agentRun), truth, why string) step {
	return step{name: name, act: act, truth: truth, settle: k.settle, why: why}
}

// turn is a prompt the agent works on, then its answer: idle, with why
// ("": any).
func (k keys) turn(text, why string) []step {
	return k.bound([]step{k.step("prompt", k.typ(text), working, ""), k.step("answer", nil, idle, why)})
}

// failed is a prompt whose request fails: working (however briefly), then
// idle with why.
func (k keys) failed(text, why string) []step {
	return k.bound([]step{{name: "prompt", act: k.typ(text), truth: working}, k.step("error", nil, idle, why)})
}

// asks is a prompt whose tool or question waits for the user (blocked,
// with why; "": any), then the steps that answer it.
func (k keys) asks(text, why string, then ...step) []step {
	return k.bound(append([]step{k.step("prompt", k.typ(text), blocked, why)}, then...))
}

// approved is a prompt whose tool asks (blocked, with why), approved with
// Enter (working; unsignalled, when set, says why the agent gives no
// signal of it), and the end of the turn: a step named end, idle with
// endWhy.
func (k keys) approved(text, why, unsignalled, end, endWhy string) []step {
	approve := k.step("approve", pressing("Enter"), working, "")
	approve.unsignalled = unsignalled
	return k.asks(text, why, approve, k.step(end, nil, idle, endWhy))
}
