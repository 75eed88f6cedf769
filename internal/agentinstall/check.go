package agentinstall

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

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
	Err       error // the file could not be read or parsed
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
		}
		return st
	}
	if err == nil {
		st.Missing, err = missingHooks(st.Path, data, spec)
	}
	if err != nil {
		st.Err = err
		return st
	}
	st.Installed = len(st.Missing) == 0
	if agent == "codex" && len(st.Missing) < len(spec.events) {
		st.Untrusted = codexUntrusted(st.Path, data, spec)
	}
	return st
}

// missingHooks lists the events of spec in whose list the settings data
// (read from path) have no statuspub hook.
func missingHooks(path string, data []byte, spec hookSpec) ([]string, error) {
	var hooks *jnode
	if len(bytes.TrimSpace(data)) > 0 {
		doc, err := parseSettings(path, data, spec.jsonc)
		if err != nil {
			return nil, err
		}
		hooks = doc.root.get("hooks")
	}
	var missing []string
	for _, ev := range spec.events {
		if l := hooks.get(ev); l == nil || l.kind != jArray || len(spec.ours(l)) == 0 {
			missing = append(missing, ev)
		}
	}
	return missing, nil
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
