package statuspub

import (
	"github.com/agentstatus/agentstatus/internal/agenthook"
	"github.com/agentstatus/agentstatus/statusfile"
)

// The mapping from each agent's hook payload to a change of the record
// lives in package agenthook; this file turns its actions into the
// command's own.

// A hookAction is what one agent event does to its session's record.
type hookAction struct {
	kind    actionKind
	session string
	cwd     string           // "" keeps the cwd
	state   statusfile.State // "" keeps the state
	title   *string          // nil keeps the title; "" means none
	task    *taskOp          // a change to the task list, whose title wins
	source  *agenthook.Source
	wait    *statusfile.Waiting // with state blocked: what it waits for
	ended   *statusfile.Ended   // with state idle: how the turn ended
	// replaces: the other sessions of the agent process end (Codex's
	// /clear).
	replaces bool
}

type actionKind int

const (
	actIgnore actionKind = iota // nothing is written
	actSet                      // the record is updated
	actClear                    // the record is removed
)

func (k actionKind) String() string {
	switch k {
	case actSet:
		return "set"
	case actClear:
		return "clear"
	}
	return "ignore"
}

// ErrBadHookInput is returned for hook input that is not what the agent
// documents: not a JSON object, or without a session id.
var ErrBadHookInput = agenthook.ErrBadInput

// maxHookInput bounds the hook input read from stdin. PostToolUse payloads
// carry the tool's whole response, which can be large.
const maxHookInput = 64 << 20

// fromAgentHook converts an agenthook action.
func fromAgentHook(a agenthook.Action) hookAction {
	h := hookAction{session: a.Session, cwd: a.Cwd, state: a.State, title: a.Title, source: a.Source, replaces: a.Replaces}
	switch a.Kind {
	case agenthook.Set:
		h.kind = actSet
	case agenthook.Remove:
		h.kind = actClear
	default:
		h.kind = actIgnore
	}
	if a.Waiting.Kind != "" {
		h.wait = &a.Waiting
	}
	if a.Ended.Reason != "" {
		h.ended = &a.Ended
	}
	if t := a.Task; t != nil {
		h.task = &taskOp{id: t.ID, create: t.Create, subject: t.Subject, activeForm: t.ActiveForm, status: t.Status}
	}
	return h
}

// adapt turns an agenthook mapper into the command's decide function.
func adapt(m agenthook.Mapper) func([]byte) (hookAction, error) {
	return func(data []byte) (hookAction, error) {
		a, err := m(data)
		if err != nil {
			return hookAction{}, err
		}
		return fromAgentHook(a), nil
	}
}

var codexAction = adapt(agenthook.CodexNotify)
