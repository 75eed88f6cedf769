package base

import "strings"

// Message is err's text as a command shows it: on one line. The module's
// errors are worded where they are made, for the people who read them, so
// nothing else is rewritten.
func Message(err error) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(err.Error())
}
