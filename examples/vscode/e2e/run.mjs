// The extension in a real VS Code: code-server serves VS Code to Debian's
// Chromium, which puppeteer-core drives; sessions are published with the
// real statuspub (and, for what a publisher never writes, raw files in the
// protocol's format). Every check is on the page's DOM, with a screenshot
// at each step. Run by .ci/vscode-real.sh, which installs what it needs:
//
//   CODE_SERVER=... STATUSPUB=... VSIX=... SHOTS=DIR node e2e/run.mjs
//
// Prints one line per check ("ok  ..." or "FAIL ..."), the measured
// figures ("figure ..."), and "N passed, N failed" last.

import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import puppeteer from "puppeteer-core";

const env = (name, fallback) => {
  const v = process.env[name] ?? fallback;
  if (v === undefined) throw new Error(`${name} is not set`);
  return v;
};
const CODE_SERVER = env("CODE_SERVER");
const STATUSPUB = env("STATUSPUB");
const VSIX = path.resolve(env("VSIX"));
const SHOTS = path.resolve(env("SHOTS", path.join(os.tmpdir(), "agentstatus-vscode-shots")));
const CHROMIUM = env("CHROMIUM", "/usr/bin/chromium");
// The limits the checks hold the editor to.
const FOLLOW_MS = 2000; // a change shows within 2 s
const PERF_MS = 200; // with 1,000 sessions, the target within 200 ms (reported)
const PERF_SESSIONS = 1000;

let passed = 0;
let failed = 0;
const figures = [];
function check(ok, what) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  return ok;
}
function figure(line) {
  figures.push(line);
  console.log(`figure ${line}`);
}

// ---------------------------------------------------------------- the machine

fs.mkdirSync(SHOTS, { recursive: true });
for (const f of fs.readdirSync(SHOTS)) if (f.endsWith(".png")) fs.rmSync(path.join(SHOTS, f));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agentstatus-vscode-"));
const HOME = path.join(tmp, "home");
const workspace = path.join(tmp, "workspace");
const userData = path.join(tmp, "user-data");
const extensions = path.join(tmp, "extensions");
// The default location, as statusls finds it without flags or variables.
const statusDir = path.join(HOME, ".pi", "gentle-ai", "agent-status");
for (const d of [HOME, workspace, path.join(userData, "User"), extensions]) fs.mkdirSync(d, { recursive: true, mode: 0o700 });
// The status directory exists, as after any earlier agent session: the
// watchers start on it. (Before the first session ever, VS Code's watcher
// waits for the directory to appear, which takes longer: not timed here.)
fs.mkdirSync(statusDir, { recursive: true, mode: 0o700 });
fs.chmodSync(statusDir, 0o700);
fs.writeFileSync(path.join(workspace, "README.md"), "# a workspace\n");
fs.writeFileSync(
  path.join(userData, "User", "settings.json"),
  JSON.stringify(
    {
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "workbench.enableExperiments": false,
      "workbench.secondarySideBar.defaultVisibility": "hidden",
      "telemetry.telemetryLevel": "off",
      "update.mode": "none",
      "extensions.autoUpdate": false,
      "extensions.autoCheckUpdates": false,
      "extensions.ignoreRecommendations": true,
      "security.workspace.trust.enabled": false,
      "chat.disableAIFeatures": true,
      "window.commandCenter": false,
      "workbench.colorTheme": "Default Dark Modern",
    },
    null,
    2,
  ),
);

// The environment of everything started here: a temporary HOME (code-server
// writes under ~/.config and ~/.local/share, Chromium under ~/.config), and
// none of the variables that would move the status directory.
const childEnv = {
  ...process.env,
  HOME,
  XDG_CONFIG_HOME: path.join(HOME, ".config"),
  XDG_DATA_HOME: path.join(HOME, ".local", "share"),
  // For the integrated terminal's shell (see terminal()).
  AGENTSTATUS_E2E_STATUSPUB: STATUSPUB,
  SHELL: "/bin/sh",
};
for (const k of ["STATUS_DIR", "GENTLE_PI_CONFIG_HOME", "XDG_RUNTIME_DIR", "VSCODE_IPC_HOOK_CLI"]) delete childEnv[k];

const cleanups = [];
let cleaned = false;
function cleanup() {
  if (cleaned) return;
  cleaned = true;
  for (const fn of cleanups.reverse()) {
    try {
      fn();
    } catch {
      // best effort: the rest still runs
    }
  }
}
process.on("exit", cleanup);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(1));

// The publishers' "agent": statuspub's heartbeat owners remove the records
// and exit when it does.
const agent = spawn("sleep", ["3600"], { stdio: "ignore" });
cleanups.push(() => agent.kill("SIGKILL"));

/** statuspub runs it for the test's agent and returns when its record was written (ms since the epoch). */
function statuspub(...args) {
  const t0 = Date.now();
  const r = spawnSync(STATUSPUB, [...args, "--pid", String(agent.pid), "--strict"], { env: childEnv, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`statuspub ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
  if (Date.now() - t0 > 500) console.log(`#   statuspub ${args[0]} took ${Date.now() - t0} ms`);
  // The record appeared when it was written (its mtime; before the
  // rename, so never late); a cleared one when statuspub started.
  if (args[0] !== "set") return t0;
  const session = args[args.indexOf("--session") + 1];
  return Math.min(Date.now(), fs.statSync(path.join(statusDir, fileOf(session))).mtimeMs);
}

const fileOf = (session) => createHash("sha256").update(session, "utf8").digest("hex") + ".json";
const iso = (ms) => new Date(ms).toISOString();

/** writeRecord writes a record as a publisher would (0600, by rename), with any updatedAt. */
function writeRecord(rec) {
  fs.mkdirSync(statusDir, { recursive: true, mode: 0o700 });
  const full = { schema: "gentle-shell.agent-status/v1", pid: agent.pid, cwd: workspace, updatedAt: iso(Date.now()), ...rec };
  const tmpName = path.join(statusDir, `.tmp-${rec.session}-${process.hrtime.bigint()}`);
  fs.writeFileSync(tmpName, JSON.stringify(full), { mode: 0o600 });
  fs.renameSync(tmpName, path.join(statusDir, fileOf(rec.session)));
}
const removeRecord = (session) => fs.rmSync(path.join(statusDir, fileOf(session)), { force: true });

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

// ---------------------------------------------------------------- the editor

const csArgs = ["--user-data-dir", userData, "--extensions-dir", extensions];
{
  const t0 = Date.now();
  const r = spawnSync(CODE_SERVER, [...csArgs, "--install-extension", VSIX], { env: childEnv, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`code-server --install-extension: exit ${r.status}\n${r.stdout}\n${r.stderr}`);
  const installed = fs.readdirSync(extensions).filter((d) => d.startsWith("agentstatus.agentstatus-"));
  check(installed.length === 1, `the .vsix installs into code-server: ${installed.join(" ")} (${Date.now() - t0} ms)`);
}

const port = await freePort();
// Its own session and process group (setsid): the extension host outlives
// the server otherwise, so the whole group is stopped at the end.
const server = spawn(
  CODE_SERVER,
  [
    "--bind-addr", `127.0.0.1:${port}`,
    "--auth", "none",
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-workspace-trust",
    "--disable-getting-started-override",
    ...csArgs,
    workspace,
  ],
  { env: childEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] },
);
const serverLog = fs.createWriteStream(path.join(SHOTS, "code-server.log"));
server.stdout.pipe(serverLog);
server.stderr.pipe(serverLog);
cleanups.push(() => {
  try {
    process.kill(-server.pid, "SIGTERM");
  } catch {
    return;
  }
  // The extension host may linger: SIGKILL what is left of the group.
  spawnSync("sleep", ["0.5"]);
  try {
    process.kill(-server.pid, "SIGKILL");
  } catch {
    // gone
  }
});
await new Promise((resolve, reject) => {
  let out = "";
  const t = setTimeout(() => reject(new Error(`code-server did not start:\n${out}`)), 60_000);
  const on = (b) => {
    out += b;
    if (out.includes("HTTP server listening")) {
      clearTimeout(t);
      resolve();
    }
  };
  server.stdout.on("data", on);
  server.stderr.on("data", on);
  server.once("exit", (c) => reject(new Error(`code-server exited (${c}):\n${out}`)));
});

const browser = await puppeteer.launch({
  executablePath: CHROMIUM,
  headless: true,
  userDataDir: path.join(tmp, "chromium"),
  env: childEnv,
  defaultViewport: { width: 1280, height: 800 },
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
});
cleanups.unshift(() => {
  const p = browser.process();
  if (p && p.exitCode === null) p.kill("SIGKILL");
});
const page = await browser.newPage();
page.setDefaultTimeout(90_000);
let shotN = 0;
async function shot(name) {
  const file = path.join(SHOTS, `${String(++shotN).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

// In the page: the extension's status bar item, the tree's rows, the toasts.
await page.evaluateOnNewDocument(() => {
  window.__as = {
    item() {
      return [...document.querySelectorAll("#workbench\\.parts\\.statusbar .statusbar-item")].find((e) => /agentstatus/i.test(e.id));
    },
    status() {
      const e = this.item();
      return e && e.offsetParent !== null ? e.innerText.replace(/\s+/g, " ").trim() : "";
    },
    pane() {
      return [...document.querySelectorAll(".pane")].find((p) => /Agent sessions/i.test(p.querySelector(".pane-header")?.innerText ?? ""));
    },
    rows() {
      const p = this.pane();
      if (!p) return [];
      return [...p.querySelectorAll(".monaco-list-row")].map((r) => ({
        label: r.querySelector(".label-name")?.innerText ?? "",
        description: r.querySelector(".label-description")?.innerText ?? "",
        text: r.innerText,
        height: r.getBoundingClientRect().height,
      }));
    },
    viewMessage() {
      return this.pane()?.querySelector(".message")?.innerText ?? "";
    },
    toasts() {
      return [...document.querySelectorAll(".notifications-toasts .notification-toast")].map((t) => t.innerText);
    },
  };
});


/** until polls fn in the page (on every DOM change) and returns how long it took, or -1 after ms. */
async function until(fn, ms, ...args) {
  const start = Date.now();
  try {
    await page.waitForFunction(fn, { polling: "mutation", timeout: ms }, ...args);
    return Date.now() - start;
  } catch (e) {
    if (e.name === "TimeoutError") return -1;
    throw e;
  }
}
const statusIs = (want, ms = FOLLOW_MS) => until((w) => window.__as.status() === w, Math.max(ms, 1), want);

/**
 * follows checks that the status bar shows want within FOLLOW_MS of start;
 * when it does not, it waits up to 30 s more, so that the figure is known
 * and the next steps start from the state they expect.
 */
async function follows(want, start, what) {
  let took = await statusIs(want, start + FOLLOW_MS - Date.now());
  if (took < 0) took = await statusIs(want, 30_000);
  const ms = Math.round(Date.now() - start);
  const ok = took >= 0 && ms <= FOLLOW_MS;
  check(ok, `${what}: status bar shows ${JSON.stringify(want)} ${took >= 0 ? `${ms} ms after the change` : `not within ${ms} ms`} (limit ${FOLLOW_MS})`);
  if (took < 0) console.log(`#   status bar: ${JSON.stringify(await page.evaluate(() => window.__as.status()))}`);
  return ok;
}

const t0 = Date.now();
try {
  // The workbench is a large page: on a busy machine it takes a while.
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`, { waitUntil: "domcontentloaded", timeout: 180_000 });
  await page.waitForSelector("#workbench\\.parts\\.statusbar", { timeout: 180_000 });
  console.log(`# workbench drawn in ${Date.now() - t0} ms`);
  await run();
} catch (e) {
  check(false, `the run stopped: ${e.stack ?? e}`);
  await shot("failure").catch(() => {});
}
console.log(`# screenshots and the code-server log: ${SHOTS}`);
console.log(`${passed} passed, ${failed} failed`);
await browser.close().catch(() => {});
cleanup();
process.exit(failed === 0 ? 0 : 1);

async function run() {
  // The view (in the Explorer) says so once the extension has listed the
  // empty directory: it is active and watching.
  await page.waitForFunction(() => window.__as.pane() !== undefined, { timeout: 180_000 });
  await openView();
  const active = await until(() => window.__as.viewMessage() === "No agent sessions.", 180_000);
  check(active >= 0, `the extension activates and lists the empty directory (${Date.now() - t0} ms after load)`);
  await shot("empty");

  // 1. The records appear: the counts, within 2 s.
  statuspub("set", "--session", "s-claude", "--agent", "claude-code", "--state", "blocked", "--title", "Clean up",
    "--cwd", workspace, "--waiting-for", "permission", "--tool", "Bash", "--detail", "rm -rf build");
  let start = statuspub("set", "--session", "s-codex", "--agent", "codex", "--state", "working", "--title", "Write the tests", "--cwd", workspace);
  await follows("1 blocked · 1 working", start, "two sessions published with statuspub set");
  await shot("statusbar");

  // The notification of the session that appeared blocked.
  let took = await until(() => window.__as.toasts().some((t) => t.includes("claude-code is waiting: Bash: rm -rf build (Clean up)")), 5_000);
  check(took >= 0, "a notification: claude-code is waiting: Bash: rm -rf build (Clean up)");
  await shot("notification");

  // 2. The tree: by state, blocked first, with the WHY.
  took = await until(() => {
    const r = window.__as.rows();
    return r.length === 4 && r[0].label.startsWith("blocked (1)") && r[2].label.startsWith("working (1)");
  }, 10_000);
  const rows = await page.evaluate(() => window.__as.rows());
  check(took >= 0, `the tree lists the states, blocked first: ${JSON.stringify(rows.map((r) => r.label))}`);
  check(rows[1]?.label === "claude-code" && rows[1]?.description === "Bash: rm -rf build — Clean up",
    `the blocked session with its WHY: ${JSON.stringify(rows[1]?.label)} ${JSON.stringify(rows[1]?.description)}`);
  check(rows[3]?.label === "codex" && rows[3]?.description === "Write the tests", `the working session: ${JSON.stringify(rows[3]?.description)}`);
  await shot("tree");

  // 3. A set to another state: followed within 2 s, and a notification.
  await dismissToasts();
  start = statuspub("set", "--session", "s-codex", "--state", "blocked", "--waiting-for", "question", "--detail", "Which database?");
  await follows("2 blocked", start, "statuspub set to blocked");
  took = await until(() => window.__as.toasts().some((t) => t.includes("codex is waiting: question: Which database? (Write the tests)")), 5_000);
  check(took >= 0, "a notification when a session becomes blocked: codex is waiting: question: Which database?");
  await shot("blocked-notification");
  start = statuspub("set", "--session", "s-claude", "--state", "idle", "--ended", "done");
  await follows("1 blocked · 1 idle", start, "statuspub set to idle");
  await dismissToasts();

  // 4. A hostile title: escape sequences, bidi controls, 4 KiB.
  const hostile =
    "\u001b[2J\u001b[31mRED\u001b[0m \u001b]8;;https://example.invalid/\u0007link\u001b]8;;\u0007 " +
    "\u202eevil\u202c \u2066iso\u2069 \u200fRTL\u200e tab\there\r\nnew line " +
    "$(bell) [x](command:workbench.action.quit) " +
    "W".repeat(4096);
  const heightsBefore = await page.evaluate(() => ({
    status: document.querySelector("#workbench\\.parts\\.statusbar").getBoundingClientRect().height,
    row: window.__as.rows()[1]?.height ?? 0,
  }));
  start = Date.now();
  writeRecord({ session: "s-hostile", agent: "hostile\u001b[1m\u202e", state: "working", task: { title: hostile } });
  await follows("1 blocked · 1 working · 1 idle", start, "a session with a hostile title");
  took = await until(() => window.__as.rows().some((r) => r.description.includes("RED")), 10_000);
  check(took >= 0, "the session with a hostile title is listed in the tree");
  const h = await page.evaluate(() => {
    const r = window.__as.rows().find((x) => x.description.includes("RED"));
    const pane = window.__as.pane();
    const list = pane.querySelector(".monaco-list");
    return {
      label: r?.label,
      description: r?.description ?? "",
      rowHeight: r?.height,
      heights: window.__as.rows().map((x) => x.height),
      status: document.querySelector("#workbench\\.parts\\.statusbar").getBoundingClientRect().height,
      overflow: list ? list.scrollWidth - list.clientWidth : 0,
      paneWidth: pane.getBoundingClientRect().width,
      bodyOverflow: document.body.scrollWidth - document.body.clientWidth,
    };
  });
  // eslint-disable-next-line no-control-regex
  const unsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
  check(!unsafe.test(h.description) && !unsafe.test(h.label ?? ""), `the hostile title is shown without control or bidi characters: ${JSON.stringify(h.description.slice(0, 90))}…`);
  check(h.description.length <= 4096 + 200, `the shown title is capped (${h.description.length} characters)`);
  check(h.heights.every((x) => x === heightsBefore.row) && h.status === heightsBefore.status,
    `the layout holds: rows ${JSON.stringify([...new Set(h.heights)])} px (before ${heightsBefore.row}), status bar ${h.status} px (before ${heightsBefore.status})`);
  check(h.bodyOverflow <= 0, `the page does not scroll sideways (overflow ${h.bodyOverflow} px)`);
  await shot("hostile-title");

  // 5. Removal: clear and a deleted file.
  start = statuspub("clear", "--session", "s-claude");
  removeRecord("s-hostile");
  await follows("1 blocked", start, "statuspub clear, and a deleted file");
  took = await until(() => window.__as.rows().length === 2 && window.__as.rows()[1].label === "codex", 10_000);
  check(took >= 0, `... and the tree: ${JSON.stringify((await page.evaluate(() => window.__as.rows())).map((r) => r.label))}`);
  await shot("removed");

  // 6. Staleness, from the record's updatedAt: 25 s old now, stale in 5 s.
  const updated = Date.now() - 25_000;
  writeRecord({ session: "s-stale", agent: "gemini", state: "working", task: { title: "An agent that stopped" }, updatedAt: iso(updated) });
  took = await statusIs("1 blocked · 1 working", 4_000);
  check(took >= 0, "a record 25 s old is shown");
  await shot("before-stale");
  const staleAt = updated + 30_000;
  took = await statusIs("1 blocked", staleAt - Date.now() + FOLLOW_MS);
  const late = Date.now() - staleAt;
  check(took >= 0 && late <= FOLLOW_MS, `... and goes ${late} ms after it turns 30 s old, with no file event (limit ${FOLLOW_MS})`);
  check(await until(() => !window.__as.rows().some((r) => r.label === "gemini"), 5_000) >= 0, "... from the tree too");
  await shot("stale");
  statuspub("clear", "--session", "s-codex");
  check(await until(() => window.__as.status() === "" && window.__as.viewMessage() === "No agent sessions.", 10_000) >= 0,
    "no sessions: the status bar item hides, the view says so");

  await performance();
  await terminal();
  await refused();
}

/** refused: a status directory that breaks the trust rules is one warning, and recovers. */
async function refused() {
  fs.chmodSync(statusDir, 0o777);
  let start = Date.now();
  writeRecord({ session: "s-refused", agent: "codex", state: "working" });
  const took = await until(() => window.__as.status() === "agents", 10_000);
  const label = await page.evaluate(() => window.__as.item()?.getAttribute("aria-label") ?? "");
  check(took >= 0, `a group- and world-writable status directory: the status bar says "agents" with a warning (${Date.now() - start} ms)`);
  check(await until(() => /writable by group or others/.test(window.__as.viewMessage()), 5_000) >= 0,
    `... the view says why: ${JSON.stringify(await page.evaluate(() => window.__as.viewMessage()))} (status bar label ${JSON.stringify(label)})`);
  await shot("refused");
  fs.chmodSync(statusDir, 0o700);
  start = Date.now();
  writeRecord({ session: "s-refused", agent: "codex", state: "working" });
  check(await until(() => window.__as.status() === "1 working", 10_000) >= 0, `mode 0700 again: the sessions are back (${Date.now() - start} ms)`);
  removeRecord("s-refused");
}

/**
 * terminal: an agent started from an integrated terminal publishes its
 * session; a click on it in the view focuses that terminal (its pid is a
 * child of the terminal's shell).
 */
async function terminal() {
  check(await until(() => window.__as.status() === "", 60_000) >= 0, "the 1,000 sessions are gone");
  await page.keyboard.press("F1");
  await page.waitForSelector(".quick-input-widget input", { visible: true });
  await page.keyboard.type("Terminal: Create New Terminal");
  await new Promise((r) => setTimeout(r, 500));
  await page.keyboard.press("Enter");
  const opened = await until(() => document.activeElement?.closest(".terminal-wrapper, .xterm") != null, 30_000);
  check(opened >= 0, "an integrated terminal opens and has the focus");
  // Wait for the shell's prompt before typing.
  await until(() => /[$#] *$/m.test(document.querySelector(".xterm-rows")?.innerText ?? ""), 20_000);
  await page.keyboard.type('sleep 300 & "$AGENTSTATUS_E2E_STATUSPUB" set --session s-term --agent term-agent --state blocked --waiting-for question --detail "In a terminal" --pid $!\n');
  const start = Date.now();
  await follows("1 blocked", start, "a session published from the terminal");
  // Move the focus away: to the Explorer's file.
  await page.evaluate(() => {
    const row = [...document.querySelectorAll(".explorer-folders-view .monaco-list-row")].find((r) => r.innerText.includes("README.md"));
    row?.click();
  });
  await until(() => document.activeElement?.closest(".terminal-wrapper, .xterm") == null, 5_000);
  await dismissToasts();
  await page.evaluate(() => {
    const p = window.__as.pane();
    const row = [...p.querySelectorAll(".monaco-list-row")].find((r) => r.querySelector(".label-name")?.innerText === "term-agent");
    row?.click();
  });
  const focused = await until(() => document.activeElement?.closest(".terminal-wrapper, .xterm") != null, 5_000);
  check(focused >= 0, "a click on the session in the view focuses its terminal (agentstatus.clickAction: terminal)");
  await shot("terminal");
  statuspub("clear", "--session", "s-term");
}

/** performance: 1,000 sessions, then one changes: how long until the status bar shows it. */
async function performance() {
  await dismissToasts();
  // Stamped 29 s ahead (fresh: the protocol allows 30 s of clock skew), so
  // that the 1,000 stay fresh through the measurement without a heartbeat
  // burst of their own.
  const start = Date.now();
  const ahead = iso(start + 29_000);
  for (let i = 0; i < PERF_SESSIONS; i++) {
    writeRecord({ session: `load-${String(i).padStart(4, "0")}`, agent: "load", state: "working", task: { title: `session ${i}` }, updatedAt: ahead });
  }
  const took = await statusIs(`${PERF_SESSIONS} working`, 45_000);
  check(took >= 0, `${PERF_SESSIONS} sessions written in one burst are shown (${Date.now() - start} ms)`);
  await shot("thousand");
  if (took < 0) {
    for (let i = 0; i < PERF_SESSIONS; i++) removeRecord(`load-${String(i).padStart(4, "0")}`);
    return;
  }
  // The page stamps each change of the status bar text with its own clock;
  // the change's time is taken just before the file is renamed into place.
  // Side by side, the same for VS Code's own Explorer: a file created in the
  // workspace, until its row shows.
  await page.evaluate(() => {
    window.__changes = [];
    // The whole status bar: VS Code may draw the item anew (its colour changes with blocked).
    const bar = document.querySelector("#workbench\\.parts\\.statusbar");
    const opts = { subtree: true, childList: true, characterData: true, attributes: true };
    new MutationObserver(() => window.__changes.push({ at: Date.now(), text: window.__as.status() })).observe(bar, opts);
    const explorer = document.querySelector(".explorer-folders-view");
    new MutationObserver(() => window.__changes.push({ at: Date.now(), text: explorer.innerText })).observe(explorer, opts);
  });
  const runs = [];
  const baseline = [];
  const seenAfter = (want, at) => page.evaluate((w, a) => window.__changes.find((c) => c.at >= a && c.text.includes(w))?.at, want, at);
  for (let i = 0; i < 10; i++) {
    const session = `load-${String(i * 97).padStart(4, "0")}`;
    const blocked = i % 2 === 0;
    const want = blocked ? `1 blocked · ${PERF_SESSIONS - 1} working` : `${PERF_SESSIONS} working`;
    let at = Date.now();
    writeRecord({
      session: blocked ? session : `load-${String((i - 1) * 97).padStart(4, "0")}`,
      agent: "load",
      state: blocked ? "blocked" : "working",
      task: { title: "perf" },
      updatedAt: ahead,
      ...(blocked ? { waitingFor: { kind: "permission", tool: "Bash", detail: "make", since: iso(at) } } : {}),
    });
    if ((await statusIs(want, 5_000)) < 0) {
      check(false, `change ${i}: the status bar did not show ${JSON.stringify(want)}`);
      continue;
    }
    // The page's stamp; the driver's clock if the observer missed it (later, so never kinder).
    const seen = await seenAfter(want, at);
    runs.push((seen ?? Date.now()) - at);
    await dismissToasts();
    // The baseline: a new file in the workspace, in the Explorer.
    const name = `baseline-${i}.txt`;
    at = Date.now();
    fs.writeFileSync(path.join(workspace, name), "x\n");
    if ((await until((n) => document.querySelector(".explorer-folders-view")?.innerText.includes(n), 5_000, name)) >= 0) {
      const seenFile = await seenAfter(name, at);
      baseline.push((seenFile ?? Date.now()) - at);
    }
  }
  const stats = (xs) => {
    const v = [...xs].sort((a, b) => a - b);
    return { median: v[Math.floor(v.length / 2)], max: v.at(-1), min: v[0], all: xs.join(", ") };
  };
  const st = stats(runs);
  const bl = stats(baseline);
  const load = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  figure(`status bar update with ${PERF_SESSIONS} sessions: median ${st.median} ms, min ${st.min}, max ${st.max} over ${runs.length} changes (${st.all})`);
  figure(`VS Code's own Explorer showing a new workspace file, same run: median ${bl.median} ms, min ${bl.min}, max ${bl.max} (${bl.all}); load average ${load}`);
  // The 200 ms target is a measured figure, reported beside VS Code's own
  // Explorer on the same machine; only following every change is checked,
  // since a timing bound on a shared machine measures the machine.
  figure(`target: median within ${PERF_MS} ms ${st.median <= PERF_MS ? "met" : "not met"} (${(st.median / bl.median).toFixed(2)}x the Explorer)`);
  check(runs.length === 10, `with ${PERF_SESSIONS} sessions the status bar follows all 10 changes (median ${st.median} ms)`);
  await shot("thousand-changed");
  for (let i = 0; i < PERF_SESSIONS; i++) removeRecord(`load-${String(i).padStart(4, "0")}`);
}

/** openView widens the side bar (for readable screenshots) and makes sure the Agent sessions view is expanded. */
async function openView() {
  const sash = await page.evaluate(() => {
    const bar = document.querySelector("#workbench\\.parts\\.sidebar")?.getBoundingClientRect();
    if (!bar) return null;
    for (const s of document.querySelectorAll(".monaco-sash.vertical")) {
      const r = s.getBoundingClientRect();
      if (r.height > 100 && Math.abs(r.left + r.width / 2 - bar.right) < 6) return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    }
    return null;
  });
  if (sash) {
    await page.mouse.move(sash.x, sash.y);
    await page.mouse.down();
    await page.mouse.move(sash.x + 260, sash.y, { steps: 8 });
    await page.mouse.up();
    await page.mouse.move(900, 150);
  }
  const expanded = await page.evaluate(() => {
    const h = window.__as.pane().querySelector(".pane-header");
    return h.getAttribute("aria-expanded") === "true";
  });
  if (!expanded) {
    await page.evaluate(() => window.__as.pane().querySelector(".pane-header").click());
  }
}

async function dismissToasts() {
  await page.evaluate(() => {
    for (const b of document.querySelectorAll(".notifications-toasts .codicon-notifications-clear, .notifications-toasts .codicon-close")) b.click();
  });
}
