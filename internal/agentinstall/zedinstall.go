package agentinstall

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Zed runs agents over ACP from the agent_servers of its settings.json
// (JSON with comments and trailing commas): an entry's "command", "args"
// and "env" start the agent. Zed's own agents ("gemini", "claude",
// "codex") take those keys too, in place of the copy Zed manages; an
// entry of any other name is a custom agent, "type": "custom". Install
// wraps an entry so that Zed starts `statuspub acp --agent NAME --
// COMMAND ARGS...` instead, keeping every other key; what it found is
// kept in RestoreFile beside settings.json so that uninstall gives the
// entry back as it was (SPEC.md §13.5).

// ZedAgents lists the agents Plan wires into Zed with Options.Zed.
var ZedAgents = []string{"gemini", "opencode", "qwen", "claude", "codex"}

// ErrZedAgent is an agent install zed does not know.
var ErrZedAgent = errors.New("unknown agent for Zed (gemini, opencode, qwen, claude or codex)")

// zedAgent is how an agent runs over ACP.
type zedAgent struct {
	name     string     // the record's agent (statuspub acp --agent)
	programs [][]string // ACP command lines, the first one found in PATH wins
	adapter  string     // the npm package of an adapter ("": the agent itself speaks ACP)
}

func zedAgentFor(agent string) (zedAgent, bool) {
	a, ok := map[string]zedAgent{
		"gemini":   {name: "gemini", programs: [][]string{{"gemini", "--acp"}}},
		"opencode": {name: "opencode", programs: [][]string{{"opencode", "acp"}}},
		"qwen":     {name: "qwen", programs: [][]string{{"qwen", "--acp"}}},
		// Claude Code and Codex speak ACP through Zed's adapters.
		"claude": {name: "claude-code", programs: [][]string{{"claude-agent-acp"}, {"claude-code-acp"}},
			adapter: "@zed-industries/claude-agent-acp"},
		"codex": {name: "codex", programs: [][]string{{"codex-acp"}}, adapter: "@zed-industries/codex-acp"},
	}[agent]
	return a, ok
}

// runs reports whether an ACP command line starts this agent.
func (a zedAgent) runs(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	base := strings.TrimSuffix(filepath.Base(argv[0]), ".exe")
	return slices.ContainsFunc(a.programs, func(p []string) bool { return p[0] == base })
}

// RestoreFile names the file beside Zed's settings.json where install
// keeps what it replaced.
const RestoreFile = "settings.json.agentstatus-restore"

// zedRestore is RestoreFile's content: per entry of agent_servers that
// install wrapped, what uninstall needs to give it back.
type zedRestore struct {
	Comment string               `json:"comment"`
	Entries map[string]*zedEntry `json:"entries"`
}

type zedEntry struct {
	// Before is the entry's text as install found it; null when install
	// added the entry.
	Before *string `json:"before"`
	// Wrote is the args install wrote: an entry whose args differ since
	// was edited, and gets its command back from them instead.
	Wrote []string `json:"wrote"`
	// Servers: install added agent_servers itself.
	Servers bool `json:"addedAgentServers,omitempty"`
	// File: install found no settings file ("absent"), or this text of
	// white space only.
	File *string `json:"file,omitempty"`
}

const restoreComment = "what statuspub install zed replaced in settings.json; statuspub install zed AGENT --uninstall puts it back"

// planZed plans the changes of install zed: settings.json, and
// RestoreFile beside it.
func planZed(o Options) ([]Change, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if o.Project != "" {
		return nil, errors.New("agent_servers are read from your own Zed settings only, not a project's")
	}
	agent, ok := zedAgentFor(o.Agent)
	if !ok {
		return nil, ErrZedAgent
	}
	c := Change{Path: ZedSettingsPath(getenv)}
	if !filepath.IsAbs(c.Path) {
		return nil, errors.New("HOME is not set")
	}
	var err error
	if c.Old, c.Mode, c.Exists, err = ReadFile(c.Path); err != nil {
		return nil, err
	}
	r := Change{Path: filepath.Join(filepath.Dir(c.Path), RestoreFile), NoBackup: true}
	if r.Old, r.Mode, r.Exists, err = ReadFile(r.Path); err != nil {
		return nil, err
	}
	restore := zedRestore{Entries: map[string]*zedEntry{}}
	if r.Exists && len(bytes.TrimSpace(r.Old)) > 0 {
		if err := json.Unmarshal(r.Old, &restore); err != nil {
			return nil, fmt.Errorf("%s: %v; move it away to uninstall without it", r.Path, err)
		}
		if restore.Entries == nil {
			restore.Entries = map[string]*zedEntry{}
		}
	}
	if o.Uninstall {
		c.New, err = unwrapZed(c.Path, c.Old, c.Exists, agent, &restore)
	} else {
		c.New, err = wrapZed(c.Path, c.Old, c.Exists, agent, o.Command, getenv, &restore, &c.Notes)
	}
	if err != nil {
		return nil, err
	}
	changes := []Change{c}
	restore.Comment = restoreComment
	if len(restore.Entries) > 0 {
		r.New, _ = json.MarshalIndent(restore, "", "  ")
		r.New = append(r.New, '\n')
	}
	if !r.Exists {
		r.Mode = 0o600
	}
	if r.Changed() && (len(restore.Entries) > 0 || r.Exists) {
		changes = append(changes, r)
	}
	for _, c := range changes {
		if err := checkWritable(c); err != nil {
			return nil, err
		}
	}
	return changes, nil
}

// parseZed parses Zed's settings: a blank file is an empty object.
func parseZed(path string, data []byte) (jsonDoc, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return jsonDoc{root: &jnode{kind: jObject}}, nil
	}
	doc, err := parseSettings(path, data, zedJSON)
	if err != nil {
		return doc, err
	}
	if doc.root.kind != jObject {
		return doc, &ParseError{Path: path, Line: 1, Col: 1, Msg: "the settings are not a JSON object"}
	}
	return doc, nil
}

// acpArgs returns the ACP command line of an entry that runs statuspub
// acp: the words after "--"; ok is false for any other entry.
func acpArgs(entry *jnode) (argv []string, ok bool) {
	cmd, _ := entry.get("command").stringValue()
	args := entry.get("args")
	if strings.TrimSuffix(filepath.Base(cmd), ".exe") != "statuspub" || args == nil || args.kind != jArray {
		return nil, false
	}
	all := stringsOf(args)
	if len(all) == 0 || all[0] != "acp" {
		return nil, false
	}
	if i := slices.Index(all, "--"); i >= 0 {
		return all[i+1:], true
	}
	return nil, true
}

// stringsOf returns the strings of an array (other elements as "").
func stringsOf(n *jnode) []string {
	var out []string
	for _, it := range n.items {
		s, _ := it.val.stringValue()
		out = append(out, s)
	}
	return out
}

func strArray(ss []string) *jnode {
	n := &jnode{kind: jArray}
	for _, s := range ss {
		n.add(str(s))
	}
	return n
}

// wrapZed returns settings data whose agent_servers entry for agent runs
// it through statuspub acp, and records in restore what it replaced.
func wrapZed(path string, data []byte, exists bool, agent zedAgent, statuspub string, getenv func(string) string, restore *zedRestore, notes *[]string) ([]byte, error) {
	doc, err := parseZed(path, data)
	if err != nil {
		return nil, err
	}
	servers := doc.root.get("agent_servers")
	if servers != nil && servers.kind != jObject {
		return nil, fmt.Errorf("%s: \"agent_servers\" is not an object; not touching it", path)
	}
	rec := &zedEntry{}
	if !exists {
		rec.File = ptr("absent")
	} else if len(bytes.TrimSpace(data)) == 0 {
		rec.File = ptr(string(data))
	}
	if servers == nil {
		servers = &jnode{kind: jObject}
		doc.root.set("agent_servers", servers)
		rec.Servers = true
	}
	// The entry: one already ours, else Zed's own name for the agent,
	// else one that starts the agent, else a new one.
	key := ""
	for _, it := range servers.items {
		if argv, ok := acpArgs(it.val); ok && agent.runs(argv) {
			if cmd, _ := it.val.get("command").stringValue(); cmd == statuspub {
				return data, nil // installed
			}
			it.val.set("command", str(statuspub))
			return doc.encode(), nil
		}
	}
	if e := servers.get(agentKey(agent)); e != nil {
		key = agentKey(agent)
	} else {
		for _, it := range servers.items {
			cmd, _ := it.val.get("command").stringValue()
			if it.val.kind == jObject && agent.runs([]string{cmd}) {
				key = it.key
			}
		}
	}
	if key == "" {
		key = agentKey(agent)
	}
	entry := servers.get(key)
	if entry != nil && entry.kind != jObject {
		return nil, fmt.Errorf("%s: agent_servers.%s is not an object; not touching it", path, key)
	}
	var argv []string
	if entry != nil {
		rec.Before = ptr(string(entry.src))
		if cmd, ok := entry.get("command").stringValue(); ok && cmd != "" {
			argv = []string{cmd}
			if a := entry.get("args"); a != nil && a.kind == jArray {
				argv = append(argv, stringsOf(a)...)
			}
		}
	} else {
		entry = &jnode{kind: jObject}
		servers.set(key, entry)
	}
	chosen := argv == nil // the command is install's choice, not the entry's
	if chosen {
		argv = agent.programs[0]
		for _, p := range agent.programs {
			if _, err := findProgram(p[0], getenv); err == nil {
				argv = p
				break
			}
		}
	}
	if _, err := findProgram(argv[0], getenv); err != nil {
		if agent.adapter != "" && chosen {
			var names []string
			for _, p := range agent.programs {
				names = append(names, p[0])
			}
			return nil, fmt.Errorf("no ACP adapter for %s found in PATH (%s): install one (npm install -g %s), then run install again",
				agent.name, strings.Join(names, ", "), agent.adapter)
		}
		*notes = append(*notes, fmt.Sprintf("%s is not found in PATH: Zed will start statuspub acp, which cannot start it until it is installed (statusls doctor says so too)", argv[0]))
	}
	rec.Wrote = append([]string{"acp", "--agent", agent.name, "--"}, argv...)
	if t, _ := entry.get("type").stringValue(); t != "custom" {
		entry.set("type", str("custom"))
	}
	entry.set("command", str(statuspub))
	entry.set("args", strArray(rec.Wrote))
	restore.Entries[key] = rec
	return doc.encode(), nil
}

// agentKey is the name under agent_servers of a new entry: Zed's own
// name for the agent ("gemini", "claude", "codex"), else the agent's.
func agentKey(a zedAgent) string {
	if a.name == "claude-code" {
		return "claude"
	}
	return a.name
}

// unwrapZed returns settings data whose entries that run agent through
// statuspub acp are back to what install found, and forgets them in
// restore. nil: the file goes (install made it).
func unwrapZed(path string, data []byte, exists bool, agent zedAgent, restore *zedRestore) ([]byte, error) {
	if !exists {
		return nil, nil
	}
	doc, err := parseZed(path, data)
	if err != nil {
		return nil, err
	}
	servers := doc.root.get("agent_servers")
	if servers == nil || servers.kind != jObject {
		return data, nil
	}
	changed := false
	var file *string
	for _, key := range memberKeys(servers) {
		entry := servers.get(key)
		argv, ok := acpArgs(entry)
		if !ok || !agent.runs(argv) {
			continue
		}
		rec := restore.Entries[key]
		delete(restore.Entries, key)
		changed = true
		switch {
		case rec != nil && slices.Equal(stringsOf(entry.get("args")), rec.Wrote) && rec.Before == nil:
			servers.del(key)
		case rec != nil && slices.Equal(stringsOf(entry.get("args")), rec.Wrote):
			if err := restoreMembers(entry, *rec.Before); err != nil {
				return nil, fmt.Errorf("%s: %s: %v", RestoreFile, key, err)
			}
		default: // no record, or edited since: the command is what follows --
			entry.set("command", str(argv[0]))
			entry.set("args", strArray(argv[1:]))
			rec = nil
		}
		if rec != nil && rec.Servers && len(servers.items) == 0 {
			doc.root.del("agent_servers")
		}
		if rec != nil && len(servers.items) > 0 {
			// What install made (agent_servers, the file) goes with the
			// last of its entries to go: another install's passes it on.
			for _, k := range memberKeys(servers) {
				if other := restore.Entries[k]; other != nil {
					other.Servers = other.Servers || rec.Servers
					other.File = cmp.Or(other.File, rec.File)
					rec.File = nil
					break
				}
			}
		}
		if rec != nil && rec.File != nil {
			file = rec.File
		}
	}
	if !changed {
		return data, nil
	}
	if file != nil && len(doc.root.items) == 0 {
		if *file == "absent" {
			return nil, nil
		}
		return []byte(*file), nil
	}
	return doc.encode(), nil
}

// restoreMembers sets the members install replaces (type, command, args)
// of entry back to their text in before, removing those before lacked.
func restoreMembers(entry *jnode, before string) error {
	b, err := parseSettings(RestoreFile, []byte(before), zedJSON)
	if err != nil {
		return err
	}
	for _, k := range []string{"type", "command", "args"} {
		if v := b.root.get(k); v != nil {
			// As written: a scalar node's text is written verbatim.
			entry.set(k, &jnode{kind: jScalar, raw: []byte(before[v.start:v.end])})
		} else if entry.get(k) != nil {
			entry.del(k)
		}
	}
	return nil
}

// findProgram looks name up as exec.LookPath does, in getenv's PATH.
func findProgram(name string, getenv func(string) string) (string, error) {
	exts := []string{""}
	if runtime.GOOS == "windows" { // no mode bits: a file of PATHEXT's kinds
		exts = filepath.SplitList(strings.ToLower(cmp.Or(getenv("PATHEXT"), ".com;.exe;.bat;.cmd")))
	}
	isExec := func(p string) (string, bool) {
		for _, ext := range exts {
			fi, err := os.Stat(p + ext)
			if err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
				return p + ext, true
			}
		}
		return "", false
	}
	if strings.ContainsAny(name, `/\`) {
		if p, ok := isExec(name); ok {
			return p, nil
		}
		return "", fs.ErrNotExist
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			continue
		}
		if p, ok := isExec(filepath.Join(dir, name)); ok {
			return p, nil
		}
	}
	return "", fs.ErrNotExist
}

func ptr[T any](v T) *T { return &v }
