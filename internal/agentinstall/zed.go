package agentinstall

import (
	"os"
	"path/filepath"
)

// ACPServer is an agent server of Zed's settings that runs an agent
// through `statuspub acp` (SPEC.md §13.5).
type ACPServer struct {
	Name    string   // its name under agent_servers
	Command []string // the agent's command line, after "--"
}

// ZedSettingsPath is Zed's user settings file:
// $XDG_CONFIG_HOME/zed/settings.json, else ~/.config/zed/settings.json.
func ZedSettingsPath(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "zed", "settings.json")
	}
	return filepath.Join(getenv("HOME"), ".config", "zed", "settings.json")
}

// ZedACPServers reads the agent servers of Zed's settings at path (JSON
// with comments, as Zed reads it) whose command is statuspub with
// arguments "acp ... -- CMD ...". A missing file is none.
func ZedACPServers(path string) ([]ACPServer, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	doc, err := parseSettings(path, data, zedJSON)
	if err != nil {
		return nil, err
	}
	servers := doc.root.get("agent_servers")
	if servers == nil || servers.kind != jObject {
		return nil, nil
	}
	var out []ACPServer
	for _, it := range servers.items {
		cmd, _ := it.val.get("command").stringValue()
		args := it.val.get("args")
		if filepath.Base(cmd) != "statuspub" || args == nil || args.kind != jArray {
			continue
		}
		var argv []string
		for _, a := range args.items {
			s, _ := a.val.stringValue()
			argv = append(argv, s)
		}
		if len(argv) == 0 || argv[0] != "acp" {
			continue
		}
		s := ACPServer{Name: it.key}
		for i, a := range argv {
			if a == "--" {
				s.Command = argv[i+1:]
				break
			}
		}
		out = append(out, s)
	}
	return out, nil
}
