package base

import "github.com/agentstatus/agentstatus/internal/errtext"

// Message is err's text as a command shows it: one line, without the
// package prefixes of the module's errors (see package errtext).
func Message(err error) string { return errtext.Message(err) }
