// Package safefs holds the descriptor-level file operations behind the
// trust rules of SPEC.md that package perm states: for publishers on Unix,
// [OpenPublishDir] opens and checks the config home and the status
// directory through descriptors before every write; then
// [PubDir.CheckFile] and [PubDir.WriteFile] for the file about to be
// replaced, and [Dir.Remove] to remove it on shutdown. (On Windows:
// [EnsureConfigHome], [EnsureStatusDir], [OpenStatusRoot] and
// [CheckStatusFileIn].) For readers, [OpenDir], [Dir.Check] (SPEC.md R2)
// and [Dir.ReadFile]; [Dir.Remove] removes a file only if it is still the
// one read (SPEC.md D4).
//
// Every refusal is an [*Error] wrapping one of the sentinel errors, which
// package perm exports under the same names. See package perm for the
// threat model and the platform notes.
package safefs
