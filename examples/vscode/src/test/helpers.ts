// Helpers shared by the tests: temporary status directories, records, and
// a clock the tests move by hand.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after } from "node:test";
import { Clock } from "../tracker";
import { fileName, formatTime } from "../protocol";

/** statusDir makes a private config home and returns its status directory. */
export function statusDir(): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "agentstatus-vscode-"));
  after(() => fs.rmSync(home, { recursive: true, force: true }));
  const dir = path.join(home, "agent-status");
  fs.mkdirSync(dir);
  fs.chmodSync(dir, 0o700); // whatever the umask
  return dir;
}

export interface RecordFields {
  session: string;
  state?: string;
  agent?: string | null;
  title?: string | null;
  cwd?: string | null;
  pid?: number;
  updatedAt: bigint;
  extra?: { [k: string]: unknown };
}

/** write publishes a record as a publisher would (E1 order, mode 0600). */
export function write(dir: string, r: RecordFields): string {
  const rec = {
    schema: "gentle-shell.agent-status/v1",
    agent: r.agent === undefined ? "claude-code" : r.agent,
    session: r.session,
    pid: r.pid ?? 4242,
    cwd: r.cwd === undefined ? "/work/project" : r.cwd,
    state: r.state ?? "working",
    task: r.title ? { title: r.title } : null,
    updatedAt: formatTime(r.updatedAt),
    ...r.extra,
  };
  const name = fileName(r.session);
  const tmp = path.join(dir, "." + name + ".tmp");
  fs.writeFileSync(tmp, JSON.stringify(rec) + "\n", { mode: 0o600 });
  fs.renameSync(tmp, path.join(dir, name));
  return name;
}

export const SEC = 1_000_000_000n;

/** A clock the test moves: timers run when advance passes their time. */
export class FakeClock implements Clock {
  timers: { fn: () => void; at: bigint; ms: number }[] = [];
  constructor(public t: bigint) {}
  now(): bigint {
    return this.t;
  }
  setTimer(fn: () => void, ms: number): unknown {
    const timer = { fn, at: this.t + BigInt(ms) * 1_000_000n, ms };
    this.timers.push(timer);
    return timer;
  }
  clearTimer(h: unknown): void {
    this.timers = this.timers.filter((t) => t !== h);
  }
  /** next is when the earliest timer fires, or null. */
  next(): bigint | null {
    return this.timers.reduce<bigint | null>((m, t) => (m === null || t.at < m ? t.at : m), null);
  }
  /** advanceTo moves the clock and runs the timers that are due. */
  advanceTo(t: bigint): void {
    this.t = t;
    const due = this.timers.filter((x) => x.at <= t);
    this.timers = this.timers.filter((x) => x.at > t);
    for (const x of due) x.fn();
  }
}
