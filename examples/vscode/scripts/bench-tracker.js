#!/usr/bin/env node
// The extension's own share of a change with many sessions: Tracker (what
// the extension runs on each file event) against a temporary directory of
// N records, without VS Code. Run after `npm run compile`:
//
//   node scripts/bench-tracker.js [N]
//   OUT=/tmp/old-out node scripts/bench-tracker.js [N]
//
// Prints the time to read a burst of N new records, then the median and
// the maximum time of one change (one file read, the freshness of all
// judged, the report made) over 41 changes.

"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
// OUT=DIR: another build's out/ (e.g. an older commit's), side by side.
const out = path.resolve(process.env.OUT ?? path.join(__dirname, "..", "out"));
const { Tracker } = require(path.join(out, "tracker.js"));
const { fileName, formatTime, nowNs } = require(path.join(out, "protocol.js"));

const n = Number(process.argv[2] ?? 1000);
const home = fs.mkdtempSync(path.join(os.tmpdir(), "agentstatus-bench-"));
const dir = path.join(home, "agent-status");
fs.mkdirSync(dir, { mode: 0o700 });
fs.chmodSync(dir, 0o700);

function write(session, state) {
  const name = fileName(session);
  const rec = { schema: "gentle-shell.agent-status/v1", agent: "load", session, pid: process.pid, cwd: "/work", state, task: { title: `session ${session}` }, updatedAt: formatTime(nowNs()) };
  fs.writeFileSync(path.join(dir, "." + name), JSON.stringify(rec), { mode: 0o600 });
  fs.renameSync(path.join(dir, "." + name), path.join(dir, name));
  return name;
}

(async () => {
  const t = new Tracker(dir, () => {});
  await t.relist();
  const names = [];
  for (let i = 0; i < n; i++) names.push(write(`s${i}`, "working"));
  let t0 = performance.now();
  for (const name of names) void t.changed(name);
  await t.idle();
  console.log(`burst: ${n} records read in ${(performance.now() - t0).toFixed(0)} ms (${t.sessions().length} shown)`);
  const times = [];
  for (let i = 0; i < 41; i++) {
    const name = write(`s${(i * 7) % n}`, i % 2 ? "working" : "blocked");
    t0 = performance.now();
    await t.changed(name);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`one change with ${n} sessions: median ${times[20].toFixed(2)} ms, max ${times[40].toFixed(2)} ms (41 changes); load average ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
  t.dispose();
  fs.rmSync(home, { recursive: true, force: true });
})();
