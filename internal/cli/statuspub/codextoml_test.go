package statuspub

import "github.com/agentstatus/agentstatus/internal/agentinstall/codexconfig"

// The tests run install codex in this process, and as statuspub started
// from this test binary (testbin.Main): link config.toml's editor, as
// statuspub-install does.
func init() { codexTOML = &codexConfig{plan: codexconfig.Plan, daemonOff: codexconfig.DaemonOff} }
