// A line server for examples/vscode_test.go, which compares this port of
// the protocol logic with the Go toolkit's on the same bytes: each input
// line is {"op": "title"|"text"|"decode", "b64": bytes, "max": units}; each
// answer is one line of JSON. The bytes are decoded as a status file's are
// (UTF-8, U+FFFD per maximal subpart).

import * as readline from "node:readline";
import { decode, Invalid, sanitizeText, sanitizeTitle, splitNanos, view, why } from "../protocol";

const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

function answer(req: { op: string; b64: string; max?: number }): unknown {
  const bytes = Buffer.from(req.b64, "base64");
  switch (req.op) {
    case "title":
      return sanitizeTitle(utf8.decode(bytes), req.max);
    case "text":
      return sanitizeText(utf8.decode(bytes));
    case "decode":
      try {
        const r = decode(bytes);
        const [sec, nsec] = splitNanos(r.updatedAt);
        const v = view(r);
        const w = v.waitingFor;
        const e = v.ended;
        return {
          session: r.session, agent: r.agent ?? "", pid: r.pid, cwd: r.cwd ?? "", state: r.state,
          title: r.title ?? "", sec: String(sec), nsec: Number(nsec),
          waitingFor: w ? [w.kind, w.tool ?? "", w.detail ?? "", w.since ?? ""] : null,
          ended: e ? [e.reason, e.detail ?? "", e.at ?? ""] : null,
          why: why(v),
        };
      } catch (e) {
        if (e instanceof Invalid) return { reason: e.reason };
        throw e;
      }
  }
  throw new Error("unknown op " + req.op);
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  process.stdout.write(JSON.stringify(answer(JSON.parse(line))) + "\n");
});
