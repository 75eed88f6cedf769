// agentstatus.ts: the core of a VS Code extension that shows the agents'
// summary in the status bar, from `statusls watch --json`. A sketch: it is
// not built or tested here. Call activate/deactivate from your extension's
// own entry points.
import { spawn, ChildProcess } from "child_process";
import * as readline from "readline";
import * as vscode from "vscode";

// One line of `statusls watch --json` (see README.md next to this file).
interface WatchEvent {
  event: string; // "snapshot", "synced", "added", "updated", "stale", "fresh", "removed", ...
  seq: number;
  at: string;
  session: string | null; // null for "synced" and "error"
  agent?: string | null;
  state?: string | null;
  cwd?: string | null;
  title?: string | null;
}

const order = ["blocked", "working", "idle"];
let child: ChildProcess | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right);
  context.subscriptions.push(item);
  const sessions = new Map<string, WatchEvent>();

  const render = () => {
    const counts = new Map<string, number>();
    for (const ev of sessions.values()) {
      counts.set(ev.state!, (counts.get(ev.state!) ?? 0) + 1);
    }
    const states = [...counts.keys()].sort(
      (a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99) || a.localeCompare(b));
    item.text = states.map((s) => `${counts.get(s)} ${s}`).join(" · ");
    item.tooltip = [...sessions.values()]
      .map((e) => `${e.state}  ${e.agent ?? "?"}  ${e.title ?? ""}`).join("\n");
    if (item.text) item.show(); else item.hide();
  };

  child = spawn("statusls", ["watch", "--json"], { stdio: ["ignore", "pipe", "ignore"] });
  readline.createInterface({ input: child.stdout! }).on("line", (line) => {
    let ev: WatchEvent;
    try { ev = JSON.parse(line); } catch { return; }
    if (typeof ev.session !== "string") return;
    if (ev.event === "removed" || ev.event === "stale") sessions.delete(ev.session);
    else if (typeof ev.state === "string") sessions.set(ev.session, ev);
    else return;
    render();
  });
}

export function deactivate(): void {
  child?.kill();
}
