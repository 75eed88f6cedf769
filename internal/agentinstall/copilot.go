package agentinstall

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/agentstatus/agentstatus/internal/shquote"
)

// GitHub Copilot CLI reads hooks from every *.json file of its hooks
// folders (https://docs.github.com/en/copilot/reference/hooks-reference,
// "Hooks locations"): ~/.copilot/hooks/ ($COPILOT_HOME/hooks/) for the
// user, .github/hooks/ for a repository. Each file is
//
//	{"version": 1, "hooks": {"EVENT": [{"type": "command", "bash": ..., "timeoutSec": N}, ...]}}
//
// with the entries flat in the event's list (no matcher groups, unlike
// Claude Code's). statuspub's hooks go into a file of their own,
// agentstatus.json, which install merges into as into any settings file:
// entries and keys the user added there stay. The file is read as plain
// JSON: Copilot CLI rejects a hooks file that is not.

// copilotFile is the name of statuspub's hooks file in Copilot CLI's hooks
// folders.
const copilotFile = "agentstatus.json"

// copilotTimeout is the timeoutSec of statuspub's hooks.
const copilotTimeout = 5

// copilotEvents are the events statuspub's hook runs on. The PascalCase
// names make Copilot CLI send the payload with hook_event_name and
// snake_case fields (the VS Code compatible shape); "notification" has no
// PascalCase name, and its payload names itself.
func copilotEvents() []string {
	return []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
		"notification", "Stop", "ErrorOccurred", "SessionEnd"}
}

// copilotMatcher is the matcher of statuspub's notification hook: only the
// notifications that mean the session waits for its user.
const copilotMatcher = "permission_prompt|elicitation_dialog"

// copilotHooksDir is Copilot CLI's hooks folder: the project's
// .github/hooks, else $COPILOT_HOME/hooks, else ~/.copilot/hooks.
func (o *Options) copilotHooksDir() (string, error) {
	if o.Project != "" {
		p, err := filepath.Abs(o.Project)
		if err != nil {
			return "", err
		}
		return filepath.Join(p, ".github", "hooks"), nil
	}
	dir, err := o.agentDir("copilot")
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "hooks"), nil
}

// planCopilot plans statuspub's hooks file for Copilot CLI.
func planCopilot(o Options) (Change, error) {
	dir, err := o.copilotHooksDir()
	if err != nil {
		return Change{}, err
	}
	return planFile(filepath.Join(dir, copilotFile), func(path string, data []byte) ([]byte, error) {
		return editCopilot(path, data, o)
	})
}

// editCopilot returns the hooks file with statuspub's hooks installed (or
// uninstalled): data itself when nothing changes, nil when uninstalling
// leaves nothing but the version (the file is then removed).
func editCopilot(path string, data []byte, o Options) ([]byte, error) {
	root := &jnode{kind: jObject}
	doc := jsonDoc{root: root}
	if len(bytes.TrimSpace(data)) > 0 {
		var err error
		if doc, err = parseSettings(path, data, false); err != nil {
			return nil, err
		}
		if root = doc.root; root.kind != jObject {
			return nil, &ParseError{Path: path, Line: 1, Col: 1, Msg: "the hooks file is not a JSON object"}
		}
	}
	hooks := root.get("hooks")
	if hooks != nil && hooks.kind != jObject {
		return nil, fmt.Errorf("%s: \"hooks\" is not an object; not touching it", path)
	}
	const sub = "copilot-hook"
	command := shquote.Quote(o.Command) + " " + sub
	changed := false
	if o.Uninstall {
		if hooks == nil {
			return data, nil
		}
		for _, ev := range memberKeys(hooks) {
			if removeCopilotOurs(hooks, ev, sub) {
				changed = true
			}
		}
		if !changed {
			return data, nil
		}
		if len(hooks.members) == 0 {
			root.del("hooks")
			if len(root.members) == 1 && root.members[0].key == "version" || len(root.members) == 0 {
				return nil, nil
			}
		}
		return doc.encode(), nil
	}
	if root.get("version") == nil {
		root.set("version", num(1))
		changed = true
	}
	if hooks == nil {
		hooks = &jnode{kind: jObject}
		root.set("hooks", hooks)
	}
	for _, ev := range copilotEvents() {
		list := hooks.get(ev)
		if list != nil && list.kind != jArray {
			return nil, fmt.Errorf("%s: hooks.%s is not an array; not touching it", path, ev)
		}
		if list == nil {
			list = &jnode{kind: jArray}
			hooks.set(ev, list)
		}
		if copilotHasOurs(list, sub) {
			continue
		}
		h := &jnode{kind: jObject}
		h.set("type", str("command"))
		h.set("bash", str(command))
		h.set("powershell", str(command))
		if ev == "notification" {
			h.set("matcher", str(copilotMatcher))
		}
		h.set("timeoutSec", num(copilotTimeout))
		list.elems, list.dirty = append(list.elems, h), true
		changed = true
	}
	if !changed {
		return data, nil
	}
	return doc.encode(), nil
}

// copilotCommand is the command line of one of Copilot CLI's hook
// entries: its bash, else its cross-platform command.
func copilotCommand(h *jnode) string {
	if s, ok := h.get("bash").stringValue(); ok {
		return s
	}
	s, _ := h.get("command").stringValue()
	return s
}

func copilotHasOurs(list *jnode, sub string) bool {
	for _, h := range list.elems {
		if isOurs(copilotCommand(h), sub) {
			return true
		}
	}
	return false
}

// removeCopilotOurs removes statuspub's entries from event ev's list, and
// the event when they leave it empty. It reports whether it removed any.
func removeCopilotOurs(hooks *jnode, ev, sub string) bool {
	list := hooks.get(ev)
	if list == nil || list.kind != jArray {
		return false
	}
	var keep []*jnode
	for _, h := range list.elems {
		if !isOurs(copilotCommand(h), sub) {
			keep = append(keep, h)
		}
	}
	switch {
	case len(keep) == len(list.elems):
		return false
	case len(keep) == 0:
		hooks.del(ev)
	default:
		list.elems, list.dirty = keep, true
	}
	return true
}
