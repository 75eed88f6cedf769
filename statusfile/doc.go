// Package statusfile implements the gentle-shell.agent-status/v1 file format
// as specified in SPEC.md: the record, its encoding and tolerant decoding,
// title sanitizing, file naming, and a [Publisher] that keeps one session's
// status file fresh.
//
// For most uses, call [NewPublisher] to appear in every reader's listing, and
// [Decode] to read a record someone else wrote.
//
// A status file is one compact JSON object followed by a newline:
//
//	{"schema":"gentle-shell.agent-status/v1","agent":"pi","session":"s-1","pid":123,"cwd":"/work","state":"working","task":{"title":"Fix tests"},"updatedAt":"2026-07-17T12:34:56.000Z"}
//
// It lives in <config home>/agent-status/ under the name returned by
// [FileName]: the lowercase hex SHA-256 of the session id, plus ".json".
//
// # Security
//
// Status files are read by other programs, often straight onto a terminal.
// [SanitizeTitle] removes escape sequences and control, invisible and bidi
// characters from titles; [SanitizeText] does the same for the other fields
// without changing their spacing. The [Publisher] refuses to write into a
// directory that other accounts could tamper with (see package perm) and
// never follows a symbolic link. The threat model is other local accounts and
// hostile file contents, not the same account.
//
// # Compatibility
//
// [Decode] ignores keys it does not know, keeps states it does not know, and
// rejects only records it cannot identify: another schema, a missing session,
// state or timestamp, or a field of the wrong type. Every rejection carries a
// reason, [DecodeError].Reason, so that tools can explain it.
package statusfile
