// Package jsonstr writes JSON strings the one way this module writes them:
// as JavaScript's JSON.stringify does (SPEC.md E2), with invalid UTF-8
// replaced as SPEC.md C6 says. Status files (package statusfile) and
// statusls's JSON output both use it, so that a string is escaped the same
// wherever the module prints it. Its [Scanner], a strict RFC 8259 scanner,
// is under statusfile.Decode and jqrun.Decode.
package jsonstr
