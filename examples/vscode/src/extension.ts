// The VS Code side: a status bar item with the counts (blocked first), a
// tree of the sessions grouped by state with the reason of each, and a
// notification when a session starts waiting for the user. What is shown
// comes from Tracker (tracker.ts), which reads the status directory with
// the protocol's rules (protocol.ts); VS Code's FileSystemWatcher tells it
// when to read (no polling).

import * as path from "node:path";
import * as vscode from "vscode";
import { locate, View, why } from "./protocol";
import { Clock, realClock, Report, startsWaiting, Tracker } from "./tracker";

const ORDER = ["blocked", "working", "idle"];
const ICONS: { [state: string]: string } = { blocked: "bell", working: "sync", idle: "circle-outline" };

/**
 * plain keeps text from files plain where VS Code renders links or icons
 * (notification messages render [text](target) links, including command
 * links; status bar text renders $(icon)): the strings are sanitized
 * already, this only breaks those two syntaxes. The status bar text holds
 * only counts and the three state names, never a string from a file.
 */
export function plain(s: string): string {
  return s.replace(/\]\(/g, "] (").replace(/\$\(/g, "$ (");
}

/** counts is the status bar text: "2 blocked · 1 working · 3 idle", blocked first. */
export function counts(sessions: View[]): string {
  const n = new Map<string, number>();
  for (const s of sessions) {
    const k = ORDER.includes(s.state) ? s.state : "other";
    n.set(k, (n.get(k) ?? 0) + 1);
  }
  return [...ORDER, "other"].filter((k) => n.has(k)).map((k) => `${n.get(k)} ${k}`).join(" · ");
}

/** describe is one line about a session: its title, else its workspace. */
function describe(v: View): string {
  return v.title ?? (v.cwd ? path.basename(v.cwd) || v.cwd : v.session);
}

function tooltip(v: View): string {
  const lines = [
    `${v.agent ?? "unknown agent"} · ${v.state}${why(v) ? ": " + why(v) : ""}`,
    v.title ? `task: ${v.title}` : "",
    v.cwd ? `workspace: ${v.cwd}` : "",
    `session: ${v.session}`,
    v.pid !== null ? `pid: ${v.pid}` : "",
    v.waitingFor?.since ? `waiting since ${v.waitingFor.since}` : "",
    v.ended?.at ? `ended at ${v.ended.at}` : "",
  ];
  return lines.filter(Boolean).join("\n");
}

type Node = { group: string; sessions: View[] } | { session: View };

/** The tree view: states (blocked first), each with its sessions. */
export class SessionTree implements vscode.TreeDataProvider<Node> {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private sessions: View[] = [];
  private error: string | null = null;

  update(sessions: View[], error: string | null): void {
    this.sessions = sessions;
    this.error = error;
    this.emitter.fire(undefined);
  }

  getChildren(node?: Node): Node[] {
    if (node && "group" in node) return node.sessions.map((s) => ({ session: s }));
    if (node) return [];
    const groups = new Map<string, View[]>();
    for (const s of this.sessions) groups.set(s.state, [...(groups.get(s.state) ?? []), s]);
    const rank = (k: string) => (ORDER.includes(k) ? ORDER.indexOf(k) : ORDER.length);
    return [...groups.keys()]
      .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
      .map((g) => ({ group: g, sessions: groups.get(g)! }));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if ("group" in node) {
      const item = new vscode.TreeItem(`${node.group} (${node.sessions.length})`, vscode.TreeItemCollapsibleState.Expanded);
      item.iconPath = new vscode.ThemeIcon(ICONS[node.group] ?? "question");
      return item;
    }
    const v = node.session;
    const item = new vscode.TreeItem(v.agent ?? "unknown agent", vscode.TreeItemCollapsibleState.None);
    const reason = why(v);
    item.description = reason ? `${reason} — ${describe(v)}` : describe(v);
    item.tooltip = tooltip(v);
    item.iconPath = new vscode.ThemeIcon(ICONS[v.state] ?? "question");
    item.id = v.session;
    return item;
  }

  /** message is what the view says when there is nothing to list. */
  message(): string | undefined {
    if (this.error) return `Refusing the status directory: ${this.error}`;
    return this.sessions.length === 0 ? "No agent sessions." : undefined;
  }
}

/** Options for [start]; the tests pass a fake clock and environment. */
export interface StartOptions {
  clock?: Clock;
  env?: Record<string, string | undefined>;
}

/**
 * start wires everything up for the current settings and returns what
 * must be disposed. It is activate's body, exported for the tests.
 */
export function start(context: vscode.ExtensionContext, opts: StartOptions = {}): { tracker(): Tracker | undefined } {
  const item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  item.name = "Agent status";
  item.command = "agentstatus.showSessions";
  const tree = new SessionTree();
  const treeView = vscode.window.createTreeView("agentstatus.sessions", { treeDataProvider: tree });
  context.subscriptions.push(item, treeView);

  let tracker: Tracker | undefined;
  let watchers: vscode.Disposable[] = [];

  const render = (t: Tracker) => {
    const sessions = t.sessions();
    const error = t.lastError();
    tree.update(sessions, error);
    treeView.message = tree.message();
    const blocked = sessions.filter((s) => s.state === "blocked").length;
    if (error) {
      item.text = "$(warning) agents";
      item.tooltip = `Agent status: refusing ${t.dir}: ${error}`;
      item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
      item.show();
    } else if (sessions.length === 0) {
      item.hide();
    } else {
      item.text = `$(${blocked > 0 ? "bell" : "hubot"}) ${counts(sessions)}`;
      item.tooltip = sessions.map((s) => `${s.state}  ${s.agent ?? "?"}  ${why(s) || describe(s)}`).join("\n");
      item.backgroundColor = blocked > 0 ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
      item.show();
    }
  };

  const notify = (r: Report) => {
    if (r.initial || !vscode.workspace.getConfiguration("agentstatus").get<boolean>("notifyBlocked", true)) return;
    for (const t of r.transitions) {
      if (!startsWaiting(t)) continue;
      const v = t.after!;
      const msg = `${v.agent ?? "An agent"} is waiting: ${why(v) || "blocked"} (${describe(v)})`;
      void vscode.window.showWarningMessage(plain(msg), "Show").then((pick) => {
        if (pick === "Show") void vscode.commands.executeCommand("agentstatus.sessions.focus");
      });
    }
  };

  const stop = () => {
    tracker?.dispose();
    tracker = undefined;
    for (const w of watchers) w.dispose();
    watchers = [];
  };

  const begin = () => {
    stop();
    const cfg = vscode.workspace.getConfiguration("agentstatus");
    let dir: string;
    try {
      dir = locate({ dir: cfg.get<string>("statusDir", ""), configHome: cfg.get<string>("configHome", ""), env: opts.env }).dir;
    } catch (e) {
      item.text = "$(warning) agents";
      item.tooltip = `Agent status: ${(e as Error).message}`;
      item.show();
      return;
    }
    const t = new Tracker(dir, (r) => {
      if (tracker !== t) return; // a read that ended after the settings changed
      render(t);
      notify(r);
    }, opts.clock ?? realClock);
    tracker = t;
    // The files: one level, so a non-recursive watcher (it also waits
    // for a directory that does not exist yet). The names it reports
    // are only hints; Tracker ignores all but status names (R3).
    const files = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), "*.json"));
    const onFile = (uri: vscode.Uri) => void t.changed(path.basename(uri.fsPath));
    files.onDidCreate(onFile);
    files.onDidChange(onFile);
    files.onDidDelete(onFile);
    // The directory itself, from its parent: created, removed, replaced
    // (R19), or its mode changed: list it again.
    const parent = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(dir)), path.basename(dir)));
    const onDir = () => void t.relist();
    parent.onDidCreate(onDir);
    parent.onDidChange(onDir);
    parent.onDidDelete(onDir);
    watchers = [files, parent];
    void t.relist();
  };

  context.subscriptions.push(
    vscode.commands.registerCommand("agentstatus.refresh", () => tracker?.relist()),
    vscode.commands.registerCommand("agentstatus.showSessions", () => vscode.commands.executeCommand("agentstatus.sessions.focus")),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("agentstatus.statusDir") || e.affectsConfiguration("agentstatus.configHome")) begin();
    }),
    // Coming back to the window lists the directory again: a change
    // notification lost meanwhile (R18) costs nothing more than that.
    vscode.window.onDidChangeWindowState((s) => {
      if (s.focused) void tracker?.relist();
    }),
    { dispose: stop },
  );
  begin();
  return { tracker: () => tracker };
}

export function activate(context: vscode.ExtensionContext): void {
  start(context);
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}
