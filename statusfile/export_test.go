package statusfile

import "io/fs"

// Hooks replace parts of a [Publisher] in tests.
type Hooks struct {
	// OnWrite is called after every write attempt, on the publisher's
	// goroutine, with the record it tried to write and the result.
	OnWrite func(Status, error)
	// Write replaces the function that writes the file.
	Write func(home, dir, name string, data []byte) (fs.FileInfo, error)
}

// NewHookedPublisher is [NewPublisher] with hooks.
func NewHookedPublisher(session string, o Options, h Hooks) (*Publisher, error) {
	return newPublisher(session, o, hooks{onWrite: h.OnWrite, writeFile: h.Write})
}

// ErrInvalidSession is the error of an invalid session id.
var ErrInvalidSession = errInvalidSession
