#!/usr/bin/env python3
"""A reader of gentle-shell.agent-status/v1 status directories, written with
Python's standard library only, as the conformance suite's Python adapter.

It lists $STATUS_DIR (or <config home>/agent-status) as of
$STATUSCONFORM_NOW (or the real clock) and prints one JSON object per live
session: session, agent, state, pid, cwd and title, every string sanitized
for display (SPEC.md R13), and what its waitingFor and ended say (SPEC.md
4.4). Run it with

    statusconform reader -- python3 conformance/adapters/python/status_reader.py

Exit status: 0, also when there are no sessions or no directory; 1, with a
line on standard error, when the status directory must be refused or is not
a directory (SPEC.md R2): the error is observable (R23).
"""

import errno
import json
import os
import stat
import sys
import time

import statusproto as sp


class Refused(Exception):
    pass


def status_dir():
    d = os.environ.get("STATUS_DIR")
    if d:
        return d
    home = os.environ.get("GENTLE_PI_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".pi", "gentle-ai")
    return os.path.join(home, "agent-status")


def open_dir(path):
    """R1, R2: None for a missing directory; refuse a symlink, a directory
    owned by another account, or one writable by group or others."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as e:
        if sp.FLAW == "not-dir-empty" and e.errno == errno.ENOTDIR and not os.path.islink(path):
            return None  # wrongly takes a file for a missing directory
        if e.errno in (errno.ELOOP, errno.EMLINK) or os.path.islink(path):
            raise Refused("%s: the status directory is a symbolic link" % path)
        raise Refused("%s: %s" % (path, e.strerror))
    st = os.fstat(fd)
    if st.st_uid != os.geteuid():
        os.close(fd)
        raise Refused("%s: owned by uid %d, not by this account" % (path, st.st_uid))
    if st.st_mode & 0o022:
        os.close(fd)
        raise Refused("%s: writable by group or others (mode %04o)" % (path, stat.S_IMODE(st.st_mode)))
    return fd


def read_file(dirfd, name):
    """R4-R8: the bytes of a status file, None if it vanished; raise
    sp.Invalid for what must not be read."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(name, flags, dir_fd=dirfd)
    except FileNotFoundError:
        return None  # R8: its publisher just shut down
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EMLINK):
            raise sp.Invalid("symlink")
        if e.errno in (errno.ENXIO, errno.EOPNOTSUPP):
            raise sp.Invalid("not-regular")
        raise sp.Invalid("unreadable", e.strerror)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise sp.Invalid("not-regular")
        if st.st_uid != os.geteuid():
            raise sp.Invalid("not-owned")
        if st.st_size > sp.MAX_FILE:
            raise sp.Invalid("too-large")
        chunks = []
        total = 0
        while total <= sp.MAX_FILE:
            b = os.read(fd, sp.MAX_FILE + 1 - total)
            if not b:
                break
            chunks.append(b)
            total += len(b)
        if total > sp.MAX_FILE:
            raise sp.Invalid("too-large")
        return b"".join(chunks)
    except OSError as e:
        raise sp.Invalid("unreadable", e.strerror)
    finally:
        os.close(fd)


def pid_alive(pid):
    """For the hide-dead-pid flaw only."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass
    return True


def main():
    now_text = os.environ.get("STATUSCONFORM_NOW")
    now = sp.parse_time_ns(now_text) if now_text else time.time_ns()
    if now is None:
        print("status_reader.py: STATUSCONFORM_NOW is not an RFC 3339 time", file=sys.stderr)
        return 2
    path = status_dir()
    try:
        dirfd = open_dir(path)
    except Refused as e:
        if sp.FLAW == "refuse-silently":
            return 0  # wrongly: nothing on stderr, exit 0 (R23)
        print("status_reader.py: refusing %s" % e, file=sys.stderr)
        return 1
    if dirfd is None:
        return 0
    out = sys.stdout
    try:
        for name in sorted(os.listdir(dirfd)):  # R14: file-name order
            if not sp.NAME_RE.match(name):
                continue  # R3
            try:
                data = read_file(dirfd, name)
                if data is None:
                    continue
                rec = sp.decode(data)
                hashed = rec["session"]
                if sp.FLAW == "hash-raw-bytes":
                    import hashlib
                    hashed = None
                    if hashlib.sha256(rec["raw_session"]).hexdigest() + ".json" != name:
                        raise sp.Invalid("name-mismatch")
                if hashed is not None and sp.file_name(hashed) != name:
                    raise sp.Invalid("name-mismatch")  # R11
            except sp.Invalid:
                continue
            if not sp.is_fresh(rec["updated_ns"], now):
                continue
            if sp.FLAW == "hide-dead-pid" and rec["pid"] and not pid_alive(rec["pid"]):
                continue  # wrongly: a dead-looking pid is a second opinion only (FR4)
            title = sp.sanitize_title(rec["title"])
            out.write(json.dumps({
                "session": sp.sanitize_text(rec["session"]),
                "agent": sp.sanitize_text(rec["agent"]) or None,
                "state": sp.sanitize_text(rec["state"]),
                "pid": int(rec["pid"]) or None,
                "cwd": sp.sanitize_text(rec["cwd"]) or None,
                "title": title or None,
                "waitingFor": rec["waitingFor"],
                "ended": rec["ended"],
            }) + "\n")
    finally:
        os.close(dirfd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
