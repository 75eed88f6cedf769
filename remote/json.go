package remote

import (
	"bytes"
	"encoding/json"

	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// VerdictHostError is the verdict of the object that stands for a host
// that could not be listed, in statusls --host --json.
const VerdictHostError = "host-error"

// AppendJSON appends statusls --json's object of e with "host" as its
// first key: the host's name, or null for the local machine (host "").
func AppendJSON(dst []byte, host string, e *reader.Entry) []byte {
	return withHost(dst, host, render.AppendJSON(nil, e))
}

// FieldHost is the key --json FIELDS names the host with.
const FieldHost = "host"

// AppendJSONFields appends the object of [AppendJSON] with only the keys
// in fields: [FieldHost] and the names of render.JSONFields, "host" first
// and the others in their usual order. No fields means all of them.
func AppendJSONFields(dst []byte, host string, e *reader.Entry, fields []string) []byte {
	if len(fields) == 0 {
		return AppendJSON(dst, host, e)
	}
	rest := make([]string, 0, len(fields))
	withHostKey := false
	for _, f := range fields {
		if f == FieldHost {
			withHostKey = true
		} else {
			rest = append(rest, f)
		}
	}
	obj := []byte("{}")
	if len(rest) > 0 {
		obj = render.AppendJSONFields(nil, e, rest)
	}
	if withHostKey {
		return withHost(dst, host, obj)
	}
	return append(dst, obj...)
}

// AppendEventJSON appends statusls watch --json's object of ev with
// "host" as its first key, as [AppendJSON] does.
func AppendEventJSON(dst []byte, host string, ev *render.Event) []byte {
	return withHost(dst, host, render.AppendEventJSON(nil, ev))
}

// withHost appends obj (a JSON object) with "host" as its first key.
func withHost(dst []byte, host string, obj []byte) []byte {
	dst = append(dst, `{"host":`...)
	dst = appendHost(dst, host)
	if len(obj) > 2 {
		dst = append(dst, ',')
	}
	return append(dst, obj[1:]...)
}

func appendHost(dst []byte, host string) []byte {
	if host == "" {
		return append(dst, "null"...)
	}
	return appendString(dst, host)
}

// AppendErrorJSON appends the object that stands for a host that could not
// be listed: "host", "verdict":"host-error", "reason" (the [Kind]), "error"
// (what happened) and "hint" (what to do), with the session keys null so
// that filters on sessions skip it.
func AppendErrorJSON(dst []byte, he *HostError) []byte {
	dst = append(dst, `{"host":`...)
	dst = appendHost(dst, he.Host)
	dst = append(dst, `,"file":null,"session":null,"state":null,"fresh":false,"verdict":"`+VerdictHostError+`","reason":`...)
	dst = appendString(dst, string(he.Kind))
	dst = append(dst, `,"error":`...)
	dst = appendString(dst, he.Msg)
	dst = append(dst, `,"hint":`...)
	if he.Hint == "" {
		dst = append(dst, "null"...)
	} else {
		dst = appendString(dst, he.Hint)
	}
	return append(dst, '}')
}

// appendString appends s, sanitized, as a JSON string.
func appendString(dst []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(statusfile.SanitizeText(s))
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte{'\n'})...)
}
