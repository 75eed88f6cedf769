// Package agentinstall wires statuspub's hook adapters into the
// configuration of the agents that run them: Claude Code
// (~/.claude/settings.json), Codex (~/.codex/hooks.json and, for the
// hooks' trust and the daemon switch when asked, ~/.codex/config.toml),
// Gemini CLI (~/.gemini/settings.json), GitHub Copilot CLI
// (~/.copilot/hooks/agentstatus.json), Qwen Code (~/.qwen/settings.json)
// and OpenCode (a plugin file in ~/.config/opencode/plugins/); with a
// project directory, the same files under it (.claude/, .codex/, .gemini/,
// .github/hooks/, .qwen/, .opencode/plugins/). [Agents] lists their names.
// With [Options.Zed], Plan instead wraps one of [ZedAgents] in Zed's
// agent_servers, so that Zed runs it through statuspub acp (zedinstall.go).
//
// For most uses, call [Plan], show [Change.Diff], then [Apply] each change.
// [Check] reports, per agent found on the machine, whether the hooks are
// installed (statusls doctor), and for Codex whether Codex trusts them.
//
// # Safety
//
// A settings file is merged, never replaced: every key, every other tool's
// hooks, and the order of keys are kept, and installing twice changes
// nothing. A file that does not parse is refused with its line and column;
// a symlinked or read-only settings file is refused. Before a change the
// old file is copied to NAME.agentstatus-backup-TIMESTAMP (OpenCode's
// plugin: in the folder above plugins/, whose every file OpenCode would
// load), and the new one replaces it atomically, keeping its permissions
// (renameio: a temporary file in the same directory, synced, then renamed
// over it; the standard library on Windows, where renameio has no
// WriteFile). JSON files are rewritten with two-space
// indentation; a JSON file with comments does not parse and is refused
// rather than losing them. Codex's config.toml is handled by package
// codexconfig (see [Options.CodexConfig]).
package agentinstall
