package statusfile

import "strconv"

// Reason says why a file is not a valid record. Reasons are stable strings:
// statusls prints them and the conformance suite compares them.
type Reason string

// Reasons for which [Decode] rejects a file.
const (
	ReasonEmpty        Reason = "empty"              // no bytes, or only white space
	ReasonBadJSON      Reason = "bad-json"           // not exactly one JSON value
	ReasonNotObject    Reason = "not-object"         // JSON, but not an object
	ReasonSchema       Reason = "unsupported-schema" // "schema" is not Schema
	ReasonMissingField Reason = "missing-field"      // a required field is absent or null
	ReasonWrongType    Reason = "wrong-type"         // a field has the wrong JSON type
	ReasonBadValue     Reason = "bad-value"          // right type, unusable value
)

// DecodeError is the error [Decode] returns.
type DecodeError struct {
	Reason Reason
	Field  string // the field at fault, if any ("task.title" for the title)
	Detail string // what was found, for people
}

func (e *DecodeError) Error() string {
	msg := string(e.Reason)
	if e.Field != "" {
		msg += " " + strconv.Quote(e.Field)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}
