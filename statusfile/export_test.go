package statusfile

import "io/fs"

// WithWriteHook calls f after every write attempt, on the publisher's
// goroutine, with the record it tried to write and the result.
func WithWriteHook(f func(Status, error)) Option {
	return optionFunc(func(c *config) { c.onWrite = f })
}

// WithWriteFunc replaces the function that writes the file.
func WithWriteFunc(f func(home, dir, name string, data []byte) (fs.FileInfo, error)) Option {
	return optionFunc(func(c *config) { c.write = f })
}
