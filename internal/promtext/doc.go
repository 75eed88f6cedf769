// Package promtext turns listings of gentle-shell.agent-status/v1 status
// directories (SPEC.md) into metrics in the Prometheus text exposition
// format (version 0.0.4) or OpenMetrics 1.0 text, and writes them for
// node_exporter's textfile collector.
//
// For most uses, feed every entry of one listing to [Host.Add] (a
// [reader.Dir.Each] callback or a loop over [reader.Listing.Entries]), call
// [Append] with the hosts, and write the result to standard output or, for
// node_exporter, with [WriteTextfile].
//
// # Metrics
//
// All are gauges:
//
//   - agentstatus_sessions{state,agent}: fresh sessions per state and agent.
//     Every agent seen in a valid record (fresh or stale) has all of the
//     states working, blocked and idle, zeros included; with no agent at
//     all, the three states with agent="". A state outside the three, which
//     a newer publisher may write, is counted as state="other" (only when
//     there is one).
//   - agentstatus_oldest_seconds{state}: for blocked, how long the session
//     that has waited longest has waited, from its waitingFor.since; for
//     idle, how long ago the oldest idle session's turn ended, from its
//     ended.at. A record without that time counts as 0 (its wait is known
//     to be on now, not since when); 0 when no session is in the state.
//     Working has no start time in a v1 record and is not exported.
//   - agentstatus_stale_sessions: valid records older than 30 s.
//   - agentstatus_invalid_files{reason}: invalid files per SPEC.md §10
//     reason, every reason present, zeros included.
//   - agentstatus_session{session,agent,state,cwd} = 1 per fresh session,
//     only with [Options].PerSession: one series per session, so unbounded.
//   - agentstatus_host_up{host}: with [Options].HostLabel only, 1 for a
//     host that was listed and 0 for one that failed.
//
// With [Options].HostLabel, every series of a host also has host="NAME"
// first (this machine's host=""), as statusls --json has "host".
//
// # Security
//
// Label values come from status files, which any process of the account
// may write. Titles never become labels. Every value goes through
// [statusfile.SanitizeText] (no control character or escape sequence
// survives), is cut to a bound at a character boundary (agent 64 bytes,
// state 64, session 128, cwd 256) and is escaped as both formats say
// (backslash, double quote, line feed). At most 64 agents per host are
// named; the sessions of further agents are counted under agent="other".
// Two sessions whose labels would be equal once sanitized and cut are told
// apart by a part of their file name, so that no series is written twice.
// Invalid and stale files are counted, never exported as sessions.
package promtext
