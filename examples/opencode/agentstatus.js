// agentstatus: an OpenCode plugin that publishes OpenCode's state as a
// gentle-shell.agent-status/v1 record (see SPEC.md in the agentstatus
// repository), for statusls, tmux, shell prompts and editors to show.
//
// Installed by `statuspub install opencode` into
// ~/.config/opencode/plugins/ (or .opencode/plugins/ with --project).
//
// A plugin lives as long as the OpenCode process, so it starts ONE
// `statuspub serve` child and speaks its line protocol (one JSON object per
// line, answered by {"ok":true}), rather than a process per event. The
// record is the OpenCode process's: session "opencode-<pid>", pid this
// process, so it disappears when OpenCode exits (the child sees end of
// input and removes it) or crashes. The child runs with --heartbeat-owner:
// a detached heartbeat owner, no process of OpenCode's tree, keeps the
// record fresh and removes it within a second of OpenCode's end, even when
// every process under the terminal is killed at once, the child with it
// (SPEC.md H3, H4, H14).
//
// One record per process: OpenCode loads the plugin once per project
// folder it serves (`opencode serve` with clients in several folders, each
// folder its own instance, seeing only its own events). Every instance in
// the process, and every copy of this file (global and --project), shares
// one state through globalThis: one list of sessions and one child, so the
// record is blocked if a session of ANY folder waits for the user. Separate
// children would each rewrite the record with their own folder's state at
// every heartbeat, and it would flap (OpenCode 1.18.33: `idle` most of the
// time while a permission prompt waited).
//
// Events (https://opencode.ai/docs/plugins/, "Events"):
//   session.status busy/retry        working
//   session.status idle, session.idle  idle, ended done
//   session.error                    idle, ended cancelled (MessageAbortedError:
//                                    the user's interrupt), rate_limited
//                                    (HTTP 429), else failed
//   permission.asked (.updated in
//     older versions), question.asked  blocked until replied or rejected,
//                                    waiting for the permission and its
//                                    patterns, or the question
//   session.updated                  the title of the session at work
//   session.deleted                  the session is forgotten
// Sessions with a parentID are subagents: they make their parent's work,
// not a session of their own. With several sessions, the record is blocked
// if any waits for an answer, else working if any works, else idle.
//
// $AGENTSTATUS_STATUSPUB names the statuspub program (default: statuspub
// from PATH). When it cannot be started the plugin stays silent.

import { spawn } from "node:child_process";

// The process's one publisher, shared by every instance and every copy of
// this plugin. The version in the key keeps a later, incompatible plugin
// from picking up this one's state.
const SHARED = Symbol.for("agentstatus.opencode.publisher.v1");

function publisher(directory) {
  const sessions = new Map(); // id -> { parent, busy, waits: Map, title, ended }
  let child = null;
  let dead = false;
  const sent = { state: "idle", title: null, why: null };

  const start = () => {
    if (child || dead) return child;
    const prog = process.env.AGENTSTATUS_STATUSPUB || "statuspub";
    const args = ["serve", "--session", `opencode-${process.pid}`, "--agent", "opencode",
      "--pid", String(process.pid), "--state", "idle", "--heartbeat-owner"];
    // The record's workspace is the first folder the process served.
    if (directory) args.push("--cwd", directory);
    try {
      child = spawn(prog, args, { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      dead = true;
      return null;
    }
    child.on("error", () => { dead = true; child = null; });
    child.on("exit", () => { dead = true; child = null; });
    child.stdin.on("error", () => {});
    child.stdout.resume(); // the answers: nothing to do with them
    // Let OpenCode exit without waiting for the child; the closed pipe
    // ends it, and it removes the record.
    child.unref();
    child.stdin.unref?.();
    child.stdout.unref?.();
    return child;
  };

  const send = (obj) => {
    const c = start();
    if (c) c.stdin.write(JSON.stringify(obj) + "\n");
  };

  const session = (id) => {
    if (!id) return null;
    let s = sessions.get(id);
    if (!s) {
      // waits: key -> {kind, tool, detail}, in the order asked;
      // ended: how its last turn ended, {reason, detail}.
      s = { parent: null, busy: false, waits: new Map(), title: null, ended: null };
      sessions.set(id, s);
    }
    return s;
  };

  // top returns the session a subagent works for.
  const top = (id) => {
    let s = sessions.get(id);
    for (let hops = 0; s && s.parent && hops < 16; hops++) {
      const p = sessions.get(s.parent);
      if (!p) break;
      id = s.parent;
      s = p;
    }
    return id;
  };

  const publish = () => {
    let state = "idle";
    let title = null;
    let titleRank = 0;
    let wait = null; // the first wait of the first session that waits
    let ended = null; // the last session's end, when all are idle
    for (const [id, s] of sessions) {
      if (s.parent) continue;
      let kids = false;
      let kidWait = null;
      for (const [kid, k] of sessions) {
        if (kid !== id && top(kid) === id) {
          kids = kids || k.busy;
          if (!kidWait && k.waits.size > 0) kidWait = k.waits.values().next().value;
        }
      }
      const own = s.waits.size > 0 ? s.waits.values().next().value : null;
      const rank = own || kidWait ? 2 : s.busy || kids ? 1 : 0;
      if (rank === 2) {
        state = "blocked";
        wait ??= own || kidWait;
      } else if (rank === 1 && state !== "blocked") state = "working";
      if (rank === 0 && s.ended) ended = s.ended;
      if (rank > titleRank && s.title) {
        title = s.title;
        titleRank = rank;
      }
    }
    // Why goes with the state: serve's waitingFor sets blocked, ended idle.
    const why = state === "blocked" && wait ? { waitingFor: wait }
      : state === "idle" && ended ? { ended } : null;
    const whyKey = why && JSON.stringify(why);
    if (why && whyKey !== sent.why) {
      send(why);
    } else if (state !== sent.state) {
      send({ state });
    }
    sent.state = state;
    sent.why = whyKey;
    if (title !== sent.title) {
      send({ title });
      sent.title = title;
    }
  };

  // idle ends the session's turn: nothing waits any more, and unless an
  // error said why it ended, it is done.
  const idle = (s) => {
    s.busy = false;
    s.waits.clear();
    s.ended ??= { reason: "done", detail: null };
  };

  // handle applies one event of any instance's folder; session ids are
  // unique across folders.
  const handle = (event) => {
    const p = (event && event.properties) || {};
    switch (event && event.type) {
      case "session.created":
      case "session.updated": {
        const info = p.info || {};
        const s = session(info.id);
        if (!s) return;
        s.parent = info.parentID || null;
        if (typeof info.title === "string" && info.title !== "") s.title = info.title;
        break;
      }
      case "session.deleted": {
        const info = p.info || {};
        sessions.delete(info.id);
        break;
      }
      case "session.status": {
        const s = session(p.sessionID);
        if (!s) return;
        const type = p.status && p.status.type;
        const busy = type === "busy" || type === "retry";
        if (busy && !s.busy) s.ended = null; // a turn begins
        s.busy = busy;
        if (type === "idle") idle(s);
        break;
      }
      case "session.idle": {
        const s = session(p.sessionID);
        if (!s) return;
        idle(s);
        break;
      }
      case "session.error": {
        // An error or an abort (the user's interrupt) ends the turn too.
        const s = session(p.sessionID);
        if (!s) return;
        s.busy = false;
        s.waits.clear();
        s.ended = turnError(p.error);
        break;
      }
      case "permission.asked":
      case "permission.updated": {
        const s = session(p.sessionID);
        if (!s) return;
        const patterns = Array.isArray(p.patterns) ? p.patterns.filter((x) => typeof x === "string") : [];
        s.waits.set(`permission:${p.id}`, {
          kind: "permission",
          tool: typeof p.permission === "string" ? p.permission : (typeof p.type === "string" ? p.type : null),
          detail: patterns.length ? patterns.join("; ") : (typeof p.title === "string" ? p.title : null),
        });
        break;
      }
      case "question.asked": {
        const s = session(p.sessionID);
        if (!s) return;
        const q = Array.isArray(p.questions) && p.questions[0];
        s.waits.set(`question:${p.id}`, {
          kind: "question",
          tool: null,
          detail: q && typeof q.question === "string" ? q.question : null,
        });
        break;
      }
      case "permission.replied":
      case "question.replied":
      case "question.rejected": {
        const s = session(p.sessionID);
        if (!s) return;
        const kind = event.type.split(".")[0];
        const id = p.requestID ?? p.permissionID ?? p.id;
        s.waits.delete(`${kind}:${id}`);
        break;
      }
      default:
        return;
    }
    publish();
  };

  start();
  return { handle };
}

// turnError is how a turn that session.error ended, ended: the user's
// interrupt (MessageAbortedError) is cancelled; an API error with HTTP 429
// is rate_limited; anything else failed, with the error's name and status.
function turnError(err) {
  const name = err && typeof err.name === "string" ? err.name : null;
  const status = err && err.data && typeof err.data.statusCode === "number" ? err.data.statusCode : null;
  if (name === "MessageAbortedError") return { reason: "cancelled", detail: null };
  if (status === 429) return { reason: "rate_limited", detail: name };
  return { reason: "failed", detail: [name, status].filter((x) => x != null).join(" ") || null };
}

export const AgentStatus = async ({ directory }) => {
  const pub = (globalThis[SHARED] ??= publisher(directory));
  return {
    event: async ({ event }) => pub.handle(event),
  };
};
