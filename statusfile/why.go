package statusfile

import (
	"strconv"
	"time"
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
	// Kind is one of the kinds SPEC.md defines: "permission" (approve or
	// deny a tool call), "question" (answer a question the agent asked),
	// "auth" (sign in) or "other"; or a newer publisher's kind, which a
	// reader keeps and shows.
	Kind   string
	Tool   string    // the tool's name as the agent gives it; "" for none
	Detail string    // one line: the command, the file, the question; "" for none
	Since  time.Time // when the wait began; zero when unknown
}

// Ended says how the session's last turn ended: the record's "ended" key.
// The zero value (an empty Reason) means none.
type Ended struct {
	// Reason is one of the reasons SPEC.md defines: "done", "cancelled"
	// (the user interrupted the turn), "failed" or "rate_limited"; or a
	// newer publisher's reason, which a reader keeps and shows.
	Reason string
	Detail string    // e.g. the error's kind or message; "" for none
	At     time.Time // when the turn ended; zero when unknown
}

// Background counts the work an agent started that runs outside its own
// turn: the record's "background" key. The zero value means none.
type Background struct {
	Agents int // subagents
	Tasks  int // other work: background shells, monitors, workflows
}

// maxBackground caps each count: more says nothing a reader can use.
const maxBackground = 9999

// words is how a reader shows the counts: "1 background agent",
// "2 background tasks", "1 background agent, 2 background tasks"; "" for
// none.
func (b Background) words() string {
	part := func(n int, what string) string {
		if n <= 0 {
			return ""
		}
		w := strconv.Itoa(n) + " background " + what
		if n > 1 {
			w += "s"
		}
		return w
	}
	return join(part(b.Agents, "agent"), ", ", part(b.Tasks, "task"))
}

// join returns a and b with sep between them, or whichever is not empty.
func join(a, sep, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + sep + b
}

// sanitizeWhy applies the sanitizer and the caps of SPEC.md to the reason
// keys, and drops the one the state does not allow: waitingFor is kept
// only while blocked, ended only while idle.
func sanitizeWhy(s *Status) {
	w, e := &s.WaitingFor, &s.Ended
	if s.State != Blocked {
		*w = Waiting{}
	}
	if s.State != Idle {
		*e = Ended{}
	}
	// Each is kept only with its kind or reason, once sanitized ("" stays
	// "").
	w.Kind, w.Tool, w.Detail = sanitizeCap(w.Kind, maxWhyWordUnits), sanitizeCap(w.Tool, maxWhyDetailUnits), sanitizeCap(w.Detail, maxWhyDetailUnits)
	if w.Kind == "" {
		*w = Waiting{}
	}
	e.Reason, e.Detail = sanitizeCap(e.Reason, maxWhyWordUnits), sanitizeCap(e.Detail, maxWhyDetailUnits)
	if e.Reason == "" {
		*e = Ended{}
	}
	s.Background.Agents = min(max(s.Background.Agents, 0), maxBackground)
	s.Background.Tasks = min(max(s.Background.Tasks, 0), maxBackground)
}

// Why returns the words SPEC.md gives for why the session is in its
// state: "Bash: rm -rf build", "question: Which database?", "cancelled",
// "rate limited", "1 background agent", "done; 2 background tasks"; ""
// when the record says nothing. The words come from sanitized fields and
// are safe to display.
func (s *Status) Why() string {
	return join(s.ownWhy(), "; ", s.Background.words())
}

// ownWhy is Why without the background work.
func (s *Status) ownWhy() string {
	if w := s.WaitingFor; s.State == Blocked && w.Kind != "" {
		switch {
		case w.Kind == "permission" && w.Tool != "" && w.Detail != "":
			return w.Tool + ": " + w.Detail
		case w.Kind == "permission" && w.Tool != "":
			return w.Tool
		case w.Detail != "":
			return w.Kind + ": " + w.Detail
		}
		return w.Kind
	}
	if e := s.Ended; s.State == Idle && e.Reason != "" {
		switch {
		case e.Reason == "rate_limited":
			return "rate limited"
		case e.Detail != "" && e.Reason != "done" && e.Reason != "cancelled":
			return e.Reason + ": " + e.Detail
		}
		return e.Reason
	}
	return ""
}
