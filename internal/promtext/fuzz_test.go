package promtext_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentstatus/agentstatus/internal/promtest"
	"github.com/agentstatus/agentstatus/internal/promtext"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// fuzzSeeds are pairs of status files, as a directory could hold them.
var fuzzSeeds = [][2]string{
	{`{"schema":"gentle-shell.agent-status/v1","session":"a","state":"working","updatedAt":"2026-12-02T11:59:58Z","agent":"pi","cwd":"/w"}`,
		`{"schema":"gentle-shell.agent-status/v1","session":"b","state":"blocked","updatedAt":"2026-12-02T11:59:58Z","agent":"codex","waitingFor":{"kind":"question","since":"2026-12-02T11:40:00Z"}}`},
	{`{"schema":"gentle-shell.agent-status/v1","session":"q\"\\\n\u001b[31m","state":"idle\"\n","updatedAt":"2026-12-02T11:59:58Z","agent":"a\"\\\n\u0000\u202e","cwd":"/\"\\\n"}`,
		`{"schema":"gentle-shell.agent-status/v1","session":"q\"\\ \u001b[31m","state":"idle","updatedAt":"2026-12-02T11:59:58Z","ended":{"reason":"done","at":"2030-01-01T00:00:00Z"}}`},
	{`{"schema":"gentle-shell.agent-status/v1","session":"` + strings.Repeat("é", 300) + `","state":"working","updatedAt":"2026-12-02T11:59:58Z","task":{"title":"` + strings.Repeat("T", 4096) + `"},"cwd":"` + strings.Repeat("🙂", 100) + `"}`,
		`{"schema":"gentle-shell.agent-status/v1","session":"` + strings.Repeat("é", 300) + `x","state":"working","updatedAt":"2026-12-02T11:59:58Z"}`},
	{`{"schema":"gentle-shell.agent-status/v1","session":"old","state":"working","updatedAt":"2026-12-02T10:00:00Z"}`, `{`},
	{``, `[1]`},
}

// entries turns a pair of status files into the entries of a listing at
// now, as the reader would: decoded, judged fresh or stale, or invalid
// with the decoder's reason; a second record of the same session is a
// name mismatch.
func entries(a, b []byte) []reader.Entry {
	var out []reader.Entry
	names := map[string]bool{}
	for i, data := range [][]byte{a, b} {
		st, err := statusfile.Decode(data)
		if err != nil {
			var de *statusfile.DecodeError
			reason := "bad-json"
			if errors.As(err, &de) {
				reason = de.Reason
			}
			out = append(out, reader.Entry{Name: fmt.Sprintf("%064d.json", i), Verdict: reader.Invalid, Reason: reason, Err: err})
			continue
		}
		e := reader.Entry{Name: statusfile.FileName(st.Session), Status: st, Age: now.Sub(st.UpdatedAt)}
		switch {
		case names[e.Name]:
			e.Name, e.Verdict, e.Reason = fmt.Sprintf("%064d.json", i), reader.Invalid, "name-mismatch"
		case st.Fresh(now):
			e.Verdict = reader.Fresh
		default:
			e.Verdict = reader.Stale
		}
		names[e.Name] = true
		out = append(out, e)
	}
	return out
}

// FuzzAppend: whatever the files hold, the output is the exposition
// format (checked in-process here; TestFuzzCorpusPromtool checks the
// corpus with promtool), with no series twice and no title in it.
func FuzzAppend(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s[0]), []byte(s[1]), true, false)
	}
	f.Fuzz(func(t *testing.T, a, b []byte, perSession, openMetrics bool) {
		o := promtext.Options{PerSession: perSession, OpenMetrics: openMetrics}
		h := promtext.NewHost("", now, perSession)
		es := entries(a, b)
		for i := range es {
			h.Add(&es[i])
		}
		out := promtext.Append(nil, []*promtext.Host{h}, o)
		checkSyntax(t, out, o)
		if err := validExposition(out); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	})
}

// validExposition checks every sample line against the text format's
// grammar: a metric name, label pairs whose values are valid UTF-8 with
// only \\, \" and \n escapes, and a number.
func validExposition(out []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# ") {
			continue
		}
		i := 0
		for i < len(line) && (isNameChar(line[i]) || line[i] == ':') {
			i++
		}
		if i == 0 {
			return fmt.Errorf("no metric name: %q", line)
		}
		if i < len(line) && line[i] == '{' {
			i++
			for line[i] != '}' {
				j := i
				for j < len(line) && isNameChar(line[j]) {
					j++
				}
				if j == i || !strings.HasPrefix(line[j:], `="`) {
					return fmt.Errorf("bad label name at %d: %q", i, line)
				}
				i = j + 2
				for ; i < len(line) && line[i] != '"'; i++ {
					if line[i] == '\\' {
						if i+1 >= len(line) || !strings.ContainsRune(`\"n`, rune(line[i+1])) {
							return fmt.Errorf("bad escape at %d: %q", i, line)
						}
						i++
					}
				}
				if i >= len(line) {
					return fmt.Errorf("unterminated label value: %q", line)
				}
				i++
				if line[i] == ',' {
					i++
				} else if line[i] != '}' {
					return fmt.Errorf("expected , or } at %d: %q", i, line)
				}
			}
			i++
		}
		if i >= len(line) || line[i] != ' ' {
			return fmt.Errorf("no value: %q", line)
		}
		if _, err := strconv.ParseFloat(line[i+1:], 64); err != nil {
			return fmt.Errorf("bad value: %q", line)
		}
		if !utf8.ValidString(line) {
			return fmt.Errorf("invalid UTF-8: %q", line)
		}
	}
	return sc.Err()
}

func isNameChar(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// TestFuzzCorpusPromtool: the output of every input of the fuzz corpus
// (the seeds and testdata/fuzz/FuzzAppend), each as a host of one
// exposition, passes promtool check metrics.
func TestFuzzCorpusPromtool(t *testing.T) {
	inputs := fuzzSeeds[:]
	files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzAppend", "*"))
	for _, file := range files {
		a, b, err := readCorpus(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		inputs = append(inputs, [2]string{string(a), string(b)})
	}
	if len(files) == 0 {
		t.Fatal("no corpus files in testdata/fuzz/FuzzAppend")
	}
	for _, om := range []bool{false, true} {
		var hosts []*promtext.Host
		for i, in := range inputs {
			h := promtext.NewHost("input-"+strconv.Itoa(i), now, true)
			es := entries([]byte(in[0]), []byte(in[1]))
			for j := range es {
				h.Add(&es[j])
			}
			hosts = append(hosts, h)
		}
		o := promtext.Options{PerSession: true, HostLabel: true, OpenMetrics: om}
		out := promtext.Append(nil, hosts, o)
		checkSyntax(t, out, o)
		promtest.CheckMetrics(t, fmt.Sprintf("the fuzz corpus (%d inputs, OpenMetrics %v)", len(inputs), om), out)
	}
}

// readCorpus reads the two []byte values of a corpus file ("go test fuzz
// v1" and one Go literal a line).
func readCorpus(file string) ([]byte, []byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 3 || lines[0] != "go test fuzz v1" {
		return nil, nil, errors.New("not a go test fuzz v1 file")
	}
	var vals [][]byte
	for _, l := range lines[1:3] {
		lit, ok := strings.CutPrefix(l, "[]byte(")
		if !ok {
			return nil, nil, fmt.Errorf("not a []byte: %q", l)
		}
		s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
		if err != nil {
			return nil, nil, err
		}
		vals = append(vals, []byte(s))
	}
	return vals[0], vals[1], nil
}
