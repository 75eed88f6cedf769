// Package remote lists and watches the gentle-shell.agent-status/v1 status
// directories of other machines through the system's ssh binary: every
// host runs statusls itself (statusls --json --all, statusls watch --json
// --all) and this package merges what they print. There is no daemon, no
// open port and no credential of its own: the user's ~/.ssh/config, agent,
// ProxyJump and ControlMaster settings all apply.
//
// For most uses, take [ConfigFromEnv]'s configuration and call [List] for
// a listing of several hosts, [Watch] for one stream of their changes, or
// [Wait] for a condition on one host. They return data: entries, events and
// a [HostError] per host that fails, never text to print.
//
// Each ssh command runs with BatchMode=yes (never a password prompt), a
// connect timeout, and, unless disabled, connection reuse: ControlMaster=auto
// with ControlPersist, its sockets in a private 0700 directory of ours
// (checked by [ConfigFromEnv]), so a status bar polling every few seconds
// does not pay a handshake each time. Hosts are queried in parallel, at
// most 32 at once ([Config].FanOut), each with its own timeout.
//
// # Security
//
// Everything a host sends is untrusted. Lines are bounded (256 KiB) and so
// is a host's whole listing ([Config].MaxBytes); every object is decoded
// strictly (types checked, required keys present, file names of the status
// file form, times in RFC 3339) and its strings are sanitized again here as
// SPEC.md §7 says, so no escape sequence from a host reaches a terminal.
// Nothing a host sends is ever given to a shell of this machine. Host names
// and arguments reach ssh as separate argv elements after "--", never in a
// shell string; a host name starting with "-" (which ssh would take for an
// option) or holding white space or control characters is refused. The
// command run on the host is built from fixed words, each quoted for the
// remote shell (internal/shquote), since ssh joins them into one string for it.
//
// # Compatibility
//
// A host whose statusls is older than this package's protocol (its --json
// objects lack the verdict key, or it rejects the flags used) is reported
// as such (a [HostError] of Kind "version"), with the fix; its sessions are not guessed at.
package remote
