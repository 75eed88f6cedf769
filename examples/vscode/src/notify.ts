// The notification policy, in the words of `statusls watch`'s --on,
// --after and --cooldown: notify each time a session enters one of the
// chosen states (appears in it, changes to it, or comes back fresh in it;
// for blocked, also when it starts waiting on something else), not again
// while it stays there; with a delay, only once it has stayed there that
// long, counted from waitingFor.since (blocked) or ended.at (idle) when
// the record has them, else from when it was seen entering; a session that
// leaves the state, goes stale or is removed before then cancels it; at
// most once per session per cooldown. Sessions already there when the
// extension starts are shown, not announced. No vscode import: the tests
// drive it with a fake clock.

import { parseTime, View } from "./protocol";
import { Clock, Report, Transition } from "./tracker";

/** Policy is the notification settings, as read from the configuration. */
export interface Policy {
  /** The states that notify: blocked, working, idle (others by name). */
  on: string[];
  /** Notify only once the session has stayed in the state this long. */
  afterMs: number;
  /** At most one notification per session per this long. */
  cooldownMs: number;
}

export const DEFAULT_POLICY: Policy = { on: ["blocked"], afterMs: 0, cooldownMs: 0 };

/**
 * parseDuration reads a duration as statusls's flags take it (Go's
 * time.ParseDuration without signs: "30s", "1m30s", "500ms", "2h", "0")
 * and returns milliseconds, or null when it is not one.
 */
export function parseDuration(s: string): number | null {
  const t = s.trim();
  if (t === "0") return 0;
  const unit: { [u: string]: number } = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/y;
  let ms = 0;
  let i = 0;
  while (i < t.length) {
    re.lastIndex = i;
    const m = re.exec(t);
    if (!m) return null;
    ms += parseFloat(m[1]) * unit[m[2]];
    i = re.lastIndex;
  }
  return i === 0 ? null : Math.round(ms);
}

/** entered is when the session entered its state, as the record says, in ms since the epoch, or null. */
function entered(v: View): number | null {
  const s = v.state === "blocked" ? v.waitingFor?.since : v.state === "idle" ? v.ended?.at : null;
  if (!s) return null;
  const ns = parseTime(s);
  return ns === null ? null : Number(ns / 1_000_000n);
}

/** enters reports whether a transition is a session entering its (new) state. */
export function enters(t: Transition): boolean {
  if (!t.after) return false;
  if (!t.before || t.before.state !== t.after.state) return true;
  // Blocked on something else is a new wait.
  return t.after.state === "blocked" && JSON.stringify(t.before.waitingFor) !== JSON.stringify(t.after.waitingFor);
}

interface Pending {
  timer: unknown;
  state: string;
}

/**
 * Notifier turns the tracker's reports into notifications under a policy.
 * notify is called with the session's view at the time it fires.
 */
export class Notifier {
  private pending = new Map<string, Pending>();
  private last = new Map<string, number>();

  constructor(
    private policy: Policy,
    private readonly clock: Clock,
    private readonly notify: (v: View) => void,
  ) {}

  setPolicy(p: Policy): void {
    this.policy = p;
  }

  report(r: Report): void {
    for (const t of r.transitions) {
      const p = this.pending.get(t.name);
      // Left the state, went stale or was removed: a delayed one is off.
      if (p && (!t.after || t.after.state !== p.state || enters(t))) this.cancel(t.name);
      if (!t.after) this.last.delete(t.name);
      if (r.initial || !t.after || !enters(t) || !this.policy.on.includes(t.after.state)) continue;
      this.schedule(t.name, t.after);
    }
  }

  private schedule(name: string, v: View): void {
    const now = Number(this.clock.now() / 1_000_000n);
    const since = entered(v) ?? now;
    const wait = Math.max(0, since + this.policy.afterMs - now);
    const fire = () => {
      this.pending.delete(name);
      const at = Number(this.clock.now() / 1_000_000n);
      const prev = this.last.get(name);
      if (prev !== undefined && this.policy.cooldownMs > 0 && at - prev < this.policy.cooldownMs) return;
      this.last.set(name, at);
      this.notify(v);
    };
    if (wait === 0) {
      fire();
      return;
    }
    this.pending.set(name, { state: v.state, timer: this.clock.setTimer(fire, wait) });
  }

  private cancel(name: string): void {
    const p = this.pending.get(name);
    if (!p) return;
    this.clock.clearTimer(p.timer);
    this.pending.delete(name);
  }

  dispose(): void {
    for (const name of [...this.pending.keys()]) this.cancel(name);
  }
}
