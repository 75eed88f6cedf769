// The notification policy (notify.ts) and the terminal lookup
// (terminal.ts), with a fake clock and a fake process table.

import { strict as assert } from "node:assert";
import { test } from "node:test";
import { Notifier, parseDuration, Policy } from "../notify";
import { formatTime, View } from "../protocol";
import { findShell } from "../terminal";
import { Report } from "../tracker";
import { FakeClock, SEC } from "./helpers";

test("parseDuration reads durations as statusls's flags do", () => {
  const cases: [string, number | null][] = [
    ["0", 0],
    ["0s", 0],
    ["30s", 30_000],
    ["500ms", 500],
    ["1m30s", 90_000],
    ["2h", 7_200_000],
    ["1.5s", 1500],
    [" 10s ", 10_000],
    ["", null],
    ["10", null],
    ["-1s", null],
    ["1d", null],
    ["s", null],
    ["10s junk", null],
  ];
  for (const [s, want] of cases) assert.equal(parseDuration(s), want, JSON.stringify(s));
});

const T0 = 1_800_000_000n * SEC;

function v(state: string, extra: Partial<View> = {}): View {
  return { session: "s", agent: "codex", state, pid: null, cwd: null, title: null, waitingFor: null, ended: null, updatedAt: T0, ...extra };
}

function setup(policy: Partial<Policy>) {
  const clock = new FakeClock(T0);
  const fired: string[] = [];
  const n = new Notifier({ on: ["blocked"], afterMs: 0, cooldownMs: 0, ...policy }, clock, (x) => fired.push(`${x.state}:${x.waitingFor?.detail ?? ""}`));
  const report = (before: View | null, after: View | null, initial = false) => {
    const r: Report = { transitions: [{ name: "n", before, after }], initial, error: null };
    n.report(r);
  };
  return { clock, fired, report, n };
}

test("notifies on entering a chosen state, once while it stays", () => {
  const { fired, report } = setup({});
  report(null, v("blocked"), true);
  assert.deepEqual(fired, [], "already blocked at start: shown, not announced");
  report(v("blocked"), v("working"));
  report(v("working"), v("blocked", { waitingFor: { kind: "question", tool: null, detail: "a", since: null } }));
  assert.deepEqual(fired, ["blocked:a"]);
  // The same wait, rewritten (a title change): no news.
  report(v("blocked", { waitingFor: { kind: "question", tool: null, detail: "a", since: null } }),
    v("blocked", { title: "x", waitingFor: { kind: "question", tool: null, detail: "a", since: null } }));
  // Blocked on something else: a new wait.
  report(v("blocked", { waitingFor: { kind: "question", tool: null, detail: "a", since: null } }),
    v("blocked", { waitingFor: { kind: "question", tool: null, detail: "b", since: null } }));
  assert.deepEqual(fired, ["blocked:a", "blocked:b"]);
});

test("notifyOn chooses the states; an empty list is silence", () => {
  const idle = setup({ on: ["idle"] });
  idle.report(v("working"), v("blocked"));
  idle.report(v("blocked"), v("idle"));
  assert.deepEqual(idle.fired, ["idle:"]);
  const none = setup({ on: [] });
  none.report(v("working"), v("blocked"));
  assert.deepEqual(none.fired, []);
});

test("notifyAfter waits from waitingFor.since, and a session that leaves cancels it", () => {
  const { clock, fired, report } = setup({ afterMs: 30_000 });
  // Waiting for 10 s already when seen: 20 s to go.
  const since = formatTime(T0 - 10n * SEC);
  const b = v("blocked", { waitingFor: { kind: "permission", tool: "Bash", detail: "make", since } });
  report(v("working"), b);
  assert.deepEqual(fired, []);
  assert.equal(clock.next(), T0 + 20n * SEC);
  clock.advanceTo(T0 + 20n * SEC);
  assert.deepEqual(fired, ["blocked:make"]);

  // Seen entering without a since: counted from then; approved before: nothing.
  report(b, v("working"));
  report(v("working"), v("blocked"));
  clock.advanceTo(T0 + 40n * SEC);
  report(v("blocked"), v("working"));
  clock.advanceTo(T0 + 60n * SEC);
  assert.deepEqual(fired, ["blocked:make"]);
  // Removed (or stale) before the delay: nothing either.
  report(v("working"), v("blocked"));
  report(v("blocked"), null);
  clock.advanceTo(T0 + 120n * SEC);
  assert.deepEqual(fired, ["blocked:make"]);
  assert.equal(clock.next(), null);
});

test("notifyCooldown skips a session's notifications that come sooner", () => {
  const { clock, fired, report } = setup({ cooldownMs: 60_000 });
  report(v("working"), v("blocked"));
  report(v("blocked"), v("working"));
  clock.advanceTo(T0 + 30n * SEC);
  report(v("working"), v("blocked"));
  assert.equal(fired.length, 1);
  report(v("blocked"), v("working"));
  clock.advanceTo(T0 + 61n * SEC);
  report(v("working"), v("blocked"));
  assert.equal(fired.length, 2);
});

test("findShell walks the agent's ancestors to a terminal's shell", async () => {
  // 1 ← 100 (shell A) ← 200 (agent) ← 300; 1 ← 400 (shell B); 500 ↔ 501 loop.
  const parents: { [pid: number]: number } = { 100: 1, 200: 100, 300: 200, 400: 1, 500: 501, 501: 500 };
  const parentOf = async (pid: number) => parents[pid] ?? null;
  const cases: [number | null, number[], number | null][] = [
    [200, [400, 100], 100],
    [300, [100], 100],
    [100, [100], 100],
    [200, [400], null],
    [500, [100], null],
    [null, [100], null],
    [999, [100], null],
    [200, [], null],
  ];
  for (const [pid, shells, want] of cases) assert.equal(await findShell(pid, shells, parentOf), want, `${pid} in ${shells}`);
});

test("procParent reads this process's parent from /proc", async (t) => {
  if (process.platform !== "linux") return t.skip("Linux only");
  const { procParent } = await import("../terminal");
  assert.equal(await procParent(process.pid), process.ppid);
  assert.equal(await findShell(process.pid, [process.ppid]), process.ppid);
});
