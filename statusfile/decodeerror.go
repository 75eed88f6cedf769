package statusfile

import "strconv"

// The reasons for which [Decode] rejects a file.
const (
	reasonEmpty        = "empty"
	reasonBadJSON      = "bad-json"
	reasonNotObject    = "not-object"
	reasonSchema       = "unsupported-schema"
	reasonMissingField = "missing-field"
	reasonWrongType    = "wrong-type"
	reasonBadValue     = "bad-value"
)

// DecodeError is the error [Decode] returns.
type DecodeError struct {
	// Reason says why the file is not a valid record, in the words of
	// SPEC.md §10, which statusls prints and the conformance suite
	// compares: "empty" (no bytes, or only white space), "bad-json" (not
	// exactly one JSON value), "not-object" (JSON, but not an object),
	// "unsupported-schema" ("schema" is not [Schema]), "missing-field" (a
	// required field is absent or null), "wrong-type" (a field has the
	// wrong JSON type) or "bad-value" (the right type, an unusable value).
	Reason string
	Field  string // the field at fault, if any ("task.title" for the title)
	Detail string // what was found, for people
}

func (e *DecodeError) Error() string {
	msg := e.Reason
	if e.Field != "" {
		msg += " " + strconv.Quote(e.Field)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}
