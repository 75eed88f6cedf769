// Package agenthook maps the hook payloads of coding agents to what they do
// to the session's status record (SPEC.md §13): a state (working, blocked,
// idle), a title change, the record's removal, or nothing.
//
// Every function here is pure: it reads one payload, exactly as the agent
// documents it, and returns an [Action]. Writing the record is the caller's
// job (statuspub's claude-hook, codex-hook, gemini-hook, copilot-hook and
// qwen-hook; OpenCode's plugin speaks to statuspub serve). For most
// uses, call [ForAgent] and then the returned [Mapper].
//
// The payload shapes come from each agent's own documentation, checked
// against what the agents really send (internal/e2e):
//   - Claude Code: https://docs.claude.com/en/docs/claude-code/hooks
//   - Codex: https://developers.openai.com/codex/hooks and
//     openai/codex codex-rs/hooks/src/events/*.rs
//   - Gemini CLI: https://geminicli.com/docs/hooks/reference
//     (google-gemini/gemini-cli docs/hooks/reference.md)
//   - GitHub Copilot CLI:
//     https://docs.github.com/en/copilot/reference/hooks-reference
//   - Qwen Code: QwenLM/qwen-code docs/users/features/hooks.md
//
// # Compatibility
//
// Unknown events, and unknown fields of known events, are ignored, so a
// newer agent never breaks an older adapter. A payload that is not a JSON
// object or has no session id is [ErrBadInput].
package agenthook
