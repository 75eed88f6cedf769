package testbin

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that a running program writes (a subprocess's
// output, or a command's streams while it runs in a goroutine) and the
// test reads meanwhile. Its zero value is an empty buffer.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
