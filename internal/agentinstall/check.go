package agentinstall

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentstatus/agentstatus/examples/opencode"
)

// Status is whether one agent found on the machine publishes its state.
type Status struct {
	Agent     string
	Found     string   // how the agent was found: its configuration directory or its program; "" when not found
	Path      string   // the file that holds the hooks
	Installed bool     // every hook (or the plugin) is in place
	Missing   []string // the events without statuspub's hook
	// Untrusted (Codex) are the events whose statuspub hook Codex will not
	// run until the user trusts it: config.toml records no trusted_hash
	// for it, or one of an older hook.
	Untrusted []string
	// Gone are the programs (paths) that the installed hooks start and
	// that no longer exist: statuspub was removed or moved since install
	// (an archive deleted, a package removed, npx's cache emptied).
	Gone []string
	Err  error // the file could not be read or parsed
}

// Check reports, for each agent, whether it is on the machine (its user
// configuration directory exists, or its program is on PATH) and whether
// statuspub's hooks are installed in its user configuration. getenv is
// os.Getenv when nil.
func Check(getenv func(string) string) []Status {
	o := Options{Getenv: getenv}
	var out []Status
	for _, agent := range Agents {
		out = append(out, o.check(agent))
	}
	return out
}

// check is Check of one agent.
func (o *Options) check(agent string) Status {
	st := Status{Agent: agent}
	spec, dir, err := o.agentDir(agent)
	if err != nil {
		st.Err = err
		return st
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		st.Found = dir
	} else if p, err := exec.LookPath(agent); err == nil { // the agent's program has its name
		st.Found = p
	}
	st.Path = filepath.Join(dir, spec.file)
	data, _, exists, err := ReadFile(st.Path)
	if spec.plugin {
		st.Err = err
		st.Installed = exists && bytes.Contains(data, []byte(opencode.Marker))
		if !st.Installed {
			st.Missing = []string{"the plugin"}
		} else if prog, ok := pluginProgram(data); ok {
			st.Gone = gone([]string{prog})
		}
		return st
	}
	var progs []string
	if err == nil {
		st.Missing, progs, err = missingHooks(st.Path, data, spec)
	}
	if err != nil {
		st.Err = err
		return st
	}
	st.Installed = len(st.Missing) == 0
	st.Gone = gone(progs)
	if agent == "codex" && len(st.Missing) < len(spec.events) {
		st.Untrusted = codexUntrusted(st.Path, data, spec)
	}
	return st
}

// missingHooks lists the events of spec in whose list the settings data
// (read from path) have no statuspub hook, and the programs that
// statuspub's hooks start, each once.
func missingHooks(path string, data []byte, spec hookSpec) (missing, progs []string, err error) {
	var hooks *jnode
	if len(bytes.TrimSpace(data)) > 0 {
		doc, err := parseSettings(path, data, commentsIf(spec.jsonc))
		if err != nil {
			return nil, nil, err
		}
		hooks = doc.root.get("hooks")
	}
	for _, ev := range spec.events {
		l := hooks.get(ev)
		if l == nil || l.kind != jArray || len(spec.ours(l)) == 0 {
			missing = append(missing, ev)
			continue
		}
		for _, h := range spec.ours(l) {
			if p := spec.program(h); p != "" && !slices.Contains(progs, p) {
				progs = append(progs, p)
			}
		}
	}
	return missing, progs, nil
}

// program is the program that statuspub's handler h starts: the first
// word of its command (of its bash command in a flat list).
func (s hookSpec) program(h *jnode) string {
	prog, _, _ := firstWord(strings.TrimSpace(s.handlerCommand(h)))
	return prog
}

// pluginProgram is the statuspub that OpenCode's plugin (data) starts
// when $AGENTSTATUS_STATUSPUB is unset.
func pluginProgram(data []byte) (string, bool) {
	const prefix = "process.env.AGENTSTATUS_STATUSPUB || "
	i := bytes.Index(data, []byte(prefix))
	if i < 0 {
		return "", false
	}
	var prog string
	if err := json.NewDecoder(bytes.NewReader(data[i+len(prefix):])).Decode(&prog); err != nil {
		return "", false
	}
	return prog, true
}

// gone lists the programs among progs that are paths (not names looked
// up on the agent's PATH, which is not necessarily doctor's) and that no
// longer exist as files.
func gone(progs []string) []string {
	var out []string
	for _, p := range progs {
		if !strings.ContainsRune(p, '/') && !strings.ContainsRune(p, filepath.Separator) {
			continue
		}
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			out = append(out, p)
		}
	}
	return out
}

// codexUntrusted lists the events of spec whose statuspub hook in the
// hooks.json at path (content data) the config.toml next to it does not
// trust. An unreadable config.toml trusts nothing.
func codexUntrusted(path string, data []byte, spec hookSpec) []string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	entries, err := CodexTrustEntries(abs, data, spec.hookCmd)
	if err != nil {
		return nil
	}
	config, _, _, _ := ReadFile(filepath.Join(filepath.Dir(path), "config.toml"))
	var out []string
	for _, e := range entries {
		if !slices.Contains(spec.events, e.Event) || slices.Contains(out, e.Event) {
			continue
		}
		if h, ok := CodexTrustedHash(config, e.Key); !ok || h != e.Hash {
			out = append(out, e.Event)
		}
	}
	return out
}
