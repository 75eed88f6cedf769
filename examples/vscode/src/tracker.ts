// Tracker follows a status directory as SPEC.md §8.1 says: a change
// notification is only a hint to read a name again (R15, R16); freshness
// is judged again at each record's next boundary by one timer, not by
// polling (R17); a directory event, or anything that says notifications
// may have been lost, lists the directory again and reports the
// differences (R18, R19). No vscode import: the extension feeds it the
// FileSystemWatcher's events, the tests feed it theirs and a fake clock.

import { Entry, list, nextBoundary, readOne, Refused, StatusRecord, View, isFresh, nowNs, view } from "./protocol";

/** The clock and timer Tracker uses; the tests pass a fake one. */
export interface Clock {
  now(): bigint;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const realClock: Clock = {
  now: nowNs,
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** A shown session changed: before or after is null when it was or is not shown. */
export interface Transition {
  name: string;
  before: View | null;
  after: View | null;
}

/** What a change report holds. */
export interface Report {
  transitions: Transition[];
  /** The first listing: what was there before the tracker started. */
  initial: boolean;
  /** The directory is refused (R2), or could not be read: why. */
  error: string | null;
}

// setTimeout takes at most 2^31 − 1 ms; a later boundary is looked at again then.
const MAX_DELAY_MS = 2 ** 31 - 1;

export class Tracker {
  // Each record with its view, made once per read: a listing judges only
  // freshness again, so a change costs O(n) comparisons, not n sanitizings.
  private records = new Map<string, { record: StatusRecord; view: View }>();
  private shown = new Map<string, View>();
  private error: string | null = null;
  private listed = false;
  private chain: Promise<void> = Promise.resolve();
  private relistQueued = false;
  private queuedNames = new Set<string>();
  private timer: unknown = undefined;
  private disposed = false;

  constructor(
    readonly dir: string,
    private readonly onReport: (r: Report) => void,
    private readonly clock: Clock = realClock,
    private readonly reader = { list, readOne },
  ) {}

  /** sessions returns the fresh sessions, in file-name order. */
  sessions(): View[] {
    return [...this.shown.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
  }

  /** lastError is why the directory is refused, or null. */
  lastError(): string | null {
    return this.error;
  }

  /** relist lists the directory again (at start, on a directory event, when asked). */
  relist(): Promise<void> {
    if (this.relistQueued) return this.chain;
    this.relistQueued = true;
    return this.enqueue(() => this.listNow());
  }

  private async listNow(): Promise<void> {
    this.relistQueued = false;
    this.queuedNames.clear(); // the listing reads them too
    const now = this.clock.now();
    let entries: Entry[];
    try {
      entries = await this.reader.list(this.dir, now);
      this.error = null;
    } catch (e) {
      entries = [];
      this.error = e instanceof Error ? e.message : String(e);
    }
    this.records.clear();
    for (const e of entries) if (e.verdict !== "invalid") this.keep(e.name, e.record);
    const initial = !this.listed;
    this.listed = true;
    this.settle(now, initial);
  }

  /** changed reads one status name again after a file event about it. */
  changed(name: string): Promise<void> {
    if (this.relistQueued || this.queuedNames.has(name)) return this.chain;
    this.queuedNames.add(name);
    return this.enqueue(async () => {
      if (!this.queuedNames.delete(name)) return; // a listing read it meanwhile
      const now = this.clock.now();
      let e: Entry | null;
      try {
        e = await this.reader.readOne(this.dir, name, now);
      } catch (err) {
        if (!(err instanceof Refused)) throw err;
        await this.listNow(); // the directory changed under us: list it again
        return;
      }
      if (e && e.verdict !== "invalid") this.keep(name, e.record);
      else this.records.delete(name);
      this.settle(now, false);
    });
  }

  /** idle resolves once every queued read is done (for tests). */
  idle(): Promise<void> {
    return this.chain;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
  }

  private enqueue(fn: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(() => (this.disposed ? undefined : fn())).catch((e) => {
      this.error = e instanceof Error ? e.message : String(e);
    });
    return this.chain;
  }

  /** keep stores a record read from name, with its view. */
  private keep(name: string, record: StatusRecord): void {
    this.records.set(name, { record, view: view(record) });
  }

  /** settle judges every record at now, reports what changed, and arms the timer. */
  private settle(now: bigint, initial: boolean): void {
    const next = new Map<string, View>();
    for (const [name, r] of this.records) {
      if (isFresh(r.record.updatedAt, now)) next.set(name, r.view);
    }
    const transitions: Transition[] = [];
    for (const [name, before] of this.shown) {
      const after = next.get(name) ?? null;
      if (!after || (after !== before && !same(before, after))) transitions.push({ name, before, after });
    }
    for (const [name, after] of next) {
      if (!this.shown.has(name)) transitions.push({ name, before: null, after });
    }
    this.shown = next;
    this.arm(now);
    if (transitions.length > 0 || initial || this.error !== null) {
      transitions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      this.onReport({ transitions, initial, error: this.error });
    }
  }

  /** arm sets one timer at the earliest freshness boundary (R17). */
  private arm(now: bigint): void {
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    let first: bigint | null = null;
    for (const r of this.records.values()) {
      const b = nextBoundary(r.record.updatedAt, now);
      if (b !== null && (first === null || b < first)) first = b;
    }
    if (first === null || this.disposed) return;
    const ns = first - now;
    const ms = Math.min(MAX_DELAY_MS, Number((ns + 999_999n) / 1_000_000n));
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      this.enqueue(async () => this.settle(this.clock.now(), false));
    }, ms);
  }
}

/** same reports whether two views show the same thing (updatedAt aside: a heartbeat is no change). */
function same(a: View, b: View): boolean {
  const strip = (v: View) => JSON.stringify({ ...v, updatedAt: undefined });
  return strip(a) === strip(b);
}

/**
 * startsWaiting reports whether a transition is a session that starts
 * waiting for the user: blocked now, and before not shown, not blocked, or
 * blocked on something else (another waitingFor).
 */
export function startsWaiting(t: Transition): boolean {
  if (!t.after || t.after.state !== "blocked") return false;
  if (!t.before || t.before.state !== "blocked") return true;
  return JSON.stringify(t.before.waitingFor) !== JSON.stringify(t.after.waitingFor);
}
