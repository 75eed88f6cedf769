// Package perm implements the trust rules of SPEC.md for the
// gentle-shell.agent-status/v1 protocol: what a publisher must check before
// it writes into a config home, a status directory and a status file, and
// how a reader opens status files without following a symbolic link, hanging
// on a FIFO or device, or reading more than a bound.
//
// For most uses, call [CheckConfigHome] and [CheckStatusDir]: a
// statusfile.Publisher and package reader apply every rule themselves,
// through descriptors, before each write and each read.
//
// Every refusal is an [*Error] that wraps one of the sentinel errors
// ([ErrSymlink], [ErrNotOwned], ...), so callers can branch with errors.Is,
// and says which rule was broken for which path. Errors from the file system
// itself are returned as they are (*fs.PathError), so
// errors.Is(err, fs.ErrNotExist) works.
//
// # Security
//
// The threat model is other local accounts and hostile file contents. An
// attacker with the same account can do anything the publisher can; still,
// on Unix every check is made on the descriptor that is then used, and no
// path is looked up twice (SPEC.md P7), so a directory renamed or replaced
// by a link between the check and the write cannot redirect the write.
// Removals move the file aside and check that what moved is the file meant
// before unlinking it (SPEC.md D4, P11): an inode number alone is not an
// identity, since file systems hand freed inodes out again.
//
// # Platforms
//
// On Unix, ownership is compared with the effective user id and modes are
// checked as SPEC.md says. On Windows there are no mode bits and ownership
// is not checked: the files inherit the ACL of the config home, which is
// private under the default user profile. Symbolic links and other reparse
// points are refused on every platform.
package perm
