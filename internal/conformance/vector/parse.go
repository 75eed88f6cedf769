package vector

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// lineError is a parse error at a line of a vector.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("%d: %s", e.line, e.msg) }

func errAt(line int, format string, args ...any) error {
	return &lineError{line, fmt.Sprintf(format, args...)}
}

// Parse parses one vector. id is its path without the extension; the
// header's id must equal it.
func Parse(id string, data []byte) (*Case, error) {
	c := &Case{}
	a := parseTxtar(data)
	err := c.parseHeader(a.comment)
	if err == nil && c.ID != id {
		err = errAt(1, "id %q is not the file's path %q", c.ID, id)
	}
	if err == nil {
		err = c.parseSections(a.sections)
	}
	if err == nil {
		err = c.validate()
	}
	if err != nil {
		return nil, fmt.Errorf("%s.txt:%w", id, err)
	}
	return c, nil
}

// parseHeader reads the "key: value" lines before the first section and
// fills in the defaults.
func (c *Case) parseHeader(comment []byte) error {
	seen := map[string]bool{}
	for i, line := range strings.Split(string(comment), "\n") {
		n := i + 1
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return errAt(n, "want 'key: value', got %q", line)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if key != "requirement" && seen[key] {
			return errAt(n, "%s given twice", key)
		}
		seen[key] = true
		if msg := c.setHeader(key, val); msg != "" {
			return errAt(n, "%s", msg)
		}
	}
	for _, k := range []string{"id", "level", "rules", "requirement", "now", "expect"} {
		if !seen[k] {
			return errAt(1, "missing %q", k)
		}
	}
	c.Dir.Mode, c.Runs = cmp.Or(c.Dir.Mode, 0o700), cmp.Or(c.Runs, 1)
	return nil
}

// setHeader sets one header key; it returns what is wrong with it, or "".
func (c *Case) setHeader(key, val string) string {
	switch key {
	case "id":
		c.ID = val
	case "level":
		c.Level = val
		if c.Level != Core && c.Level != Hardened {
			return fmt.Sprintf("level must be core or hardened, not %q", val)
		}
	case "rules":
		c.Rules = strings.Fields(val)
		for _, r := range c.Rules {
			if !ruleID.MatchString(r) {
				return fmt.Sprintf("%q is not a rule id", r)
			}
		}
	case "requirement":
		c.Requirements = append(c.Requirements, val)
	case "description":
		c.Description = val
	case "now":
		t, err := time.Parse(TimeLayout, val)
		if err != nil || t.Format(TimeLayout) != val {
			return fmt.Sprintf("now must be RFC 3339 UTC with milliseconds (%s), not %q", TimeLayout, val)
		}
		c.Now, c.NowText = t, val
	case "expect":
		c.Expect = Expect(val)
		if c.Expect != ExpectSessions && c.Expect != ExpectError {
			return fmt.Sprintf("expect must be sessions or error, not %q", val)
		}
	case "dir":
		for _, d := range strings.Fields(val) {
			if msg := c.Dir.set(d); msg != "" {
				return msg
			}
		}
	case "runs":
		v, err := strconv.Atoi(val)
		if err != nil || v < 1 || v > 100 {
			return "runs must be a number from 1 to 100"
		}
		c.Runs = v
	case "churn":
		v, err := strconv.Atoi(val)
		if err != nil || v < 2 || v > 1000 {
			return "churn must be a number of files from 2 to 1000"
		}
		c.Churn = v
	default:
		return fmt.Sprintf("unknown key %q", key)
	}
	return ""
}

// set applies one directive of the "dir" header.
func (d *DirSpec) set(directive string) string {
	flag := map[string]*bool{"symlink": &d.Symlink, "parent-symlink": &d.ParentSymlink, "missing": &d.Missing, "owner=other": &d.OtherOwner}[directive]
	kind, notDir := strings.CutPrefix(directive, "not-directory=")
	mode, hasMode := strings.CutPrefix(directive, "mode=")
	var err error
	switch {
	case flag != nil:
		*flag = true
	case notDir && (kind == string(File) || kind == string(FIFO)):
		d.NotDir = EntryKind(kind)
	case hasMode:
		if d.Mode, err = parseMode(mode); err != nil {
			return err.Error()
		}
	default:
		return fmt.Sprintf("unknown dir directive %q", directive)
	}
	return ""
}

// parseSections reads the entries of the status directory, the files
// outside it and the expected sessions.
func (c *Case) parseSections(sections []section) error {
	names := map[string]bool{}
	sawExpected := false
	for _, s := range sections {
		f := strings.Fields(s.header)
		if len(f) == 0 {
			return errAt(s.line, "empty section header")
		}
		switch kind := f[0]; {
		case kind == "expected":
			if len(f) != 1 || sawExpected {
				return errAt(s.line, "want exactly one section '-- expected --'")
			}
			sawExpected = true
			sessions, err := parseExpected(s.data)
			if err != nil {
				return errAt(s.line, "expected: %v", err)
			}
			c.Sessions = sessions
		case len(f) < 2:
			return errAt(s.line, "section %q needs a name", s.header)
		case f[1] == "" || f[1] == "." || f[1] == ".." || strings.ContainsAny(f[1], `/\`):
			return errAt(s.line, "bad name %q", f[1])
		case kind == "outside":
			if len(f) != 2 {
				return errAt(s.line, "outside takes only a name")
			}
			c.Outside = append(c.Outside, OutsideFile{Name: f[1], Data: s.data})
		default:
			if names[f[1]] {
				return errAt(s.line, "%s listed twice", f[1])
			}
			names[f[1]] = true
			e, err := parseEntry(s, f)
			if err != nil {
				return err
			}
			c.Entries = append(c.Entries, e)
		}
	}
	if !sawExpected {
		return errAt(1, "no '-- expected --' section")
	}
	return nil
}

// parseEntry reads one entry of the status directory: a section whose
// header is KIND NAME [ATTRS...] (fields f).
func parseEntry(s section, f []string) (Entry, error) {
	kind := f[0]
	e := Entry{Kind: EntryKind(kind), Name: f[1]}
	attrs := f[2:]
	switch e.Kind {
	case Symlink:
		if len(attrs) != 2 || attrs[0] != "->" {
			return e, errAt(s.line, "want '-- symlink NAME -> TARGET --'")
		}
		e.Target, attrs = attrs[1], nil
	case File, FIFO, Socket, Dir, Device:
	default:
		return e, errAt(s.line, "unknown section kind %q", kind)
	}
	size := -1
	escaped := false
	for _, at := range attrs {
		k, v, _ := strings.Cut(at, "=")
		switch {
		case k == "mode":
			m, err := parseMode(v)
			if err != nil {
				return e, errAt(s.line, "%v", err)
			}
			e.Mode = m
		case at == "owner=other":
			e.OtherOwner = true
		case k == "size" && e.Kind == File:
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 16<<20 {
				return e, errAt(s.line, "bad size %q", v)
			}
			size = n
		case at == "bytes=escaped" && e.Kind == File:
			escaped = true
		default:
			return e, errAt(s.line, "unknown attribute %q for %s", at, kind)
		}
	}
	if e.Kind != File && len(bytes.TrimSpace(s.data)) != 0 {
		return e, errAt(s.line, "a %s section has no content", kind)
	}
	if e.Kind == File {
		data, err := fileData(s.data, escaped, size)
		if err != nil {
			return e, errAt(s.line, "%v", err)
		}
		e.Data = data
	}
	if e.Mode == 0 {
		e.Mode = 0o600
		if e.Kind == Dir {
			e.Mode = 0o700
		}
	}
	return e, nil
}

// fileData is a file section's content: \xHH turned into bytes when
// escaped, padded with spaces before its last newline to size when size
// is not negative.
func fileData(data []byte, escaped bool, size int) ([]byte, error) {
	if escaped {
		data = escapeByte.ReplaceAllFunc(data, func(m []byte) []byte {
			b, _ := hex.DecodeString(string(m[2:]))
			return b
		})
	}
	if size < 0 {
		return data, nil
	}
	body := bytes.TrimSuffix(data, []byte("\n"))
	if len(body)+1 > size {
		return nil, fmt.Errorf("content is longer than size=%d", size)
	}
	return slices.Concat(body, bytes.Repeat([]byte(" "), size-len(body)-1), []byte("\n")), nil
}

// validate checks what involves more than one part of the case.
func (c *Case) validate() error {
	if len(c.Requirements) == 0 {
		return errAt(1, "no requirement quoted")
	}
	if c.Expect == ExpectError && len(c.Sessions) > 0 {
		return errAt(1, "expect: error lists no sessions")
	}
	for _, e := range c.Entries {
		if e.Kind != Symlink {
			continue
		}
		if out, ok := strings.CutPrefix(e.Target, "outside/"); ok {
			if !slices.ContainsFunc(c.Outside, func(o OutsideFile) bool { return o.Name == out }) {
				return errAt(1, "symlink %s: no outside file %q", e.Name, out)
			}
		} else if !slices.ContainsFunc(c.Entries, func(x Entry) bool { return x.Name == e.Target }) {
			return errAt(1, "symlink %s: no entry %q", e.Name, e.Target)
		}
	}
	if c.Dir.Missing && len(c.Entries) > 0 {
		return errAt(1, "dir: missing takes no entries")
	}
	if c.Dir.NotDir != "" && (len(c.Entries) > 0 || c.Dir.Missing || c.Dir.Symlink || c.Expect != ExpectError) {
		return errAt(1, "dir: not-directory takes no entries, no other kind of directory, and expect: error")
	}
	return nil
}
