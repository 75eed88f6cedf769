package render

import (
	"slices"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// What statusls prints for several hosts (--host): every JSON object has
// "host" as its first key, the host's name or null for this machine (host
// ""), and every TSV row the host as its first field (its second, after
// the event, in watch), empty for this machine.

// FieldHost is the key --json FIELDS names the host with.
const FieldHost = "host"

// VerdictHostError is the verdict of the object that stands for a host
// that could not be listed, in statusls --host --json.
const VerdictHostError = "host-error"

// AppendHostJSON appends the object of [AppendJSONFields] with "host" as
// its first key. fields may name [FieldHost] beside the names of
// [JSONFields]; "host" comes first and the others in their usual order. No
// fields means all of them.
func AppendHostJSON(dst []byte, host string, e *reader.Entry, fields []string) []byte {
	obj := AppendJSONFields(nil, e, fields) // host is not a member: left out
	if len(fields) > 0 && !slices.Contains(fields, FieldHost) {
		return append(dst, obj...)
	}
	return withHost(dst, host, obj)
}

// AppendHostEventJSON appends statusls watch --json's object of ev with
// "host" as its first key.
func AppendHostEventJSON(dst []byte, host string, ev *Event) []byte {
	return withHost(dst, host, AppendEventJSON(nil, ev))
}

// AppendHostEventTSV appends the TSV row of ev with the host after the
// event's name.
func AppendHostEventTSV(dst []byte, host string, ev *Event) []byte {
	kind := statusfile.SanitizeText(ev.Kind)
	dst = append(dst, kind+"\t"+statusfile.SanitizeText(host)+"\t"...)
	return append(dst, AppendEventTSV(nil, ev)[len(kind)+1:]...)
}

// AppendHostTSV appends the TSV row of [AppendTSV] after the host's field.
// (Host names hold no tab, newline or backslash.)
func AppendHostTSV(dst []byte, host string, s *statusfile.Status) []byte {
	dst = append(dst, statusfile.SanitizeText(host)+"\t"...)
	return AppendTSV(dst, s)
}

// AppendHostErrorJSON appends the object that stands for a host that could
// not be listed: "host", "verdict":"host-error", "reason" (why it failed),
// "error" (what happened) and "hint" (what to do, null when none), with the
// session keys null so that filters on sessions skip it.
func AppendHostErrorJSON(dst []byte, host, reason, msg, hint string) []byte {
	obj := []byte(`{"file":null,"session":null,"state":null,"fresh":false,"verdict":"` + VerdictHostError + `","reason":`)
	obj = appendOptString(obj, true, reason)
	obj = append(obj, `,"error":`...)
	obj = appendOptString(obj, true, msg)
	obj = append(obj, `,"hint":`...)
	obj = appendOptString(obj, hint != "", hint)
	return withHost(dst, host, append(obj, '}'))
}

// withHost appends obj (a JSON object) with "host" as its first key.
func withHost(dst []byte, host string, obj []byte) []byte {
	dst = append(dst, `{"host":`...)
	dst = appendOptString(dst, host != "", host) // null: this machine
	if len(obj) > 2 {
		dst = append(dst, ',')
	}
	return append(dst, obj[1:]...)
}
