package statusfile

// WithWriteHook calls f after every write attempt, on the publisher's
// goroutine, with the record it tried to write and the result.
func WithWriteHook(f func(Status, error)) Option {
	return optionFunc(func(c *config) { c.onWrite = f })
}
