// Package codexconfig turns Codex's hooks feature on in its config.toml,
// for `statuspub install codex`. It is apart from package agentinstall so
// that the TOML parser is linked only where config.toml is edited (not
// into statusls, whose doctor reports what is installed).
package codexconfig

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/agentstatus/agentstatus/internal/agentinstall"
)

// Codex runs hooks only with its hooks feature on: on by default in newer
// versions ([features] hooks), off by default in older ones, whose key is
// codex_hooks (still accepted, as a deprecated alias, by newer versions).
// https://developers.openai.com/codex/hooks

// featuresHeader matches a [features] table header line. Compiled on
// first use: statuspub's hook commands, which link this package, never
// need it.
var featuresHeader = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*\[[ \t]*features[ \t]*\][ \t]*(#.*)?\r?$`)
})

// PlanFeature turns the hooks feature on in config.toml when nothing
// says otherwise: it parses the file with a TOML parser and inserts one
// line (codex_hooks = true) under [features], or appends the table, so
// comments and layout stay. A flag the user set to false is left alone and
// reported.
func PlanFeature(path string) (agentinstall.Change, error) {
	data, mode, exists, err := agentinstall.ReadFile(path)
	if err != nil {
		return agentinstall.Change{}, err
	}
	c := agentinstall.Change{Path: path, Old: data, Mode: mode, Exists: exists, New: data}
	var cfg map[string]any
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			// Start is exact where Line can be one past a newline.
			line, col := agentinstall.LineCol(data, int64(pe.Position.Start))
			return agentinstall.Change{}, &agentinstall.ParseError{Path: path, Line: line, Col: col, Msg: pe.Message}
		}
		return agentinstall.Change{}, &agentinstall.ParseError{Path: path, Line: 1, Col: 1, Msg: err.Error()}
	}
	features, _ := cfg["features"].(map[string]any)
	for _, k := range []string{"hooks", "codex_hooks"} {
		v, ok := features[k]
		if !ok {
			continue
		}
		if b, _ := v.(bool); b {
			return c, nil // on already
		}
		c.Notes = append(c.Notes, fmt.Sprintf("%s sets [features] %s = %v: Codex will not run the hooks until it is true", path, k, v))
		return c, nil
	}
	var out []byte
	switch {
	case md.IsDefined("features"):
		loc := featuresHeader().FindIndex(data)
		if loc == nil {
			c.Notes = append(c.Notes, fmt.Sprintf("%s defines features other than as a [features] table; add codex_hooks = true to it if your Codex is older than the hooks default", path))
			return c, nil
		}
		end := loc[1]
		if end < len(data) && data[end] == '\n' {
			end++
		}
		out = append(append(append([]byte{}, data[:end]...), "codex_hooks = true # added by statuspub install codex\n"...), data[end:]...)
	default:
		out = append([]byte{}, data...)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, "[features]\ncodex_hooks = true # added by statuspub install codex\n"...)
	}
	// The edit must parse, and say what it should.
	var check map[string]any
	if _, err := toml.Decode(string(out), &check); err != nil {
		return agentinstall.Change{}, fmt.Errorf("agentinstall: %s: the edited file would not parse (%v); not touching it", path, err)
	}
	if f, _ := check["features"].(map[string]any); f["codex_hooks"] != true {
		return agentinstall.Change{}, fmt.Errorf("agentinstall: %s: the edit did not turn codex_hooks on; not touching it", path)
	}
	c.New = out
	return c, nil
}
