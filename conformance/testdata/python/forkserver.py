"""A fork server for the suite's own tests (reader_test.go): a Python script
run as many times as there are cases, each in a process of its own, without
an interpreter start and the script's imports per case.

Usage: python3 forkserver.py SCRIPT SOCKET. It compiles SCRIPT and runs it
once under another name than __main__, which imports what it imports; then
prints "ready" and, for each connection to the Unix socket SOCKET, forks.
The child is the script's run: it takes the client's standard input,
output and error (passed with the message, SCM_RIGHTS), its environment,
arguments and working directory, runs SCRIPT as __main__, sends its exit
status as a line and exits with it. The server stops at the end of its
standard input.

What differs from "python3 SCRIPT": the interpreter and the standard
library's modules were set up before the environment was the client's. The
modules of SCRIPT's own directory are imported afresh in each run, under the
client's environment (statusproto reads STATUSPROTO_FLAW when imported).
"""

import array
import json
import os
import select
import signal
import socket
import sys
import traceback


def run(code, script):
    """Runs code as the script's __main__ and returns the exit status python3
    would have exited with."""
    g = {"__name__": "__main__", "__file__": script, "__builtins__": __builtins__}
    try:
        exec(code, g)
        return 0
    except SystemExit as e:
        if e.code is None:
            return 0
        if isinstance(e.code, int):
            return e.code & 0xFF
        print(e.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    finally:
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except Exception:
                pass


def recv_fds(sock, bufsize, maxfds):
    """socket.recv_fds, which Python 3.8 (the adapters' oldest) lacks."""
    fds = array.array("i")
    msg, ancdata, _, _ = sock.recvmsg(bufsize, socket.CMSG_LEN(maxfds * fds.itemsize))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
    return msg, list(fds)


def child(conn, code, script):
    msg, fds = recv_fds(conn, 1 << 20, 3)
    req = json.loads(msg)
    for i, fd in enumerate(fds):
        os.dup2(fd, i)
        os.close(fd)
    os.environ.clear()
    os.environ.update(req["env"])
    for name, m in list(sys.modules.items()):
        if os.path.dirname(os.path.abspath(getattr(m, "__file__", None) or "/")) == sys.path[0]:
            del sys.modules[name]
    os.chdir(req["cwd"])
    sys.argv = [script] + req["args"]
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.alarm(120)  # a run that hangs does not outlive the tests for long
    status = run(code, script)
    conn.sendall(b"%d\n" % status)
    os._exit(status)


def main():
    script, path = sys.argv[1], sys.argv[2]
    with open(script, "rb") as f:
        code = compile(f.read(), script, "exec")
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    exec(code, {"__name__": "__forkserver__", "__file__": script, "__builtins__": __builtins__})
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(64)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reap themselves
    print("ready", flush=True)
    while True:
        ready, _, _ = select.select([srv, sys.stdin], [], [])
        if sys.stdin in ready and not os.read(sys.stdin.fileno(), 512):
            return 0
        if srv in ready:
            conn, _ = srv.accept()
            if os.fork() == 0:
                srv.close()
                try:
                    child(conn, code, script)
                finally:
                    os._exit(70)
            conn.close()


if __name__ == "__main__":
    sys.exit(main())
