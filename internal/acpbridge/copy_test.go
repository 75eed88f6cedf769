package acpbridge

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// chunks reads its chunks one per Read.
type chunks [][]byte

func (c *chunks) Read(p []byte) (int, error) {
	if len(*c) == 0 {
		return 0, io.EOF
	}
	n := copy(p, (*c)[0])
	if n == len((*c)[0]) {
		*c = (*c)[1:]
	} else {
		(*c)[0] = (*c)[0][n:]
	}
	return n, nil
}

func split(s string, at ...int) *chunks {
	var c chunks
	prev := 0
	for _, i := range at {
		c = append(c, []byte(s[prev:i]))
		prev = i
	}
	c = append(c, []byte(s[prev:]))
	return &c
}

func TestCopy(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/"}}`
	for _, tc := range []struct {
		name  string
		in    *chunks
		lines []string
	}{
		{"one message", split(msg + "\n"), []string{msg}},
		{"split across reads", split(msg+"\n", 3, 10, 40, len(msg)), []string{msg}},
		{"several per read", split(msg + "\n" + msg + "\n" + msg + "\n"), []string{msg, msg, msg}},
		{"newline alone in a read", split(msg+"\n"+msg+"\n", len(msg), len(msg)+1), []string{msg, msg}},
		{"CRLF", split(msg + "\r\n"), []string{msg}},
		{"blank lines are not handed", split("\n\n  \n" + msg + "\n"), []string{msg}},
		{"last line without newline", split(msg), []string{msg}},
		{"malformed", split("{\"id\":\n\x00\xff\xfe[]\n"), []string{`{"id":`, "\x00\xff\xfe[]"}},
		{"batch", split("[" + msg + "," + msg + "]\n"), []string{"[" + msg + "," + msg + "]"}},
		{"nothing", split(""), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want bytes.Buffer
			for _, c := range *tc.in {
				want.Write(c)
			}
			var out bytes.Buffer
			var got []string
			n, werr, err := Copy(&out, tc.in, func(b []byte, truncated bool) {
				if truncated {
					t.Errorf("line %q truncated", b)
				}
				got = append(got, string(b))
			})
			if err != nil || werr || n != int64(want.Len()) {
				t.Fatalf("Copy = %d, %v, %v", n, werr, err)
			}
			if !bytes.Equal(out.Bytes(), want.Bytes()) {
				t.Fatalf("out %q, want %q", out.Bytes(), want.Bytes())
			}
			if !slices.Equal(got, tc.lines) {
				t.Fatalf("lines %q, want %q", got, tc.lines)
			}
		})
	}
}

// randomChunks cuts b into reads of 1 byte to 200 KiB.
func randomChunks(b []byte, seed uint64) *chunks {
	r := rand.New(rand.NewPCG(seed, 1))
	var c chunks
	for len(b) > 0 {
		n := min(len(b), 1+r.IntN(200<<10))
		c = append(c, b[:n])
		b = b[n:]
	}
	return &c
}

// A message far over MaxParse passes whole; the tracker sees its head
// only. (TestRunPassesEveryByte sends 64 MiB through the proxy.)
func TestCopyHugeMessage(t *testing.T) {
	prefix := `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"S1","prompt":[{"type":"text","text":"`
	const size = 8 << 20
	huge := make([]byte, 0, size+200)
	huge = append(huge, prefix...)
	huge = append(huge, bytes.Repeat([]byte("abcdefgh"), (size-len(prefix))/8)...)
	huge = append(huge, `"}]}}`...)
	in := slices.Concat(huge, []byte("\n"), []byte(newReq+"\n"))
	var lines []string
	var truncs []bool
	h := sha256.New()
	n, _, err := Copy(h, randomChunks(in, 7), func(b []byte, truncated bool) {
		lines = append(lines, string(b))
		truncs = append(truncs, truncated)
	})
	if err != nil || n != int64(len(in)) {
		t.Fatalf("Copy = %d, %v; want %d bytes", n, err, len(in))
	}
	if want := sha256.Sum256(in); !bytes.Equal(h.Sum(nil), want[:]) {
		t.Fatal("the bytes out differ from the bytes in")
	}
	if len(lines) != 2 || !truncs[0] || len(lines[0]) != MaxHead || !strings.HasPrefix(lines[0], prefix) || truncs[1] || lines[1] != newReq {
		t.Fatalf("lines: %d, truncated %v, first %d bytes", len(lines), truncs, len(lines[0]))
	}
	// The head is enough to see the turn begin.
	tr := NewTracker(nil)
	if got := describe(tr.Observe(ed, []byte(lines[0]), true)); got != "working|||" {
		t.Fatalf("head of the huge prompt: %s", got)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n <= 0 {
		return 0, errors.New("broken pipe")
	}
	w.n--
	return len(p), nil
}

func TestCopyWriteError(t *testing.T) {
	_, werr, err := Copy(&failWriter{1}, split("a\nb\nc\n", 2, 4), func([]byte, bool) {})
	if !werr || err == nil {
		t.Fatalf("Copy = %v, %v; want a write error", werr, err)
	}
}

func FuzzCopy(f *testing.F) {
	f.Add([]byte(newReq+"\n"+prompt2+"\n"), uint64(1))
	f.Add([]byte("\n\n{\r\n["), uint64(2))
	f.Fuzz(func(t *testing.T, in []byte, seed uint64) {
		var out bytes.Buffer
		var handed int
		Copy(&out, randomChunks(bytes.Clone(in), seed), func(b []byte, _ bool) { handed += len(b) + 1 })
		if !bytes.Equal(out.Bytes(), in) {
			t.Fatalf("out %q, want %q", out.Bytes(), in)
		}
		if handed > len(in)+1 {
			t.Fatalf("handed %d bytes of %d", handed, len(in))
		}
	})
}
