package agentinstall

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Codex (0.171.0) runs a hook from its user configuration only once the
// user has trusted it: its /hooks review ("t", trust all) records, in
// config.toml, one table per hook handler
//
//	[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]
//	trusted_hash = "sha256:<hex>"
//
// where <event> is the event's snake_case label, <group> the index of the
// matcher group in the event's array and <handler> the handler's index in
// the group. The hash is the SHA-256 of the handler's normalized identity
// as compact JSON with sorted keys:
//
//	{"event_name":"<event>","hooks":[{"async":false,"command":"...",
//	  "timeout":N,"type":"command"}],"matcher":"..."}
//
// ("matcher" only for events that take one; timeout 600 when unset,
// Interrupt and SessionEnd clamped to 1..3 s). A changed hook (another
// command or timeout) no longer matches its hash and needs the review
// again. Checked against the hashes Codex 0.171.0 itself wrote, and
// against the real binary accepting the ones computed here
// (internal/e2e); the algorithm is openai/codex
// codex-rs/hooks/src/engine/discovery.rs (command_hook_hash) and
// codex-rs/config/src/fingerprint.rs (version_for_toml).

// CodexTrust is one of statuspub's hook handlers in Codex's hooks.json, and
// the trust entry Codex's review would record for it.
type CodexTrust struct {
	Event string // the hooks.json event name: "PreToolUse"
	Key   string // the hooks.state key
	Hash  string // "sha256:<hex>"
}

// codexEventLabel is Codex's snake_case label of a hooks.json event name.
func codexEventLabel(event string) string {
	var b strings.Builder
	for i, r := range event {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codexTimeout is the timeout Codex gives a handler of event (in seconds),
// from the value in hooks.json (absent: has false).
func codexTimeout(event string, t int, has bool) int {
	switch event {
	case "SessionEnd", "Interrupt":
		if !has {
			t = 1
		}
		return min(max(t, 1), 3)
	}
	if !has {
		t = 600
	}
	return max(t, 1)
}

// CodexHookHash is the trusted_hash Codex records for one command handler.
func CodexHookHash(event, matcher, command string, timeout int) string {
	type handler struct {
		Async   bool   `json:"async"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
		Type    string `json:"type"`
	}
	type identity struct { // fields in sorted order, as Codex hashes them
		EventName string    `json:"event_name"`
		Hooks     []handler `json:"hooks"`
		Matcher   *string   `json:"matcher,omitempty"`
	}
	id := identity{EventName: codexEventLabel(event), Hooks: []handler{{Command: command, Timeout: timeout, Type: "command"}}}
	// Codex drops the matcher of the events that take none.
	if m := strings.TrimSpace(matcher); m != "" && !slices.Contains([]string{"UserPromptSubmit", "Stop", "Interrupt"}, event) {
		id.Matcher = &matcher
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // serde_json does not escape <, > and &
	if err := enc.Encode(id); err != nil {
		panic(err) // strings and ints always encode
	}
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CodexTrustEntries lists statuspub's handlers (sub, e.g. "codex-hook") in
// the hooks.json at hooksPath (its absolute path, as Codex names it) whose
// content is data, with the trust entry of each.
func CodexTrustEntries(hooksPath string, data []byte, sub string) ([]CodexTrust, error) {
	return codexHandlers(hooksPath, data, func(cmd string) bool { return isOurs(cmd, sub) })
}

// codexHandlers lists the command handlers in a hooks.json whose command
// keep accepts, with their trust entries.
func codexHandlers(hooksPath string, data []byte, keep func(command string) bool) ([]CodexTrust, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	root, err := parseJSON(hooksPath, data)
	if err != nil {
		return nil, err
	}
	hooks := root.get("hooks")
	if hooks == nil || hooks.kind != jObject {
		return nil, nil
	}
	var out []CodexTrust
	for _, ev := range memberKeys(hooks) {
		groups := hooks.get(ev)
		if groups == nil || groups.kind != jArray {
			continue
		}
		for gi, g := range groups.items {
			hs := g.val.get("hooks")
			if hs == nil || hs.kind != jArray {
				continue
			}
			matcher, _ := g.val.get("matcher").stringValue()
			for hi, h := range hs.items {
				cmd, _ := h.val.get("command").stringValue()
				if !keep(cmd) {
					continue
				}
				if typ, _ := h.val.get("type").stringValue(); typ != "command" {
					continue
				}
				t, has := 0, false
				if n := h.val.get("timeout"); n != nil && n.kind == jScalar {
					if v, err := strconv.Atoi(string(n.raw)); err == nil {
						t, has = v, true
					}
				}
				out = append(out, CodexTrust{
					Event: ev,
					Key:   fmt.Sprintf("%s:%s:%d:%d", hooksPath, codexEventLabel(ev), gi, hi),
					Hash:  CodexHookHash(ev, matcher, cmd, codexTimeout(ev, t, has)),
				})
			}
		}
	}
	return out, nil
}

// CodexStateHeader is the TOML table header of a hooks.state key, as Codex
// writes it.
func CodexStateHeader(key string) string {
	return "[hooks.state." + tomlBasicString(key) + "]"
}

// tomlBasicString quotes s as a TOML basic string.
func tomlBasicString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// CodexTrustedHash returns the trusted_hash config.toml records for key,
// reading the layout Codex's review and statuspub write (a table header
// line, then trusted_hash = "..." in that table), without a TOML parser:
// doctor links none. ok is false when there is none.
func CodexTrustedHash(config []byte, key string) (hash string, ok bool) {
	header := CodexStateHeader(key)
	in := false
	sc := bufio.NewScanner(bytes.NewReader(config))
	sc.Buffer(nil, maxSettings)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = stripTOMLComment(line) == header
			continue
		}
		if !in {
			continue
		}
		k, v, found := strings.Cut(stripTOMLComment(line), "=")
		if !found || strings.TrimSpace(k) != "trusted_hash" {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			return v[1 : len(v)-1], true
		}
	}
	return "", false
}

// stripTOMLComment drops a trailing # comment from a line whose strings
// hold no #, and surrounding blanks.
func stripTOMLComment(line string) string {
	if i := strings.LastIndex(line, "#"); i >= 0 && !strings.Contains(line[i:], `"`) {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}
