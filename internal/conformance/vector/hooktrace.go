package vector

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Hook traces check an agent adapter: a command that reads one hook payload
// on its standard input and writes the session's record, as
// `statuspub claude-hook` does (SPEC.md §13). A trace is a recorded
// sequence of an agent's real hook payloads, each with the state and title
// every reader must see afterwards; the traces cover the known ways of
// getting an agent's state wrong (a permission prompt reported late, a
// subagent's stop taken for the session's, compaction in the middle of a
// turn, a failed turn, an interrupt, other agents' notifications, parallel
// tool calls, a hook that fires for every streamed chunk).
//
// A trace is a txtar archive (conformance/hooktraces/AGENT/NAME.txtar):
//
//	id: claude/late-permission-prompt
//	agent: claude
//	session: 4f0c9a3e-...
//	trap: what a wrong adapter gets wrong here
//	source: where the payload shapes come from
//
//	-- PermissionRequest Bash --
//	{ one payload, any number of lines }
//	-- want --
//	state: blocked
//	title: Run the tests
//	why: Bash: go test ./...
//
// A step is a section holding a payload, followed by a "want" section: the
// record's state and title afterwards ("title:" with nothing after it means
// no title), and, with "why:", what its waitingFor or ended say in the
// words of [statusfile.Status.Why] ("why:" alone: neither), "absent" when the record must be gone, or "unchanged" when the
// step must not write at all (the record, updatedAt included, stays as it
// was).

// HookStep is one hook invocation of a trace.
type HookStep struct {
	Name    string // the section header, e.g. "PermissionRequest Bash"
	Line    int    // the line of its marker, for messages
	Payload []byte
	// What the record must be afterwards.
	Absent    bool
	Unchanged bool
	State     statusfile.State
	Title     string
	// Why is what the record says of why it is in its state, in the
	// words of statusfile.Status.Why: "Bash: rm -rf build", "cancelled",
	// "" for nothing; checked when the want section has a why: line.
	Why    string
	HasWhy bool // the want section has a why: line
}

// HookTrace is one recorded sequence of hook payloads.
type HookTrace struct {
	ID, Agent, Session string
	Trap, Source       string
	Steps              []HookStep
}

// ParseHookTrace parses one trace.
func ParseHookTrace(id string, data []byte) (*HookTrace, error) {
	a := parseTxtar(data)
	tr := &HookTrace{ID: id}
	header := map[string]*string{"id": &tr.ID, "agent": &tr.Agent, "session": &tr.Session, "trap": &tr.Trap, "source": &tr.Source}
	for _, line := range strings.Split(string(a.comment), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			if f := header[strings.TrimSpace(k)]; f != nil {
				*f = strings.TrimSpace(v)
			}
		}
	}
	if tr.Agent == "" || tr.Session == "" {
		return nil, fmt.Errorf("hook trace %s: agent and session are required", id)
	}
	for i := 0; i < len(a.sections); i++ {
		s := a.sections[i]
		if s.header == "want" {
			return nil, fmt.Errorf("hook trace %s:%d: a want section without a payload before it", id, s.line)
		}
		if i+1 >= len(a.sections) || a.sections[i+1].header != "want" {
			return nil, fmt.Errorf("hook trace %s:%d: step %q has no want section after it", id, s.line, s.header)
		}
		st := HookStep{Name: s.header, Line: s.line, Payload: bytes.TrimSpace(s.data)}
		if err := st.parseWant(a.sections[i+1].data); err != nil {
			return nil, fmt.Errorf("hook trace %s:%d: %v", id, a.sections[i+1].line, err)
		}
		tr.Steps = append(tr.Steps, st)
		i++
	}
	if len(tr.Steps) == 0 {
		return nil, fmt.Errorf("hook trace %s: no steps", id)
	}
	return tr, nil
}

func (st *HookStep) parseWant(data []byte) error {
	var state, title bool
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "absent":
			st.Absent = true
		case line == "unchanged":
			st.Unchanged = true
		case strings.HasPrefix(line, "state:"):
			s := statusfile.State(strings.TrimSpace(strings.TrimPrefix(line, "state:")))
			if !s.Known() {
				return fmt.Errorf("unknown state %q (want working, blocked or idle)", string(s))
			}
			st.State, state = s, true
		case strings.HasPrefix(line, "title:"):
			st.Title, title = strings.TrimSpace(strings.TrimPrefix(line, "title:")), true
		case strings.HasPrefix(line, "why:"):
			st.Why, st.HasWhy = strings.TrimSpace(strings.TrimPrefix(line, "why:")), true
		default:
			return fmt.Errorf("want: unknown line %q", line)
		}
	}
	if !st.Absent && !st.Unchanged && !(state && title) {
		return errors.New("want: needs state: and title: (or absent)")
	}
	return nil
}

// LoadHookTraces reads every *.txtar under root in fsys; with agent set,
// only that agent's traces.
func LoadHookTraces(fsys fs.FS, root, agent string) ([]*HookTrace, error) {
	traces, err := load(fsys, root, ".txtar", ParseHookTrace, func(tr *HookTrace) string { return tr.ID })
	return slices.DeleteFunc(traces, func(tr *HookTrace) bool { return agent != "" && tr.Agent != agent }), err
}
