// Command statuspub-install is statuspub with the editor of Codex's
// config.toml (and so the TOML parser) linked: statuspub re-executes it
// for 'statuspub install codex', so that the hook commands, which every
// agent runs on every event, do not pay the parser's start-up cost.
// Install it next to statuspub.
package main

import (
	"os"

	"github.com/agentstatus/agentstatus/internal/agentinstall/codexconfig"
	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
)

func main() { os.Exit(statuspub.InstallMain(codexconfig.Plan, codexconfig.DaemonOff)) }
