import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileName, parseTime, STALE_AFTER_NS } from "../protocol";
import { Report, startsWaiting, Tracker } from "../tracker";
import { FakeClock, SEC, statusDir, write } from "./helpers";

const t0 = parseTime("2026-07-17T12:35:00.000Z")!;

function track(dir: string, clock: FakeClock) {
  const reports: Report[] = [];
  const tracker = new Tracker(dir, (r) => reports.push(r), clock);
  return { tracker, reports, shown: () => tracker.sessions().map((v) => `${v.session} ${v.state}`) };
}

test("one timer, at the exact instant the next record goes stale", async () => {
  const dir = statusDir();
  const clock = new FakeClock(t0);
  write(dir, { session: "a", updatedAt: t0 - 10n * SEC });
  write(dir, { session: "b", updatedAt: t0 - 20n * SEC });
  const { tracker, reports, shown } = track(dir, clock);
  await tracker.relist();
  assert.deepEqual(shown(), ["a working", "b working"].sort((x, y) => (fileName(x[0]) < fileName(y[0]) ? -1 : 1)));
  assert.equal(reports.length, 1);
  assert.ok(reports[0].initial);
  // b is stale just after t0 − 20 s + 30 s: 10 s from now, to the millisecond.
  assert.equal(clock.timers.length, 1, "one timer, not one per record");
  assert.equal(clock.timers[0].ms, 10_001);
  clock.advanceTo(t0 + 10n * SEC); // exactly 30 s old: still fresh, no timer yet
  assert.equal(clock.timers.length, 1);
  clock.advanceTo(clock.next()!);
  await tracker.idle();
  assert.deepEqual(shown(), ["a working"]);
  assert.equal(reports.at(-1)!.transitions.length, 1);
  assert.equal(reports.at(-1)!.transitions[0].after, null);
  // Then a's boundary, and then no timer at all: nothing can change without a file event.
  assert.equal(clock.next(), t0 - 10n * SEC + STALE_AFTER_NS + 1_000_000n);
  clock.advanceTo(clock.next()!);
  await tracker.idle();
  assert.deepEqual(shown(), []);
  assert.equal(clock.timers.length, 0);
  tracker.dispose();
});

test("a record from the future is shown when it comes within 30 s", async () => {
  const dir = statusDir();
  const clock = new FakeClock(t0);
  write(dir, { session: "f", updatedAt: t0 + 45n * SEC });
  const { tracker, shown } = track(dir, clock);
  await tracker.relist();
  assert.deepEqual(shown(), []);
  assert.equal(clock.timers[0].ms, 15_000);
  clock.advanceTo(clock.next()!);
  await tracker.idle();
  assert.deepEqual(shown(), ["f working"]);
  tracker.dispose();
});

test("a file event reads that name again; a heartbeat is no change", async () => {
  const dir = statusDir();
  const clock = new FakeClock(t0);
  const name = write(dir, { session: "a", updatedAt: t0 });
  const { tracker, reports, shown } = track(dir, clock);
  await tracker.relist();
  clock.t = t0 + 9n * SEC;
  write(dir, { session: "a", updatedAt: clock.t });
  await tracker.changed(name);
  assert.equal(reports.length, 1, "a heartbeat moves no row");
  assert.equal(clock.timers[0].ms, 30_001, "but moves the timer");
  write(dir, { session: "a", state: "blocked", updatedAt: clock.t, extra: { waitingFor: { kind: "permission", tool: "Bash", detail: "rm -rf build", since: "2026-07-17T12:35:09.000Z" } } });
  await tracker.changed(name);
  const tr = reports.at(-1)!.transitions;
  assert.equal(tr.length, 1);
  assert.ok(startsWaiting(tr[0]));
  assert.deepEqual(shown(), ["a blocked"]);
  fs.unlinkSync(path.join(dir, name));
  await tracker.changed(name);
  assert.deepEqual(shown(), []);
  await tracker.changed("not-a-status-name.json");
  tracker.dispose();
});

test("a refused directory shows nothing, and says why", async () => {
  if (process.platform === "win32") return;
  const dir = statusDir();
  const clock = new FakeClock(t0);
  const name = write(dir, { session: "a", updatedAt: t0 });
  const { tracker, reports, shown } = track(dir, clock);
  await tracker.relist();
  fs.chmodSync(dir, 0o777);
  await tracker.changed(name);
  assert.deepEqual(shown(), []);
  assert.match(reports.at(-1)!.error ?? "", /writable by group or others/);
  fs.chmodSync(dir, 0o700);
  await tracker.relist();
  assert.deepEqual(shown(), ["a working"]);
  assert.equal(reports.at(-1)!.error, null);
  tracker.dispose();
});

test("startsWaiting", () => {
  const v = (state: string, kind?: string) => ({
    session: "s", agent: null, state, pid: null, cwd: null, title: null, updatedAt: 0n, ended: null,
    waitingFor: kind ? { kind, tool: null, detail: null, since: null } : null,
  });
  const cases: [string, ReturnType<typeof v> | null, ReturnType<typeof v> | null, boolean][] = [
    ["new and blocked", null, v("blocked", "question"), true],
    ["working to blocked", v("working"), v("blocked"), true],
    ["blocked on something else", v("blocked", "question"), v("blocked", "permission"), true],
    ["still blocked on the same", v("blocked", "question"), v("blocked", "question"), false],
    ["blocked to working", v("blocked"), v("working"), false],
    ["gone", v("blocked"), null, false],
  ];
  for (const [name, before, after, want] of cases) assert.equal(startsWaiting({ name: "n", before, after }), want, name);
});
