// Package acpbridge publishes the sessions of an agent run over the Agent
// Client Protocol (ACP: JSON-RPC 2.0, one message per line, over the
// agent's standard input and output) as SPEC.md §13.5 says, from a
// transparent proxy between the editor and the agent.
//
// For most uses, call [Run]: it starts the agent, copies every byte in
// both directions unchanged and in order, and publishes one record per
// ACP session. [Tracker] is the mapping alone (messages in, records out),
// pure and table-tested; [Copy] is the pipe alone.
//
// # Never in the way
//
// The proxy forwards first and looks second: each line is handed to the
// tracker as a bounded copy ([MaxParse]; of a longer line only its first
// [MaxHead] bytes), and what the tracker cannot parse it ignores. Records
// are written on a goroutine of their own, through the hook session
// protocol of SPEC.md §13 (package hooksession), so a slow or failing
// write never delays a byte; a detached heartbeat owner (H3, H4) keeps
// each record fresh and removes it within a second or two of the proxy's
// death, even when the whole process tree is killed.
//
// # Platforms
//
// The pipe works everywhere; publishing needs the POSIX file locks of
// SPEC.md §13, and reports once on Windows that it is not supported.
package acpbridge
