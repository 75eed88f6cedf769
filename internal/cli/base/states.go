package base

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentstatus/agentstatus/statusfile"
)

// States are the states of SPEC.md S1, for messages and completion.
var States = []string{string(statusfile.Working), string(statusfile.Blocked), string(statusfile.Idle)}

// OtherStatePrefix asks a reader for a state outside S1 that a newer
// publisher may write (SPEC.md S2): --state other:reviewing.
const OtherStatePrefix = "other:"

// ParseStates parses a reader's --state list: comma-separated states of
// S1, or other:NAME for a state outside them, matched exactly. Anything
// else, a typo or a capitalised state among them, is an error that says
// what was probably meant.
func ParseStates(list string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(list, ",") {
		s := strings.TrimSpace(part)
		name, other := strings.CutPrefix(s, OtherStatePrefix)
		switch known := statusfile.State(name).Known(); {
		case s == "":
			continue
		case other && name == "":
			return nil, fmt.Errorf("%q names no state (other:NAME)", s)
		case other && known:
			return nil, fmt.Errorf("%q is a known state: write %s", s, name)
		case !other && !known:
			return nil, unknownState(s, true)
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no state given (%s)", strings.Join(States, ", "))
	}
	return out, nil
}

// unknownState is the error for the state s outside S1: what was probably
// meant, else the states, with other:s for a reader (other).
func unknownState(s string, other bool) error {
	msg := fmt.Sprintf("unknown state %q", s)
	switch sug := Suggest(s, States); {
	case sug != "":
		msg += "; did you mean " + sug + "?"
	case other:
		msg += fmt.Sprintf(" (%s, or %s%s for a state newer publishers may add)", strings.Join(States, ", "), OtherStatePrefix, s)
	default:
		msg += " (" + strings.Join(States, ", ") + ")"
	}
	return errors.New(msg)
}

// ParseState parses a publisher's --state: one of S1 (SPEC.md S2).
func ParseState(s string) (statusfile.State, error) {
	if st := statusfile.State(s); st.Known() {
		return st, nil
	}
	return "", unknownState(s, false)
}
