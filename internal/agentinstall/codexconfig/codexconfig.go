// Package codexconfig edits Codex's config.toml for `statuspub install
// codex`: the trust of statuspub's hooks (--trust), the daemon switch
// (--no-daemon), and the removal of the deprecated feature flag earlier
// installs wrote. It is apart from package agentinstall so that the TOML
// parser is linked only where config.toml is edited (not into statusls,
// whose doctor reports what is installed).
package codexconfig

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/agentstatus/agentstatus/internal/agentinstall"
)

// Codex runs hooks by default ([features] hooks, on in 0.171.0), and warns
// on every start about codex_hooks, the deprecated name earlier installs
// wrote: install writes no feature flag, removes the line it wrote itself,
// and leaves a user's own setting as it is.
// https://developers.openai.com/codex/hooks

// Lines install writes, recognised by their comment.
const (
	oldFeatureLine = "codex_hooks = true # added by statuspub install codex"
	daemonLine     = "daemon_auto_start = false # added by statuspub install codex --no-daemon"
)

// featuresHeader matches a [features] table header line. Compiled on
// first use: statuspub's hook commands, which link this package, never
// need it.
var featuresHeader = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*\[[ \t]*features[ \t]*\][ \t]*(#.*)?\r?$`)
})

// parse decodes config.toml, turning a syntax error into an
// agentinstall.ParseError that says where.
func parse(path string, data []byte) (map[string]any, toml.MetaData, error) {
	var cfg map[string]any
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			// Start is exact where Line can be one past a newline.
			line, col := agentinstall.LineCol(data, int64(pe.Position.Start))
			return nil, md, &agentinstall.ParseError{Path: path, Line: line, Col: col, Msg: pe.Message}
		}
		return nil, md, &agentinstall.ParseError{Path: path, Line: 1, Col: 1, Msg: err.Error()}
	}
	return cfg, md, nil
}

// table returns the table at a dotted path of keys, or nil.
func table(cfg map[string]any, keys ...string) map[string]any {
	t := cfg
	for _, k := range keys {
		next, _ := t[k].(map[string]any)
		if next == nil {
			return nil
		}
		t = next
	}
	return t
}

// Plan plans the change of config.toml (path) that req asks for. It
// keeps comments and layout: it inserts, replaces or removes whole lines,
// and checks that the result parses and says what it should.
func Plan(path string, req agentinstall.CodexConfigRequest) (agentinstall.Change, error) {
	data, mode, exists, err := agentinstall.ReadFile(path)
	if err != nil {
		return agentinstall.Change{}, err
	}
	c := agentinstall.Change{Path: path, Old: data, Mode: mode, Exists: exists, New: data}
	cfg, _, err := parse(path, data)
	if err != nil {
		return agentinstall.Change{}, err
	}
	out := removeLine(data, oldFeatureLine) // each edit returns new bytes, never changing its input
	if req.Uninstall {
		out = removeLine(out, daemonLine)
	}
	features := table(cfg, "features")
	for _, k := range []string{"hooks", "codex_hooks"} {
		if v, ok := features[k]; ok && v != true {
			c.Notes = append(c.Notes, fmt.Sprintf("%s sets [features] %s = %v: Codex will not run the hooks until it is true", path, k, v))
		}
	}
	if req.NoDaemon {
		switch v, ok := features["daemon_auto_start"]; {
		case ok && v != false:
			c.Notes = append(c.Notes, fmt.Sprintf("%s sets [features] daemon_auto_start = %v: left as it is", path, v))
		case !ok:
			if out, err = addFeature(path, out, daemonLine); err != nil {
				return agentinstall.Change{}, err
			}
		}
	}
	for _, e := range req.Trust {
		cur, _ := table(cfg, "hooks", "state", e.Key)["trusted_hash"].(string)
		switch {
		case req.Uninstall && cur == e.Hash:
			out = removeTable(out, agentinstall.CodexStateHeader(e.Key))
		case req.Uninstall || cur == e.Hash:
		default:
			out = setTrust(out, e)
		}
	}
	if bytes.Equal(out, data) {
		return c, nil
	}
	// The edit must parse, and say what it should.
	check, _, err := parse(path, out)
	if err != nil {
		return agentinstall.Change{}, fmt.Errorf("%s: the edited file would not parse (%v); not touching it", path, err)
	}
	for _, e := range req.Trust {
		got, _ := table(check, "hooks", "state", e.Key)["trusted_hash"].(string)
		if req.Uninstall && got == e.Hash {
			return agentinstall.Change{}, fmt.Errorf("%s: the edit did not forget the trust of %s; not touching it", path, e.Key)
		}
		if !req.Uninstall && got != e.Hash {
			return agentinstall.Change{}, fmt.Errorf("%s: the edit did not record the trust of %s; not touching it", path, e.Key)
		}
	}
	if req.NoDaemon && features["daemon_auto_start"] == nil && table(check, "features")["daemon_auto_start"] != false {
		return agentinstall.Change{}, fmt.Errorf("%s: the edit did not turn daemon_auto_start off; not touching it", path)
	}
	c.New = out
	return c, nil
}

// removeLine removes every line that is exactly line (ignoring the blanks
// around it and a CR), and a [features] table header the removal leaves
// without keys when it was the last table, as install appended it.
func removeLine(data []byte, line string) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	out := slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return strings.TrimSpace(l) == line })
	if len(out) == len(lines) {
		return data
	}
	// A trailing "[features]" with nothing after it (blank lines aside).
	trim := func(ls []string) []string { // without the blank lines at the end
		for len(ls) > 0 && strings.TrimSpace(ls[len(ls)-1]) == "" {
			ls = ls[:len(ls)-1]
		}
		return ls
	}
	if t := trim(out); len(t) > 0 && featuresHeader().MatchString(strings.TrimRight(t[len(t)-1], "\n")) {
		out = trim(t[:len(t)-1])
	}
	return []byte(strings.Join(out, ""))
}

// addFeature inserts line under the [features] table header, or appends
// the table.
func addFeature(path string, data []byte, line string) ([]byte, error) {
	_, md, err := parse(path, data)
	if err != nil {
		return nil, err
	}
	if md.IsDefined("features") {
		loc := featuresHeader().FindIndex(data)
		if loc == nil {
			return nil, fmt.Errorf("%s defines features other than as a [features] table; add %q to it yourself", path, line)
		}
		end := loc[1]
		if end < len(data) && data[end] == '\n' {
			end++
		}
		return append(append(append([]byte{}, data[:end]...), line+"\n"...), data[end:]...), nil
	}
	return appendBlock(data, "[features]\n"+line+"\n"), nil
}

// appendBlock appends text after a blank line.
func appendBlock(data []byte, text string) []byte {
	out := append([]byte{}, data...)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	return append(out, text...)
}

// tableAt finds the table whose header is h (a comment after it allowed)
// in lines: the index of its header, and of the line after its last; -1,
// -1 when there is none.
func tableAt(lines []string, h string) (int, int) {
	for i, l := range lines {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), h)
		if !ok || rest != "" && !strings.HasPrefix(strings.TrimSpace(rest), "#") {
			continue
		}
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "[") {
			j++
		}
		return i, j
	}
	return -1, -1
}

// setTrust records e: it replaces the trusted_hash of the key's table, or
// adds one to it, or appends the table, as Codex's review writes it.
func setTrust(data []byte, e agentinstall.CodexTrust) []byte {
	h := agentinstall.CodexStateHeader(e.Key)
	value := "trusted_hash = \"" + e.Hash + "\"\n"
	lines := strings.SplitAfter(string(data), "\n")
	i, end := tableAt(lines, h)
	if i < 0 {
		return appendBlock(data, h+"\n"+value)
	}
	for j := i + 1; j < end; j++ {
		if k, _, ok := strings.Cut(strings.TrimSpace(lines[j]), "="); ok && strings.TrimSpace(k) == "trusted_hash" {
			lines[j] = value
			return []byte(strings.Join(lines, ""))
		}
	}
	if !strings.HasSuffix(lines[i], "\n") {
		lines[i] += "\n"
	}
	return []byte(strings.Join(slices.Insert(lines, i+1, value), ""))
}

// removeTable removes the table whose header is h, up to the next header,
// with the blank line before it.
func removeTable(data []byte, h string) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	start, end := tableAt(lines, h)
	if start < 0 {
		return data
	}
	if start > 0 && strings.TrimSpace(lines[start-1]) == "" {
		start--
	}
	return []byte(strings.Join(slices.Delete(lines, start, end), ""))
}

// DaemonOff reports whether the config.toml at path turns Codex's
// app-server daemon off ([features] daemon_auto_start = false). A file
// that is absent or does not parse does not.
func DaemonOff(path string) bool {
	data, _, _, err := agentinstall.ReadFile(path)
	if err != nil {
		return false
	}
	cfg, _, err := parse(path, data)
	return err == nil && table(cfg, "features")["daemon_auto_start"] == false
}
