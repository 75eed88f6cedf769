package render

import (
	"strconv"
	"time"

	"github.com/agentstatus/agentstatus/internal/timefmt"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Event is one event of statusls watch, as its --json and TSV lines show
// it.
type Event struct {
	// Kind is the event's name: snapshot, synced, added, updated,
	// heartbeat, stale, fresh, removed or error.
	Kind string
	// Seq numbers the events printed: 1, 2, 3, ... without gaps.
	Seq uint64
	// At is when the watcher saw the change.
	At time.Time
	// Entry is the session's record: the one it has now, or, for removed,
	// the last one shown. Nil for synced and error.
	Entry *reader.Entry
	// Reason says why a removed session left the view.
	Reason string
	// Missing is set on synced when the status directory does not exist.
	Missing bool
	// Err is the message of an error event.
	Err string
}

// AppendEventJSON appends the JSON object of ev, without a newline: the
// keys event, seq and at, then, for an event about a session, the members
// of [AppendJSON]'s object (session among them), with reason saying why a
// removed session left the view. An event about no session (synced, error)
// has "session":null and, instead of the record, "missing" (synced) or
// "error" (error). Strings are sanitized as for display.
func AppendEventJSON(dst []byte, ev *Event) []byte {
	dst = append(dst, `{"event":`...)
	dst = appendJSONString(dst, statusfile.SanitizeText(ev.Kind))
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendUint(dst, ev.Seq, 10)
	dst = append(dst, `,"at":"`...)
	dst = timefmt.Append(dst, ev.At)
	dst = append(dst, `",`...)
	if ev.Entry != nil {
		o := newObject(ev.Entry)
		if ev.Reason != "" {
			o.hasReason, o.reason = true, ev.Reason
		}
		return append(appendMembers(dst, o, nil), '}')
	}
	dst = append(dst, `"session":null`...)
	if ev.Kind == "synced" {
		dst = append(dst, `,"missing":`...)
		dst = strconv.AppendBool(dst, ev.Missing)
	}
	if ev.Err != "" {
		dst = append(dst, `,"error":`...)
		dst = appendJSONString(dst, statusfile.SanitizeText(ev.Err))
	}
	return append(dst, '}')
}

// AppendEventTSV appends the TSV row of ev: its kind, then agent, session,
// state and title as [AppendTSV] writes them (empty for an event about no
// session), and a newline.
func AppendEventTSV(dst []byte, ev *Event) []byte {
	dst = appendTSVField(dst, statusfile.SanitizeText(ev.Kind))
	dst = append(dst, '\t')
	if ev.Entry == nil {
		return append(dst, "\t\t\t\n"...)
	}
	return AppendTSV(dst, &ev.Entry.Status)
}
