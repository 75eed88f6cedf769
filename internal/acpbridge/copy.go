package acpbridge

import (
	"bytes"
	"io"
)

// MaxParse is the longest line the tracker parses whole. A longer line is
// forwarded like any other, and the tracker sees only its first [MaxHead]
// bytes: what a request's method, id and session id need when they come
// first, as editors send them. Whatever the size of a message, the proxy
// holds at most this much of it.
const MaxParse = 1 << 20

// MaxHead is how much of a line longer than [MaxParse] the tracker sees.
const MaxHead = 64 << 10

// copyBuffer is the size of one read.
const copyBuffer = 64 << 10

// Copy copies src to dst unchanged until src ends or a write fails, and
// hands every complete line (without its newline) to line before the
// write of the bytes that end it: line sees a request before the agent
// can answer it. line must not keep b after it returns. A line longer than [MaxParse] is handed
// over as its first [MaxHead] bytes, with truncated set. A last line
// without a newline is handed over at the end of src. Copy returns the
// number of bytes written and the first error other than io.EOF, and
// whether it was a write error.
func Copy(dst io.Writer, src io.Reader, line func(b []byte, truncated bool)) (n int64, werr bool, err error) {
	buf := make([]byte, copyBuffer)
	var s splitter
	for {
		nr, rerr := src.Read(buf)
		if nr > 0 {
			chunk := buf[:nr]
			s.feed(chunk, line)
			nw, err := dst.Write(chunk)
			n += int64(nw)
			if err == nil && nw != nr {
				err = io.ErrShortWrite
			}
			if err != nil {
				return n, true, err
			}
		}
		if rerr == io.EOF {
			s.flush(line)
			return n, false, nil
		}
		if rerr != nil {
			return n, false, rerr
		}
	}
}

// splitter cuts a stream into lines, keeping at most MaxParse bytes of the
// current one.
type splitter struct {
	cur  []byte
	over bool // the current line is longer than MaxParse
}

func (s *splitter) feed(chunk []byte, line func([]byte, bool)) {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		part := chunk
		if i >= 0 {
			part = chunk[:i]
		}
		s.add(part)
		if i < 0 {
			return
		}
		s.emit(line)
		chunk = chunk[i+1:]
	}
}

func (s *splitter) add(part []byte) {
	switch {
	case s.over:
	case len(s.cur)+len(part) <= MaxParse:
		s.cur = append(s.cur, part...)
	default:
		s.over = true
		if room := MaxHead - len(s.cur); room > 0 {
			s.cur = append(s.cur, part[:min(room, len(part))]...)
		}
		s.cur = s.cur[:min(len(s.cur), MaxHead)]
	}
}

func (s *splitter) emit(line func([]byte, bool)) {
	b := bytes.TrimSuffix(s.cur, []byte("\r"))
	if len(bytes.TrimSpace(b)) > 0 {
		line(b, s.over)
	}
	// A buffer grown by a long line is not kept for the next ones.
	if cap(s.cur) > 64<<10 {
		s.cur = nil
	} else {
		s.cur = s.cur[:0]
	}
	s.over = false
}

func (s *splitter) flush(line func([]byte, bool)) {
	if len(s.cur) > 0 || s.over {
		s.emit(line)
	}
}
