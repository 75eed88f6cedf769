#!/usr/bin/env python3
"""A publisher of gentle-shell.agent-status/v1 status files, written with
Python's standard library only, speaking the line protocol of SPEC.md
section 11 (like `statuspub serve`), as the conformance suite's Python
adapter:

    statusconform publisher -- python3 conformance/adapters/python/status_publisher.py

It takes the session id, agent name and config home from --session,
--agent and --config-home, else from STATUSCONFORM_SESSION,
STATUSCONFORM_AGENT and STATUSCONFORM_CONFIG_HOME, else the config home
from GENTLE_PI_CONFIG_HOME or ~/.pi/gentle-ai (never from STATUS_DIR, L4).
It publishes at once (state idle, no task), applies each JSON line of
standard input ({"state": ...}, {"title": ...}) and answers it once the
change is on disk or has failed, rewrites the file every 9 seconds, and
removes it on end of input, SIGTERM or SIGINT. With --no-detail, or
AGENTSTATUS_NO_DETAIL set to anything but empty or 0, it writes every
detail of waitingFor and ended as null (SPEC.md Y5).

With STATUSPROTO_VARIANT=published-only it follows only what the published
page requires: it takes any session id (no limits of SPEC.md N2) and never
creates a missing config home (P3's addition). That is what
`statusconform publisher --level core` checks, and the suite's tests run it
so (`go test ./conformance`).
"""

import errno
import json
import os
import signal
import stat
import sys
import threading
import time

import statusproto as sp

HEARTBEAT = 9.0  # P9: at least every 10 s, with a second of slack
PUBLISHED_ONLY = os.environ.get("STATUSPROTO_VARIANT") == "published-only"


class Refused(Exception):
    """A write refused by the trust rules (P2-P5)."""


def _check_dir(path, what, forbidden):
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise Refused("%s %s is a symbolic link" % (what, path))
    if not stat.S_ISDIR(st.st_mode):
        raise Refused("%s %s is not a directory" % (what, path))
    if st.st_uid != os.geteuid():
        raise Refused("%s %s is owned by uid %d" % (what, path, st.st_uid))
    if st.st_mode & forbidden:
        raise Refused("%s %s has mode %04o" % (what, path, stat.S_IMODE(st.st_mode)))
    return st


def _mkdir_private(path, parents):
    """P3: create a missing directory 0700 whatever the umask; never
    change the mode of one that exists."""
    try:
        os.lstat(path)
        return
    except FileNotFoundError:
        pass
    if parents:
        os.makedirs(os.path.dirname(path), 0o700, exist_ok=True)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        return
    os.chmod(path, 0o700)


class Publisher:
    def __init__(self, home, session, agent):
        self.home = os.path.abspath(home)
        self.dir = os.path.join(self.home, "agent-status")
        self.name = sp.file_name(session)
        self.session = session
        self.agent = agent
        self.pid = os.getppid()  # the program this session lives in
        self.cwd = os.getcwd()
        self.state = "idle"
        self.title = ""
        self.why = {}  # "waitingFor" or "ended" -> its object (SPEC.md 4.4)
        self.no_detail = False  # Y5: leave every detail out
        self.written = None  # (st_dev, st_ino) of the file written last
        self.reported = None
        self.lock = threading.Lock()
        self.last_input = time.monotonic()
        self.stop = threading.Event()

    def _open_dir(self):
        """P2-P4, before every write (P7): returns a descriptor of the
        checked status directory."""
        if sp.FLAW == "dir-opened-once" and getattr(self, "cached_dfd", None) is not None:
            return os.dup(self.cached_dfd)  # wrongly keeps the first directory it opened
        if not PUBLISHED_ONLY:
            _mkdir_private(self.home, True)  # P3 (this spec)
        if not (sp.FLAW == "home-checked-once" and self.written is not None):
            _check_dir(self.home, "config home", 0o022)
        _mkdir_private(self.dir, False)
        st = _check_dir(self.dir, "status directory", 0o077)
        fd = os.open(self.dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        fst = os.fstat(fd)
        if (fst.st_dev, fst.st_ino) != (st.st_dev, st.st_ino):
            os.close(fd)
            raise Refused("status directory %s was replaced while being checked" % self.dir)
        if sp.FLAW == "dir-opened-once":
            self.cached_dfd = os.dup(fd)
        return fd

    def _write(self):
        """One atomic write (P8); raises on failure."""
        state, title = self.state, self.title
        if sp.FLAW == "heartbeat-stale-copy" and getattr(self, "heartbeating", False):
            state, title = self.first
        data = sp.encode(self.session, self.agent, self.pid, self.cwd, state, title, time.time_ns(), self.why)
        dfd = self._open_dir()
        try:
            try:
                st = os.stat(self.name, dir_fd=dfd, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            if sp.FLAW == "file-checked-once" and self.written is not None:
                st = None  # wrongly trusts a file it has written once
            if st is not None:  # P5
                if stat.S_ISLNK(st.st_mode):
                    raise Refused("status file %s is a symbolic link" % self.name)
                if not stat.S_ISREG(st.st_mode):
                    raise Refused("status file %s is not a regular file" % self.name)
                if st.st_nlink > 1:
                    raise Refused("status file %s has %d links" % (self.name, st.st_nlink))
                if st.st_uid != os.geteuid():
                    raise Refused("status file %s is owned by uid %d" % (self.name, st.st_uid))
            tmp = "." + self.name + "." + os.urandom(6).hex()  # secrets.token_hex, without its imports
            tmp_dfd = dfd
            if sp.FLAW == "temp-without-dot":
                tmp = tmp[1:]
            elif sp.FLAW == "temp-in-config-home":
                tmp_dfd = os.open(self.home, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=tmp_dfd)
            try:
                os.fchmod(fd, 0o600)  # P6, whatever the umask
                if sp.FLAW == "keep-file-mode" and st is not None:
                    os.fchmod(fd, stat.S_IMODE(st.st_mode))  # wrongly keeps the old file's mode
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
                fst = os.fstat(fd)
                os.close(fd)
                fd = -1
                os.rename(tmp, self.name, src_dir_fd=tmp_dfd, dst_dir_fd=dfd)
            except BaseException:
                if fd >= 0:
                    os.close(fd)
                try:
                    os.unlink(tmp, dir_fd=tmp_dfd)
                except OSError:
                    pass
                raise
            finally:
                if tmp_dfd != dfd:
                    os.close(tmp_dfd)
            self.written = (fst.st_dev, fst.st_ino)
        finally:
            os.close(dfd)

    def publish(self):
        """Write the record; return None or the error message. A failure is
        reported once per kind (P13) and retried at the next heartbeat."""
        try:
            self._write()
        except (Refused, OSError) as e:
            msg = str(e)
            if msg != self.reported:
                self.reported = msg
                print("status_publisher.py: %s" % msg, file=sys.stderr, flush=True)
            return msg
        self.reported = None
        return None

    def heartbeat(self):
        # Signals go to the main thread only, which holds them off while it
        # writes (publish_unstopped).
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
        while not self.stop.wait(HEARTBEAT):
            with self.lock:
                if self.stop.is_set():
                    return  # shutting down: the file is removed, or about to be
                if sp.FLAW == "heartbeat-reset-by-input" and time.monotonic() - self.last_input < HEARTBEAT:
                    continue  # wrongly counts any input line as a sign of life
                self.heartbeating = True
                self.publish()
                self.heartbeating = False

    def remove(self):
        """P11: remove the file only if it is still the one written last."""
        if self.written is None:
            return
        try:
            dfd = os.open(self.dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return
        try:
            st = os.stat(self.name, dir_fd=dfd, follow_symlinks=False)
            if stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) == self.written:
                os.unlink(self.name, dir_fd=dfd)
        except OSError:
            pass
        finally:
            os.close(dfd)

    def apply(self, line):
        """W2: apply one input line; return None or why it is refused."""
        try:
            obj = json.loads(line.decode("utf-8", "replace"))
        except ValueError:
            return "not a JSON object"
        if not isinstance(obj, dict):
            return "not a JSON object"
        state, title = self.state, self.title
        if "state" in obj:
            if sp.FLAW == "state-any-case" and isinstance(obj["state"], str):
                obj["state"] = obj["state"].strip().lower()  # wrongly: W3 refuses any other spelling
            if not isinstance(obj["state"], str) or obj["state"] not in sp.STATES:
                return '"state" must be working, blocked or idle'
            state = obj["state"]
        if "title" in obj:
            t = obj["title"]
            if t is not None and not isinstance(t, str):
                return '"title" must be a string or null'
            title = sp._fix(t or "")
        # Section 11, W2 (this spec): waitingFor makes the state blocked,
        # ended idle; each goes when the state leaves its own (Y2, Y3).
        why = dict(self.why)
        for key, word, words, st in (("waitingFor", "kind", sp.WAIT_KINDS, "blocked"),
                                     ("ended", "reason", sp.END_REASONS, "idle")):
            v = obj.get(key)
            if v is None:
                continue
            if not isinstance(v, dict) or v.get(word) not in words or any(
                    v.get(k) is not None and not isinstance(v.get(k), str) for k in ("tool", "detail")):
                return '"%s" must be null or an object with a %s of %s' % (key, word, ", ".join(words))
            if "state" in obj and state != st:
                return '"%s" needs the state %s' % (key, st)
            state = st
            now = sp.format_time_ns(time.time_ns())
            detail = v.get("detail")
            if self.no_detail and not (sp.FLAW == "no-detail-ended-kept" and key == "ended"):
                detail = None  # Y5: the switch leaves every detail out
            if key == "waitingFor":
                old = why.get(key) if self.state == "blocked" else None
                tool = v.get("tool")
                if self.no_detail and sp.FLAW == "no-detail-tool-dropped":
                    tool = None  # wrongly: the tool is still written (Y5)
                new = {"kind": v["kind"], "tool": tool, "detail": detail}
                since = old["since"] if old and all(old.get(k) == new[k] for k in new) else now
                why[key] = dict(new, since=since)
            else:
                why[key] = {"reason": v["reason"], "detail": detail, "at": now}
        if "waitingFor" in obj and "ended" in obj and obj["waitingFor"] is not None and obj["ended"] is not None:
            return '"waitingFor" and "ended" exclude each other'
        if sp.FLAW != "why-outlives-state":
            if state != "blocked":
                why.pop("waitingFor", None)
            if state != "idle":
                why.pop("ended", None)
        with self.lock:
            self.state, self.title, self.why = state, title, why
            return self.publish_unstopped()

    def publish_unstopped(self):
        """publish, with SIGTERM and SIGINT held off until the write is
        done: a stop raised between the rename and noting the inode
        written would leave the file behind (P11)."""
        held = {signal.SIGTERM, signal.SIGINT}
        old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
        try:
            return self.publish()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


class Stop(Exception):
    pass


def _stop(signum, frame):
    raise Stop()


class Args:
    """The options and their defaults: $STATUSCONFORM_* (SPEC.md section 11)."""

    def __init__(self):
        self.config_home = os.environ.get("STATUSCONFORM_CONFIG_HOME")
        self.session = os.environ.get("STATUSCONFORM_SESSION")
        self.agent = os.environ.get("STATUSCONFORM_AGENT") or "python"


def no_detail(argv):
    """Y5: --no-detail, or AGENTSTATUS_NO_DETAIL set to anything but empty
    or 0, leaves the detail of waitingFor and ended out."""
    flag = "--no-detail" in argv[1:] and sp.FLAW != "no-detail-flag-ignored"
    env = os.environ.get("AGENTSTATUS_NO_DETAIL")
    if sp.FLAW == "no-detail-env-ignored":
        env = None
    elif sp.FLAW == "no-detail-env-set-on" and env is not None:
        env = "1"  # wrongly: any value, even empty or 0, turns it on
    elif sp.FLAW == "no-detail-env-zero-on" and env == "0":
        env = "1"  # wrongly: only empty leaves it off
    return flag or env not in (None, "", "0")


def parse_args():
    # argparse (with gettext and shutil) was a quarter of a start, and
    # the suite passes no arguments but --no-detail: parse only when there
    # are others.
    args = Args()
    args.no_detail = no_detail(sys.argv)
    sys.argv[1:] = [a for a in sys.argv[1:] if a != "--no-detail"]
    if len(sys.argv) > 1:
        import argparse

        ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
        ap.add_argument("--config-home", default=args.config_home)
        ap.add_argument("--session", default=args.session)
        ap.add_argument("--agent", default=args.agent)
        ap.add_argument("--no-detail", action="store_true", default=args.no_detail,
                        help="leave the detail of waitingFor and ended out (also: AGENTSTATUS_NO_DETAIL=1)")
        ap.parse_args(namespace=args)
    return args


def main():
    args = parse_args()
    home = args.config_home or os.environ.get("GENTLE_PI_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".pi", "gentle-ai")
    session = args.session if args.session is not None else ""
    why = None if PUBLISHED_ONLY else sp.valid_session(session)
    if why:
        print("status_publisher.py: invalid session id: %s" % why, file=sys.stderr)
        return 2
    pub = Publisher(home, session, args.agent)
    pub.no_detail = args.no_detail
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    out = sys.stdout
    try:
        with pub.lock:
            pub.publish_unstopped()  # W1: at once
            pub.first = (pub.state, pub.title)  # what heartbeat-stale-copy writes back
        threading.Thread(target=pub.heartbeat, daemon=True).start()
        stdin = sys.stdin.buffer
        while True:
            line = stdin.readline()
            if not line:
                break
            pub.last_input = time.monotonic()
            if not line.strip(b" \t\r\n"):
                continue  # W3: blank lines get no answer
            err = pub.apply(line)
            out.write('{"ok":true}\n' if err is None else json.dumps({"ok": False, "error": err}) + "\n")
            out.flush()
    except (Stop, BrokenPipeError):
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        pub.stop.set()
        with pub.lock:
            pub.remove()
    return 0


if __name__ == "__main__":
    sys.exit(main())
