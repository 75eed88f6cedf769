// Package render turns [reader] entries into what statusls prints: the
// stable JSON object of a session, the event lines of statusls watch (that
// object with the event's name, number and time), TSV rows byte-identical
// to the published jq one-liner, the terminal table, the one-line summary;
// and the filters and orders statusls offers.
//
// # Security
//
// Every string taken from a status file goes through
// [statusfile.SanitizeTitle] (titles) or [statusfile.SanitizeText] (other
// fields) before it is rendered (SPEC.md R13): no escape sequence or control
// character from a file reaches the output. The only escape sequences in the
// output are the colours the table adds itself, when asked to.
package render
