package agentinstall

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/examples/opencode"
	"github.com/agentstatus/agentstatus/internal/shquote"
	"github.com/agentstatus/agentstatus/internal/testhook"
)

// Agents lists the agents Plan knows.
var Agents = []string{"claude", "codex", "gemini", "opencode", "copilot", "qwen"}

// Options say what to install where.
type Options struct {
	Agent     string // claude, codex, gemini, opencode, copilot or qwen
	Project   string // "" for the user's own configuration; else a project's root
	Uninstall bool
	// Command is how the hooks start statuspub: "statuspub" when it is on
	// PATH, else its absolute path.
	Command string
	Getenv  func(string) string // os.Getenv by default
	// CodexConfig, when set, plans the change of Codex's config.toml
	// (path) that req asks for (package codexconfig). Without it, Plan
	// leaves config.toml alone.
	CodexConfig func(path string, req CodexConfigRequest) (Change, error)
	// Trust (Codex): record statuspub's hooks as trusted in config.toml,
	// as Codex's /hooks review does. Never the default: trusting is the
	// user's decision.
	Trust bool
	// NoDaemon (Codex): turn Codex's app-server daemon off
	// ([features] daemon_auto_start = false), so that each session's hooks
	// run in its own Codex process, which quits with the user.
	NoDaemon bool
	// Zed: run Agent (one of [ZedAgents]) from Zed through statuspub acp,
	// by its entry in the agent_servers of Zed's settings.json
	// ([ZedSettingsPath]), instead of installing its hooks. Command is
	// then the entry's command.
	Zed bool
}

// CodexConfigRequest is what Plan asks of Codex's config.toml.
type CodexConfigRequest struct {
	Uninstall bool
	// Trust are the trust entries to record (install --trust); on
	// uninstall, the entries of the hooks removed, to forget.
	Trust    []CodexTrust
	NoDaemon bool
}

// Change is one file Plan wants to write (or remove).
type Change struct {
	Path   string
	Old    []byte // nil when the file does not exist
	New    []byte // nil to remove the file
	Mode   fs.FileMode
	Exists bool
	Notes  []string // what the user should know, one line each
	// BackupDir is where Apply keeps the old file ("": next to it).
	// OpenCode's plugin is backed up outside plugins/, where OpenCode loads
	// every file as a plugin and a backup would be litter at best.
	BackupDir string
	// NoBackup: Apply keeps no copy of the old file (a file of ours
	// that only records what install replaced).
	NoBackup bool
}

// Changed reports whether the change does anything.
func (c Change) Changed() bool {
	if c.New == nil {
		return c.Exists
	}
	return !c.Exists || !bytes.Equal(c.Old, c.New)
}

// Diff is the change as a unified diff ("" when nothing changes).
func (c Change) Diff() string {
	from, to := c.Path, c.Path
	if !c.Exists {
		from = "/dev/null"
	}
	if c.New == nil { // removal
		to = "/dev/null"
	}
	return unifiedDiff(from, to, c.Old, c.New)
}

// Errors Plan returns.
var (
	ErrSymlink  = errors.New("the settings file is a symbolic link; edit its target, or replace the link with a file")
	ErrReadOnly = errors.New("the settings file is read-only")
	ErrNotOurs  = errors.New("a file of that name exists and is not agentstatus's")
	ErrAgent    = errors.New("unknown agent (claude, codex, gemini, opencode, copilot or qwen)")
)

// hookSpec describes an agent's hooks: JSON settings, or OpenCode's plugin.
type hookSpec struct {
	hookCmd  string   // the statuspub subcommand
	events   []string // the events to run it on
	matcher  map[string]string
	timeout  int            // in the unit the agent uses
	timeouts map[string]int // per event, where the agent allows less
	named    bool           // Gemini CLI names its hooks
	file     string         // settings file name under the agent's directory
	// env is the variable that moves the agent's directory ("": none),
	// home where the directory is in $HOME without it.
	env, home string
	// stale are events an earlier install registered that the agent does
	// not have: install removes statuspub's hooks from them.
	stale []string
	// refresh: install brings statuspub's existing hooks to the command
	// and timeout it would write.
	refresh bool
	jsonc   bool // the agent reads its settings as JSON with comments (jsonc.go)
	// plugin: OpenCode's hooks are a plugin (examples/opencode), file.
	plugin bool
	// flat: Copilot CLI's layout. The handlers are the entries of the
	// event's list, with no matcher groups: {"type", "bash", "powershell",
	// "matcher", "timeoutSec"}. The file has a "version", and uninstall
	// removes it when nothing else is left.
	flat bool
}

// timeoutFor is the timeout of statuspub's hook on ev.
func (s hookSpec) timeoutFor(ev string) int { return cmp.Or(s.timeouts[ev], s.timeout) }

// specFor is the hookSpec of agent. The map is built on each call, not at
// package initialisation: statuspub's hook commands link this package and
// never install.
func specFor(agent string) (hookSpec, bool) {
	spec, ok := map[string]hookSpec{
		// https://docs.claude.com/en/docs/claude-code/hooks: timeout in seconds,
		// matcher for tool events.
		"claude": {hookCmd: "claude-hook", file: "settings.json", timeout: 5, env: "CLAUDE_CONFIG_DIR", home: ".claude",
			events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
				"PermissionRequest", "PermissionDenied", "Notification", "Stop", "StopFailure", "SessionEnd", "TaskCreated", "TaskCompleted"},
			matcher: map[string]string{"PreToolUse": "*", "PostToolUse": "*", "PostToolUseFailure": "*", "PermissionRequest": "*", "PermissionDenied": "*"}},
		// https://developers.openai.com/codex/hooks: hooks.json has the same
		// shape as Claude Code's hooks; timeout in seconds. The events are
		// those Codex 0.171.0 knows (it has no StopFailure, and ignores it
		// silently); it clamps Interrupt's and SessionEnd's timeout to 3 s,
		// with a warning on every start.
		"codex": {hookCmd: "codex-hook", file: "hooks.json", timeout: 5, env: "CODEX_HOME", home: ".codex",
			timeouts: map[string]int{"Interrupt": 3, "SessionEnd": 3},
			events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
				"Stop", "Interrupt", "SessionEnd"},
			matcher: map[string]string{"PreToolUse": "*", "PostToolUse": "*", "PermissionRequest": "*"},
			stale:   []string{"StopFailure"}, refresh: true},
		// https://geminicli.com/docs/hooks/reference: timeout in milliseconds,
		// hooks named; no model hooks (AfterModel fires per streamed chunk).
		"gemini": {hookCmd: "gemini-hook", file: "settings.json", timeout: 5000, named: true, jsonc: true, home: ".gemini",
			events: []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "Notification", "AfterAgent", "SessionEnd"}},
		// https://docs.github.com/en/copilot/reference/hooks-reference:
		// Copilot CLI reads every *.json file of its hooks folders
		// (~/.copilot/hooks/, $COPILOT_HOME/hooks/; .github/hooks/ in a
		// repository); statuspub's go into a file of their own, merged into
		// as any settings file and read as plain JSON, as Copilot CLI reads
		// it. The PascalCase event names make it send hook_event_name and
		// snake_case fields (the VS Code compatible shape); "notification"
		// has no PascalCase name, and its payload names itself. Its matcher
		// keeps only the notifications that mean the session waits.
		"copilot": {hookCmd: "copilot-hook", file: "hooks/agentstatus.json", timeout: 5, flat: true, env: "COPILOT_HOME", home: ".copilot",
			events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
				"notification", "Stop", "ErrorOccurred", "SessionEnd"},
			matcher: map[string]string{"notification": "permission_prompt|elicitation_dialog"}},
		// $XDG_CONFIG_HOME/opencode, else ~/.config/opencode.
		"opencode": {file: "plugins/" + opencode.FileName, plugin: true, env: "XDG_CONFIG_HOME", home: ".config"},
		// QwenLM/qwen-code docs/users/features/hooks.md: Claude Code's
		// shape and event names; timeout in seconds (0.24.4 reads 1000
		// and more as milliseconds); no matcher runs a hook for every
		// tool. Settings read with comments, as Gemini CLI's. PreCompact
		// is the one hook /compress runs before its summary (0.24.4).
		"qwen": {hookCmd: "qwen-hook", file: "settings.json", timeout: 5, jsonc: true, env: "QWEN_HOME", home: ".qwen",
			events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
				"PermissionRequest", "Notification", "PreCompact", "Stop", "StopFailure", "SessionEnd"}},
	}[agent]
	return spec, ok
}

// agentDir returns an agent's hookSpec and the directory of its
// configuration.
func (o *Options) agentDir(agent string) (hookSpec, string, error) {
	spec, ok := specFor(agent)
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var dir string
	switch {
	case o.Project != "":
		p, err := filepath.Abs(o.Project)
		if err != nil {
			return spec, "", err
		}
		dir = filepath.Join(p, "."+agent)
		if agent == "copilot" {
			dir = filepath.Join(p, ".github")
		}
	case getenv("HOME") == "":
		return spec, "", errors.New("HOME is not set")
	default:
		dir = filepath.Join(getenv("HOME"), spec.home)
		if d := getenv(spec.env); spec.env != "" && d != "" {
			dir = d
		}
		if agent == "opencode" {
			dir = filepath.Join(dir, "opencode")
		}
	}
	if !ok {
		return spec, "", ErrAgent
	}
	return spec, dir, nil
}

// Plan computes the changes that install (or uninstall) the hooks.
func Plan(o Options) ([]Change, error) {
	o.Command = cmp.Or(o.Command, "statuspub")
	if o.Zed {
		return planZed(o)
	}
	spec, dir, err := o.agentDir(o.Agent)
	if err != nil {
		return nil, err
	}
	c := Change{Path: filepath.Join(dir, spec.file)}
	if c.Old, c.Mode, c.Exists, err = ReadFile(c.Path); err != nil {
		return nil, err
	}
	if spec.plugin {
		err = planPlugin(&c, o)
	} else {
		c.New, err = editHooks(c.Path, c.Old, spec, o)
	}
	if err != nil {
		return nil, err
	}
	changes := []Change{c}
	if o.Agent == "codex" && o.CodexConfig != nil {
		req := CodexConfigRequest{Uninstall: o.Uninstall, NoDaemon: o.NoDaemon && !o.Uninstall}
		hooksPath, err := filepath.Abs(c.Path)
		if err != nil {
			return nil, err
		}
		switch {
		case o.Uninstall:
			// Forget the trust of the hooks removed (kept when the
			// planned file still has them: another command's).
			old, err := CodexTrustEntries(hooksPath, c.Old, spec.hookCmd)
			if err != nil {
				return nil, err
			}
			left, _ := CodexTrustEntries(hooksPath, c.New, spec.hookCmd)
			req.Trust = slices.DeleteFunc(old, func(e CodexTrust) bool {
				return slices.ContainsFunc(left, func(f CodexTrust) bool { return f.Key == e.Key })
			})
		case o.Trust:
			if o.Project != "" {
				return nil, errors.New("--trust records trust for your own Codex configuration only; for a project's hooks, use /hooks in Codex")
			}
			req.Trust, err = CodexTrustEntries(hooksPath, c.New, spec.hookCmd)
			if err != nil {
				return nil, err
			}
		}
		if o.Project == "" || o.Uninstall {
			t, err := o.CodexConfig(filepath.Join(dir, "config.toml"), req)
			if err != nil {
				return nil, err
			}
			if t.Changed() || len(t.Notes) > 0 {
				changes = append(changes, t)
			}
		}
	}
	for _, c := range changes {
		if err := checkWritable(c); err != nil {
			return nil, err
		}
	}
	return changes, nil
}

// ReadFile reads a settings file that may be absent, refusing links.
func ReadFile(path string) (data []byte, mode fs.FileMode, exists bool, err error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o600, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, 0, false, fmt.Errorf("%w: %s", ErrSymlink, path)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("%s is not a regular file", path)
	}
	// Opened without following a link and without waiting on a FIFO, and
	// checked to be the file looked at: a file swapped in between (doctor
	// reads these too) is refused, not followed or waited on.
	testhook.At(testhook.SettingsChecked, path)
	f, err := openNoFollow(path)
	if err != nil {
		return nil, 0, false, err
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil {
		return nil, 0, false, err
	}
	if !os.SameFile(fi, ofi) || !ofi.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("%s changed while it was opened", path)
	}
	data, err = io.ReadAll(io.LimitReader(f, maxSettings+1))
	if err == nil && len(data) > maxSettings {
		err = fmt.Errorf("%s is larger than %d MiB", path, maxSettings>>20)
	}
	return data, ofi.Mode().Perm(), true, err
}

// maxSettings bounds a settings file read.
const maxSettings = 16 << 20

// isOurs reports whether a hook command runs statuspub's adapter sub: its
// first word (quoted or not) names a program called statuspub, and its
// second is sub.
func isOurs(command, sub string) bool {
	prog, rest, ok := firstWord(strings.TrimSpace(command))
	f := strings.Fields(rest)
	return ok && len(f) >= 1 && strings.TrimSuffix(filepath.Base(prog), ".exe") == "statuspub" && f[0] == sub
}

// firstWord splits off the first word of a shell command line, as sh
// reads it: single quotes, double quotes (with backslash escapes) and
// backslashes. ok is false when a quote is not closed.
func firstWord(s string) (word, rest string, ok bool) {
	var b strings.Builder
	var quote byte // the quote open, or 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == ' ' || c == '\t'):
			return b.String(), s[i+1:], true
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case c == '\\' && quote != '\'' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == '\\' && quote == 0: // at the end: dropped
		default:
			b.WriteByte(c)
		}
	}
	if quote != 0 {
		return "", "", false
	}
	return b.String(), "", true
}

// editHooks returns the settings data with statuspub's hooks installed
// (or uninstalled): data itself when nothing changes, nil when uninstall
// leaves a flat hooks file nothing but its version (the file goes).
func editHooks(path string, data []byte, spec hookSpec, o Options) ([]byte, error) {
	var err error
	doc := jsonDoc{root: &jnode{kind: jObject}}
	if len(bytes.TrimSpace(data)) > 0 {
		doc, err = parseSettings(path, data, commentsIf(spec.jsonc))
		if err != nil {
			return nil, err
		}
		if doc.root.kind != jObject {
			msg := "the settings are not a JSON object"
			if spec.flat {
				msg = "the hooks file is not a JSON object"
			}
			return nil, &ParseError{Path: path, Line: 1, Col: 1, Msg: msg}
		}
	}
	root := doc.root
	hooks := root.get("hooks")
	if hooks != nil && hooks.kind != jObject {
		return nil, fmt.Errorf("%s: \"hooks\" is not an object; not touching it", path)
	}
	command := shquote.Quote(o.Command) + " " + spec.hookCmd
	changed := false
	if !o.Uninstall && spec.flat && root.get("version") == nil {
		root.set("version", num(1))
		changed = true
	}
	if hooks == nil {
		if o.Uninstall {
			return data, nil
		}
		hooks = &jnode{kind: jObject}
		root.set("hooks", hooks)
	}
	// Uninstall removes statuspub's hooks from every event; install from
	// the stale ones.
	from := spec.stale
	if o.Uninstall {
		from = memberKeys(hooks)
	}
	for _, ev := range from {
		changed = spec.removeOurs(hooks, ev) || changed
	}
	if o.Uninstall {
		if len(hooks.items) == 0 && changed {
			root.del("hooks")
			if spec.flat && (len(root.items) == 0 || len(root.items) == 1 && root.items[0].key == "version") {
				return nil, nil
			}
		}
	} else {
		for _, ev := range spec.events {
			list := hooks.get(ev)
			if list != nil && list.kind != jArray {
				return nil, fmt.Errorf("%s: hooks.%s is not an array; not touching it", path, ev)
			}
			if list == nil {
				list = &jnode{kind: jArray}
				hooks.set(ev, list)
			}
			if ours := spec.ours(list); len(ours) > 0 {
				if spec.refresh && refresh(ours, command, spec.timeoutFor(ev)) {
					changed = true
				}
				continue
			}
			list.add(spec.entry(ev, command))
			changed = true
		}
	}
	if !changed {
		return data, nil
	}
	return doc.encode(), nil
}

// entry is the new entry of event ev's list that runs command: a matcher
// group holding the handler, or the handler itself in a flat list.
func (s hookSpec) entry(ev, command string) *jnode {
	h := &jnode{kind: jObject}
	if s.named {
		h.set("name", str("agentstatus"))
	}
	h.set("type", str("command"))
	m, hasMatcher := s.matcher[ev]
	if s.flat {
		h.set("bash", str(command))
		h.set("powershell", str(command))
		if hasMatcher {
			h.set("matcher", str(m))
		}
		h.set("timeoutSec", num(s.timeoutFor(ev)))
		return h
	}
	h.set("command", str(command))
	h.set("timeout", num(s.timeoutFor(ev)))
	g := &jnode{kind: jObject}
	if hasMatcher {
		g.set("matcher", str(m))
	}
	g.set("hooks", &jnode{kind: jArray, items: []item{{val: h}}})
	return g
}

func memberKeys(n *jnode) []string {
	var ks []string
	for _, m := range n.items {
		ks = append(ks, m.key)
	}
	return ks
}

// isOursIn reports whether the handler h runs statuspub's adapter.
func (s hookSpec) isOursIn(h *jnode) bool {
	return isOurs(s.handlerCommand(h), s.hookCmd)
}

// handlerCommand is the command the handler h runs: its command, or in a
// flat list its bash, else its cross-platform command.
func (s hookSpec) handlerCommand(h *jnode) string {
	cmd, ok := "", false
	if s.flat {
		cmd, ok = h.get("bash").stringValue()
	}
	if !ok {
		cmd, _ = h.get("command").stringValue()
	}
	return cmd
}

// ours lists statuspub's handlers in an event's list.
func (s hookSpec) ours(list *jnode) []*jnode {
	hs := list.items
	if !s.flat {
		hs = nil
		for _, g := range list.items {
			if h := g.val.get("hooks"); h != nil && h.kind == jArray {
				hs = append(hs, h.items...)
			}
		}
	}
	var out []*jnode
	for _, h := range hs {
		if s.isOursIn(h.val) {
			out = append(out, h.val)
		}
	}
	return out
}

// removeOurs removes statuspub's handlers from event ev, and the groups
// they leave empty, and the event when its list is left empty (a flat
// list: by them). It reports whether it removed any.
func (s hookSpec) removeOurs(hooks *jnode, ev string) bool {
	list := hooks.get(ev)
	if list == nil || list.kind != jArray {
		return false
	}
	notOurs := func(h *jnode) bool { return !s.isOursIn(h) }
	removed := false
	if s.flat {
		removed = list.filter(notOurs)
	} else {
		list.filter(func(g *jnode) bool {
			hs := g.get("hooks")
			if hs == nil || hs.kind != jArray || !hs.filter(notOurs) {
				return true
			}
			removed = true
			return len(hs.items) > 0
		})
	}
	if len(list.items) == 0 && (removed || !s.flat) {
		hooks.del(ev)
	}
	return removed
}

// refresh sets the command and timeout of statuspub's handlers, and
// reports whether any changed.
func refresh(ours []*jnode, command string, timeout int) bool {
	changed := false
	for _, h := range ours {
		if cmd, _ := h.get("command").stringValue(); cmd != command {
			h.set("command", str(command))
			changed = true
		}
		if t := h.get("timeout"); t == nil || string(t.raw) != fmt.Sprint(timeout) {
			h.set("timeout", num(timeout))
			changed = true
		}
	}
	return changed
}

// pluginDefault is the line of the plugin that names statuspub when
// $AGENTSTATUS_STATUSPUB does not.
const pluginDefault = `process.env.AGENTSTATUS_STATUSPUB || "statuspub";`

// pluginSource is the plugin, starting command (statuspub's path when it
// is not on PATH) unless $AGENTSTATUS_STATUSPUB says otherwise.
func pluginSource(command string) []byte {
	if command == "statuspub" {
		return opencode.Plugin
	}
	q, _ := json.Marshal(command)
	return bytes.Replace(opencode.Plugin, []byte(pluginDefault), []byte(`process.env.AGENTSTATUS_STATUSPUB || `+string(q)+`;`), 1)
}

// planPlugin plans the plugin's change c, whose old file is read.
func planPlugin(c *Change, o Options) error {
	// The backup goes into the folder that holds plugins/: OpenCode
	// scans only {plugin,plugins}/*.{ts,js} there for plugins.
	c.BackupDir = filepath.Dir(filepath.Dir(c.Path))
	if c.Exists && !bytes.Contains(c.Old, []byte(opencode.Marker)) {
		return fmt.Errorf("%w: %s", ErrNotOurs, c.Path)
	}
	if o.Uninstall {
		return nil
	}
	if !c.Exists {
		c.Mode = 0o644
	}
	c.New = pluginSource(o.Command)
	return nil
}

// Apply makes one change: it writes a backup of the old file (in
// c.BackupDir when set), then replaces it atomically (or removes it). It
// returns the backup's path ("" when there was no old file). now names the
// backup.
func Apply(c Change, now time.Time) (string, error) {
	if !c.Changed() {
		return "", nil
	}
	// The file must still be what Plan read: no link, and writable.
	data, mode, exists, err := ReadFile(c.Path)
	if err != nil {
		return "", err
	}
	if exists != c.Exists || !bytes.Equal(data, c.Old) {
		return "", fmt.Errorf("%s changed while it was being edited; run again", c.Path)
	}
	if exists && mode&0o200 == 0 {
		return "", fmt.Errorf("%w: %s (mode %v)", ErrReadOnly, c.Path, mode)
	}
	backup := ""
	if exists && !c.NoBackup {
		base := c.Path + ".agentstatus-backup-" + now.UTC().Format("20060102T150405Z")
		if c.BackupDir != "" {
			base = filepath.Join(c.BackupDir, filepath.Base(base))
		}
		backup = base
		f, err := os.OpenFile(backup, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		for i := 1; errors.Is(err, fs.ErrExist) && i < 100; i++ {
			backup = fmt.Sprintf("%s-%d", base, i)
			f, err = os.OpenFile(backup, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		}
		if err != nil {
			return "", fmt.Errorf("backup: %w", err)
		}
		_, err = f.Write(c.Old)
		if err = cmp.Or(err, f.Close()); err != nil {
			os.Remove(backup)
			return "", fmt.Errorf("backup: %w", err)
		}
	}
	if c.New == nil {
		return backup, os.Remove(c.Path)
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
		return backup, err
	}
	return backup, replaceFile(c.Path, c.New, c.Mode)
}

// checkWritable refuses to change a read-only file: its owner made it so.
func checkWritable(c Change) error {
	if c.Exists && c.Changed() && c.Mode&0o200 == 0 {
		return fmt.Errorf("%w: %s (mode %v)", ErrReadOnly, c.Path, c.Mode)
	}
	return nil
}
