// The extension's glue under plain Node, against the stand-in vscode
// module: what the status bar, the tree and the notifications show as
// records come and go, driven by the FileSystemWatcher's events.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeEach, test } from "node:test";
import * as stub from "./vscode-stub";

stub.install();
// After install: extension.js requires "vscode".
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ext = require("../extension") as typeof import("../extension");
import { FakeClock, statusDir, write } from "./helpers";
import { nowNs } from "../protocol";

beforeEach(() => stub.recorded.reset());

function activate(env: { [k: string]: string }) {
  const context = { subscriptions: [] as { dispose(): unknown }[] };
  const clock = new FakeClock(nowNs());
  const handle = ext.start(context as never, { clock, env });
  const item = stub.recorded.statusBar[0];
  const tree = stub.recorded.trees[0];
  const [files, parent] = stub.recorded.watchers;
  const settle = () => handle.tracker()!.idle();
  const rows = () =>
    tree.provider.getChildren().map((g: unknown) => {
      const gi = tree.provider.getTreeItem(g);
      return [gi.label, ...tree.provider.getChildren(g).map((s: unknown) => {
        const si = tree.provider.getTreeItem(s);
        return `${si.label} | ${si.description}`;
      })];
    });
  return { context, clock, item, tree, files, parent, settle, rows };
}

test("watches the status directory and its parent, non-recursively", async () => {
  const dir = statusDir();
  const { files, parent, settle, context } = activate({ STATUS_DIR: dir });
  await settle();
  assert.equal(files.pattern.base.fsPath, dir);
  assert.equal(files.pattern.pattern, "*.json");
  assert.equal(parent.pattern.base.fsPath, path.dirname(dir));
  assert.equal(parent.pattern.pattern, "agent-status");
  for (const d of context.subscriptions) d.dispose();
  assert.ok(files.disposed && parent.disposed);
});

test("status bar, tree and notifications follow the records", async () => {
  const dir = statusDir();
  const now = nowNs();
  write(dir, { session: "w", agent: "codex", title: "Run the migrations", updatedAt: now });
  const idle = write(dir, { session: "i", agent: "claude-code", state: "idle", cwd: "/home/me/site", updatedAt: now,
    extra: { ended: { reason: "rate_limited", detail: "429", at: "2026-07-17T12:35:00.000Z" } } });
  const { clock, item, files, settle, rows, tree } = activate({ STATUS_DIR: dir });
  clock.t = now;
  await settle();
  assert.equal(item.text, "$(hubot) 1 working · 1 idle");
  assert.equal(item.visible, true);
  assert.equal(stub.recorded.messages.length, 0, "sessions already there are not news");

  const blocked = write(dir, { session: "b", agent: "claude-code", state: "blocked", title: "Clean up", updatedAt: now,
    extra: { waitingFor: { kind: "permission", tool: "Bash", detail: "rm -rf build", since: "2026-07-17T12:35:00.000Z" } } });
  files.created.fire(stub.Uri.file(path.join(dir, blocked)));
  await settle();
  assert.equal(item.text, "$(bell) 1 blocked · 1 working · 1 idle");
  assert.equal(item.backgroundColor?.id, "statusBarItem.warningBackground");
  assert.deepEqual(stub.recorded.messages, ["claude-code is waiting: Bash: rm -rf build (Clean up)"]);
  assert.deepEqual(rows(), [
    ["blocked (1)", "claude-code | Bash: rm -rf build — Clean up"],
    ["working (1)", "codex | Run the migrations"],
    ["idle (1)", "claude-code | rate limited — site"],
  ]);

  // Approved: working again; no notification.
  write(dir, { session: "b", agent: "claude-code", state: "working", title: "Clean up", updatedAt: now });
  files.changed.fire(stub.Uri.file(path.join(dir, blocked)));
  fs.unlinkSync(path.join(dir, idle));
  files.deleted.fire(stub.Uri.file(path.join(dir, idle)));
  await settle();
  assert.equal(item.text, "$(hubot) 2 working");
  assert.equal(stub.recorded.messages.length, 1);

  // No file event: the records go stale on the timer alone.
  clock.advanceTo(clock.next()!);
  await settle();
  assert.equal(item.visible, false);
  assert.equal(tree.view.message, "No agent sessions.");
});

test("notifications can be turned off, and never render links", async () => {
  const dir = statusDir();
  const { clock, files, settle } = activate({ STATUS_DIR: dir });
  await settle();
  const name = write(dir, { session: "q", agent: "gemini", state: "blocked", updatedAt: clock.now(),
    extra: { waitingFor: { kind: "question", detail: "[click](command:workbench.action.quit)" } } });
  files.created.fire(stub.Uri.file(path.join(dir, name)));
  await settle();
  assert.deepEqual(stub.recorded.messages, ["gemini is waiting: question: [click] (command:workbench.action.quit) (project)"]);
  stub.recorded.config["agentstatus.notifyBlocked"] = false;
  stub.recorded.configEmitter.fire({ affectsConfiguration: (s) => s === "agentstatus.notifyBlocked" });
  write(dir, { session: "q", state: "working", updatedAt: clock.now() });
  files.changed.fire(stub.Uri.file(path.join(dir, name)));
  await settle();
  write(dir, { session: "q", state: "blocked", updatedAt: clock.now() });
  files.changed.fire(stub.Uri.file(path.join(dir, name)));
  await settle();
  assert.equal(stub.recorded.messages.length, 1);
});

test("a refused directory is an error in the status bar and the view", async () => {
  if (process.platform === "win32") return;
  const dir = statusDir();
  fs.chmodSync(dir, 0o777);
  write(dir, { session: "a", updatedAt: nowNs() });
  const { item, settle, tree, rows } = activate({ STATUS_DIR: dir });
  await settle();
  assert.equal(item.text, "$(warning) agents");
  assert.match(item.tooltip ?? "", /writable by group or others/);
  assert.match(tree.view.message ?? "", /^Refusing the status directory/);
  assert.deepEqual(rows(), []);
});

test("coming back to the window lists the directory again", async () => {
  const dir = statusDir();
  const { item, settle } = activate({ STATUS_DIR: dir });
  await settle();
  assert.equal(item.visible, false);
  write(dir, { session: "w", updatedAt: nowNs() });
  await settle();
  assert.equal(item.visible, false, "no event, no read: nothing polls");
  stub.recorded.windowState.fire({ focused: true });
  await settle();
  assert.equal(item.text, "$(hubot) 1 working");
});

test("settings name the directory; changing them starts over", async () => {
  const dir = statusDir();
  const other = statusDir();
  write(other, { session: "o", updatedAt: nowNs() });
  stub.recorded.config["agentstatus.statusDir"] = dir;
  const { files, settle, item } = activate({ STATUS_DIR: other });
  await settle();
  assert.equal(files.pattern.base.fsPath, dir);
  assert.equal(item.visible, false);
  stub.recorded.config["agentstatus.statusDir"] = other;
  stub.recorded.configEmitter.fire({ affectsConfiguration: (s) => s === "agentstatus.statusDir" });
  assert.ok(files.disposed);
  assert.equal(stub.recorded.watchers[2].pattern.base.fsPath, other);
  await settle();
  assert.equal(item.text, "$(hubot) 1 working");
});
