package agentinstall

import (
	"os"
	"path/filepath"
	"runtime"
)

// ACPServer is an agent server of Zed's settings that runs an agent
// through `statuspub acp` (SPEC.md §13.5).
type ACPServer struct {
	Name    string   // its name under agent_servers
	Command []string // the agent's command line, after "--"
}

// ZedSettingsPath is Zed's user settings file, where Zed's config_dir
// (crates/paths) puts it: on Linux $FLATPAK_XDG_CONFIG_HOME/zed (Zed's
// Flatpak), else $XDG_CONFIG_HOME/zed, else ~/.config/zed; on Windows
// %APPDATA%\Zed; on macOS and the other systems ~/.config/zed, whatever
// $XDG_CONFIG_HOME says.
func ZedSettingsPath(getenv func(string) string) string {
	return zedSettingsPath(runtime.GOOS, getenv)
}

func zedSettingsPath(goos string, getenv func(string) string) string {
	switch {
	case goos == "windows" && getenv("APPDATA") != "":
		return filepath.Join(getenv("APPDATA"), "Zed", "settings.json")
	case goos == "linux" && getenv("FLATPAK_XDG_CONFIG_HOME") != "":
		return filepath.Join(getenv("FLATPAK_XDG_CONFIG_HOME"), "zed", "settings.json")
	case goos == "linux" && filepath.IsAbs(getenv("XDG_CONFIG_HOME")):
		return filepath.Join(getenv("XDG_CONFIG_HOME"), "zed", "settings.json")
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
