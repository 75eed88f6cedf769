#!/usr/bin/env python3
"""acp_bridge.py: a bridge of SPEC.md section 13.5, in Python, for
statusconform acp. It runs the agent given after "--", copies every byte
both ways unchanged, and publishes one record per ACP session ("acp:" and
its id) into $GENTLE_PI_CONFIG_HOME (or --config-home DIR), through the
Publisher of status_publisher.py.

    python3 acp_bridge.py [--config-home DIR] -- CMD [ARGS...]

STATUSPROTO_FLAW=<flaw> breaks it on purpose (conformance/README.md):
answer-keeps-blocked, error-is-done, bare-session-id, close-keeps-records.
"""
import json
import os
import signal
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import statusproto as sp  # noqa: E402
import status_publisher as spub  # noqa: E402

FLAW = sp.FLAW
MAX_PARSE = 1 << 20


class Bridge:
    def __init__(self, home, agent):
        self.home, self.agent = home, agent
        self.lock = threading.Lock()
        self.from_editor, self.from_agent = {}, {}  # pending requests by id
        self.sessions = {}  # ACP id -> dict
        self.pubs = {}  # ACP id -> Publisher
        self.closed = False

    def session(self, sid, create=True):
        if sid in self.sessions or not create or not isinstance(sid, str) or not sid:
            return self.sessions.get(sid)
        name = sid if FLAW == "bare-session-id" else "acp:" + sid
        if sp.valid_session(name) is not None:
            return None
        s = {"name": name, "state": "idle", "title": "", "cwd": "", "why": {},
             "turn": False, "cancelled": False, "waits": [], "titled": False}
        self.sessions[sid] = s
        return s

    def publish(self, sid):
        s = self.sessions[sid]
        if self.closed:
            return
        p = self.pubs.get(sid)
        if p is None:
            p = spub.Publisher(self.home, s["name"], self.agent)
            p.pid = os.getpid()
            self.pubs[sid] = p
            threading.Thread(target=p.heartbeat, daemon=True).start()
        with p.lock:
            p.state, p.title, p.why = s["state"], s["title"], dict(s["why"])
            if s["cwd"]:
                p.cwd = s["cwd"]
            p.publish()

    def end_turn(self, s, stop, error=None):
        s["turn"], s["waits"], s["state"] = False, [], "idle"
        now = sp.format_time_ns(__import__("time").time_ns())
        if s["cancelled"] or stop == "cancelled":
            end = {"reason": "cancelled", "detail": None}
        elif error is not None:
            msg = str(error.get("message", "")).strip().splitlines()
            end = {"reason": "done" if FLAW == "error-is-done" else "failed", "detail": msg[0] if msg else None}
            text = (str(error.get("message", "")) + " " + json.dumps(error.get("data"))).lower()
            if error.get("code") == 429 or any(w in text for w in ("rate limit", "rate_limit", "quota", "resource_exhausted", "too many requests", " 429")):
                end["reason"] = "rate_limited"
        elif stop == "end_turn":
            end = {"reason": "done", "detail": None}
        elif stop:
            end = {"reason": "failed", "detail": stop}
        else:
            end = None
        s["cancelled"] = False
        s["why"] = {"ended": dict(end, at=now)} if end else {}

    def observe(self, from_editor, line):
        try:
            m = json.loads(line.decode("utf-8"))
        except ValueError:
            return
        for msg in (m if isinstance(m, list) else [m]):
            if isinstance(msg, dict):
                with self.lock:
                    sid = self.message(from_editor, msg)
                    if sid is not None and sid in self.sessions:
                        self.publish(sid)

    def message(self, from_editor, m):
        """Apply one message; return the ACP id of the session it changed."""
        mid, method = m.get("id"), m.get("method")
        key = json.dumps(mid) if mid is not None else None
        params = m.get("params") if isinstance(m.get("params"), dict) else {}
        sid = params.get("sessionId")
        if method and key and from_editor:
            if method in ("session/new", "session/load", "session/resume", "session/fork", "session/close", "session/delete"):
                self.from_editor[key] = (method, sid, params.get("cwd"))
            elif method == "initialize":
                self.from_editor[key] = (method, None, None)
            elif method == "session/prompt":
                self.from_editor[key] = (method, sid, None)
                s = self.session(sid)
                if s is None:
                    return None
                s.update(turn=True, cancelled=False, waits=[], state="working", why={})
                if not s["titled"] and not s["title"]:
                    for b in params.get("prompt") or []:
                        if isinstance(b, dict) and b.get("type") == "text":
                            lines = [x.strip() for x in str(b.get("text", "")).splitlines() if x.strip()]
                            if lines:
                                s["title"] = lines[0]
                                break
                return sid
            return None
        if method and key:  # the agent asks
            if method == "session/request_permission":
                tc = params.get("toolCall") or {}
                w = {"kind": "permission", "tool": tc.get("kind"), "detail": tc.get("title") or params.get("title")}
            elif method == "elicitation/create":
                w = {"kind": "question", "tool": None, "detail": params.get("message")}
            else:
                return None
            s = self.session(sid)
            if s is None:
                return None
            w["since"] = sp.format_time_ns(__import__("time").time_ns())
            self.from_agent[key] = (sid, w)
            s["waits"].append(key)
            s["state"], s["why"] = "blocked", {"waitingFor": w}
            return sid
        if method:
            if from_editor and method == "session/cancel":
                s = self.session(sid, False)
                if s and s["turn"]:
                    s["cancelled"] = True
            elif not from_editor and method == "session/update":
                u = params.get("update") if isinstance(params.get("update"), dict) else {}
                kind = u.get("sessionUpdate")
                if kind == "session_info_update" and "title" in u:
                    s = self.session(sid)
                    if s is None:
                        return None
                    s["titled"], s["title"] = True, u.get("title") or ""
                    return sid
                if kind == "state_update":
                    s = self.session(sid)
                    if s is None:
                        return None
                    s["states"] = True
                    st = u.get("state")
                    if st == "running":
                        s.update(turn=True, state="working", why={})
                    elif st == "requires_action":
                        s.update(state="blocked", why={})
                    elif st == "idle":
                        self.end_turn(s, u.get("stopReason"))
                    else:
                        return None
                    return sid
            return None
        if key is None or ("result" not in m and "error" not in m):
            return None
        if from_editor:  # the editor answers the agent
            if key not in self.from_agent:
                return None
            sid, _ = self.from_agent.pop(key)
            s = self.session(sid, False)
            if not s or key not in s["waits"]:
                return None
            s["waits"].remove(key)
            if s["state"] != "blocked" or FLAW == "answer-keeps-blocked":
                return None
            if s["waits"]:
                s["why"] = {"waitingFor": self.from_agent[s["waits"][-1]][1]}
            else:
                s["state"], s["why"] = "working", {}
            return sid
        if key not in self.from_editor:
            return None
        method, rsid, cwd = self.from_editor.pop(key)
        result = m.get("result") if isinstance(m.get("result"), dict) else {}
        if method == "initialize":
            self.version = result.get("protocolVersion")
        elif method in ("session/new", "session/fork", "session/load", "session/resume"):
            if "error" in m:
                return None
            sid = result.get("sessionId") if method in ("session/new", "session/fork") else rsid
            s = self.session(sid)
            if s is None:
                return None
            s.update(turn=False, cancelled=False, waits=[], state="idle", why={})
            if cwd:
                s["cwd"] = cwd
            return sid
        elif method in ("session/close", "session/delete"):
            s = self.session(rsid, False)
            if s and "error" not in m:
                del self.sessions[rsid]
                p = self.pubs.pop(rsid, None)
                if p:
                    p.stop.set()
                    p.remove()
        elif method == "session/prompt":
            s = self.session(rsid, False)
            if not s or not s["turn"]:
                return None
            if isinstance(m.get("error"), dict):
                self.end_turn(s, None, m["error"])
            elif "stopReason" in result:
                self.end_turn(s, result["stopReason"])
            elif (getattr(self, "version", None) or 1) >= 2 or s.get("states"):
                return None
            else:
                self.end_turn(s, None)
            return rsid
        return None

    def close(self):
        with self.lock:
            if FLAW == "close-keeps-records":
                return
            self.closed = True
            for p in self.pubs.values():
                p.stop.set()
                with p.lock:
                    p.remove()


def pump(src, dst, bridge, from_editor, on_end):
    cur, over = b"", False
    while True:
        try:
            chunk = os.read(src, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            break
        parts = chunk.split(b"\n")
        for i, part in enumerate(parts[:-1]):
            if not over and len(cur) + len(part) <= MAX_PARSE:
                bridge.observe(from_editor, cur + part)
            cur, over = b"", False
        last = parts[-1]
        if len(cur) + len(last) > MAX_PARSE:
            cur, over = b"", True
        elif not over:
            cur += last
        try:
            view = memoryview(chunk)
            while view:
                n = os.write(dst, view)
                view = view[n:]
        except OSError:
            break
    on_end()


def main():
    args = sys.argv[1:]
    home = os.environ.get("GENTLE_PI_CONFIG_HOME", "")
    if args[:1] == ["--config-home"]:
        home, args = args[1], args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args or not home:
        print("usage: acp_bridge.py [--config-home DIR] -- CMD [ARGS...]", file=sys.stderr)
        return 2
    agent = os.path.basename(args[0])
    try:
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    except OSError as e:
        print("acp_bridge.py: %s" % e, file=sys.stderr)
        return 127
    bridge = Bridge(home, agent)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda n, f: proc.send_signal(n))

    def editor_closed():
        try:
            proc.stdin.close()
        except OSError:
            pass
        bridge.close()

    threading.Thread(target=pump, args=(0, proc.stdin.fileno(), bridge, True, editor_closed), daemon=True).start()
    out = threading.Thread(target=pump, args=(proc.stdout.fileno(), 1, bridge, False, lambda: None), daemon=True)
    out.start()
    code = proc.wait()
    out.join(2)
    bridge.close()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
