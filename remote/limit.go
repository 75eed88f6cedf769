package remote

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// Bounds on what a host may send.
const (
	// maxLineBytes bounds one line of a host's output. A statusls --json
	// object holds at most one status file's strings (64 KiB, SPEC.md R7),
	// escaped; 256 KiB leaves room to spare.
	maxLineBytes = 256 << 10
	// maxHostBytes bounds a host's whole listing: about 60,000 sessions.
	maxHostBytes = 32 << 20
	// maxHostEntries bounds the sessions a watched host may hold.
	maxHostEntries = 100_000
	// maxStderr is how much of ssh's standard error is kept, for messages.
	maxStderr = 8 << 10
)

// errLineTooLong reports a line over maxLineBytes.
var errLineTooLong = fmt.Errorf("a line longer than %d KiB", maxLineBytes>>10)

// lineReader reads lines of at most maxLineBytes.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its newline. It returns io.EOF at the
// end (a last line without a newline is returned first), and
// errLineTooLong when a line is too long.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		frag, err := l.r.ReadSlice('\n')
		if len(l.buf)+len(frag) > l.max+1 {
			return nil, errLineTooLong
		}
		l.buf = append(l.buf, frag...)
		switch {
		case err == nil:
			return l.buf[:len(l.buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(l.buf) > 0:
			return l.buf, nil
		default:
			return nil, err
		}
	}
}

// limitedReader fails once more than N bytes were read (io.LimitReader
// would end silently, making a cut listing look whole).
type limitedReader struct{ io.LimitedReader }

var errTooLarge = errors.New("output too large")

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.N <= 0 {
		return 0, errTooLarge
	}
	return l.LimitedReader.Read(p)
}

// tailBuffer keeps the last max bytes written to it: the end of ssh's
// standard error, where its message is.
type tailBuffer struct {
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}
