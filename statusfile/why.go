package statusfile

import "time"

// The kinds of [Waiting] that SPEC.md defines. A reader keeps and shows
// other values: a newer publisher may add kinds.
const (
	WaitPermission = "permission" // approve or deny a tool call
	WaitQuestion   = "question"   // answer a question the agent asked
	WaitAuth       = "auth"       // sign in
	WaitOther      = "other"
)

// The reasons of [Ended] that SPEC.md defines. A reader keeps and shows
// other values.
const (
	EndDone        = "done"
	EndCancelled   = "cancelled" // the user interrupted the turn
	EndFailed      = "failed"
	EndRateLimited = "rate_limited"
)

// Limits of the reason keys, in UTF-16 code units, applied by [Encode] and
// [Decode].
const (
	maxWhyWordUnits   = 64  // kind, reason
	maxWhyDetailUnits = 200 // tool, detail
)

// Waiting says what a blocked session waits for: the record's "waitingFor"
// key. The zero value (an empty Kind) means none.
type Waiting struct {
	Kind   string    // one of the Wait constants, or a newer publisher's kind
	Tool   string    // the tool's name as the agent gives it; "" for none
	Detail string    // one line: the command, the file, the question; "" for none
	Since  time.Time // when the wait began; zero when unknown
}

// Ended says how the session's last turn ended: the record's "ended" key.
// The zero value (an empty Reason) means none.
type Ended struct {
	Reason string    // one of the End constants, or a newer publisher's reason
	Detail string    // e.g. the error's kind or message; "" for none
	At     time.Time // when the turn ended; zero when unknown
}

// sanitizeWhy applies the sanitizer and the caps of SPEC.md to the reason
// keys, and drops the one the state does not allow: waitingFor is kept
// only while blocked, ended only while idle.
func sanitizeWhy(s *Status) {
	if s.State != Blocked || s.WaitingFor.Kind == "" {
		s.WaitingFor = Waiting{}
	} else {
		w := &s.WaitingFor
		w.Kind = sanitizeCap(w.Kind, maxWhyWordUnits)
		w.Tool = sanitizeCap(w.Tool, maxWhyDetailUnits)
		w.Detail = sanitizeCap(w.Detail, maxWhyDetailUnits)
		if w.Kind == "" {
			*w = Waiting{}
		}
	}
	if s.State != Idle || s.Ended.Reason == "" {
		s.Ended = Ended{}
	} else {
		e := &s.Ended
		e.Reason = sanitizeCap(e.Reason, maxWhyWordUnits)
		e.Detail = sanitizeCap(e.Detail, maxWhyDetailUnits)
		if e.Reason == "" {
			*e = Ended{}
		}
	}
}

// Why returns the words SPEC.md gives for why the session is in its
// state: "Bash: rm -rf build", "question: Which database?", "cancelled",
// "rate limited"; "" when the record says nothing. The words come from
// sanitized fields and are safe to display.
func (s *Status) Why() string {
	if w := s.WaitingFor; s.State == Blocked && w.Kind != "" {
		switch {
		case w.Kind == WaitPermission && w.Tool != "" && w.Detail != "":
			return w.Tool + ": " + w.Detail
		case w.Kind == WaitPermission && w.Tool != "":
			return w.Tool
		case w.Detail != "":
			return w.Kind + ": " + w.Detail
		}
		return w.Kind
	}
	if e := s.Ended; s.State == Idle && e.Reason != "" {
		switch {
		case e.Reason == EndRateLimited:
			return "rate limited"
		case e.Detail != "" && e.Reason != EndDone && e.Reason != EndCancelled:
			return e.Reason + ": " + e.Detail
		}
		return e.Reason
	}
	return ""
}
