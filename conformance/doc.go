// Package conformance is the conformance suite of the
// gentle-shell.agent-status/v1 protocol as specified in SPEC.md: reader
// vectors, the harnesses that run a reader or a publisher in any language
// against them, and the report.
//
// For most uses, run the statusconform command. From Go, put the command
// under test in [Options] and call [RunReader] to check a reader,
// [RunPublisher] a publisher that speaks the line protocol of SPEC.md §11,
// or [RunHooks] an agent's hook adapter (SPEC.md §13); then check
// [Report.OK] and write the report with [Report.WriteText],
// [Report.WriteJSON] or [Report.WriteJUnit]. [Materialize] writes the
// reader cases as directories, for implementers who would rather run their
// own tests.
//
// # Vectors
//
// Each reader case is one plain-text file under testdata/reader/, in the
// txtar format: a header (id, level, the SPEC.md rules and the quoted
// requirement text, "now", directives for the directory), the files of the
// status directory as sections (with directives for what a text file cannot
// hold: symbolic links, FIFOs, sockets, subdirectories, devices, sizes, raw
// bytes, modes and ownership), and the sessions a conforming reader shows.
// A case's id is its path and never changes. See README.md for the format.
//
// # Results
//
// A crash, a hang, a timeout or an error of the harness itself is never a
// pass. A case that cannot run here (it needs root, or a Unix system) is
// skipped with the reason. A command that cannot be run at all is an
// error, [ErrCannotRun], not a failure of every case.
//
// # Platforms
//
// The harnesses need a Unix system for everything that involves modes,
// ownership, FIFOs, sockets, signals and umasks; elsewhere those cases and
// checks are skipped.
package conformance
