package statusfile

// The write path (SPEC.md P2–P8). On Unix (write_unix.go) every step goes
// through descriptors: the config home is opened without following a link
// and checked on its descriptor, the status directory is opened through it
// and checked on its own, and the temporary file is created, renamed and
// removed relative to the status directory's descriptor (safefs.PubDir). On
// Windows (write_windows.go) the directory is opened as an os.Root.
//
// Temporary files are named by safefs.TempName: ".<hash>.<pid>.<random>.tmp".
