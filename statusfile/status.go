package statusfile

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Protocol constants.
const (
	// Schema is the value of the "schema" key of every v1 record.
	Schema = "gentle-shell.agent-status/v1"

	// HeartbeatInterval is the longest a publisher may go without
	// rewriting its file.
	HeartbeatInterval = 10 * time.Second

	// StaleAfter is how old (or how far in the future) a record may be and
	// still be fresh. A record exactly StaleAfter old is fresh.
	StaleAfter = 30 * time.Second

	// MaxFileSize is the largest status file a reader reads. Larger files
	// are invalid.
	MaxFileSize = 64 << 10

	// maxTitleUnits is the number of UTF-16 code units of a raw title that
	// the sanitizer looks at.
	maxTitleUnits = 4096

	// maxPID is the largest pid a record may carry (SPEC.md C4).
	maxPID = 1<<31 - 1

	// maxSessionBytes is the longest session id, in UTF-8 bytes.
	maxSessionBytes = 1024
)

// State is what a session is doing. The v1 vocabulary is [Working],
// [Blocked] and [Idle]; readers keep other values as they are.
type State string

// The states of the v1 vocabulary.
const (
	Working State = "working"
	Blocked State = "blocked" // waiting for the user; takes precedence
	Idle    State = "idle"
)

// Known reports whether s is one of the v1 states.
func (s State) Known() bool {
	return s == Working || s == Blocked || s == Idle
}

// errUnknownState is the error of a state outside the v1 vocabulary.
var errUnknownState = errors.New("unknown state")

// Status is one session's record.
type Status struct {
	Schema  string // always [Schema] once decoded; Encode writes [Schema]
	Agent   string // which program publishes, e.g. "pi" or "claude-code"
	Session string // the session id; the file name is its hash
	PID     int    // the publisher's process id; 0 when unknown
	Cwd     string // the session's workspace; absolute
	State   State
	// Title is the sanitized task title. Empty means "task": null.
	Title     string
	UpdatedAt time.Time
	// WaitingFor says what a blocked session waits for, Ended how an idle
	// session's last turn ended. Each is kept only with its state, and
	// Decode returns them sanitized.
	WaitingFor Waiting
	Ended      Ended
	// Background counts the work the agent started that still runs
	// outside its own turn (SPEC.md §4.4), whatever the state.
	Background Background
}

// errInvalidSession is the error of a session id that SPEC.md does not allow.
var errInvalidSession = errors.New("invalid session id")

// ValidateSession reports whether id may be used as a session id: non-empty
// valid UTF-8 of at most 1024 bytes, without C0 or C1 control
// characters.
func ValidateSession(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: empty", errInvalidSession)
	case len(id) > maxSessionBytes:
		return fmt.Errorf("%w: %d bytes, more than %d", errInvalidSession, len(id), maxSessionBytes)
	case !utf8.ValidString(id):
		return fmt.Errorf("%w: not valid UTF-8", errInvalidSession)
	}
	for i, r := range id {
		if isControl(r) {
			return fmt.Errorf("%w: control character U+%04X at byte %d", errInvalidSession, r, i)
		}
	}
	return nil
}

// Fresh reports whether the record is fresh at now: at most [StaleAfter] old
// and at most [StaleAfter] in the future.
func (s *Status) Fresh(now time.Time) bool {
	age := now.Sub(s.UpdatedAt)
	return age <= StaleAfter && age >= -StaleAfter
}
