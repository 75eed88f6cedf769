// The VS Code side: a status bar item with the counts (blocked first), a
// tree of the sessions grouped by state with the reason of each, and a
// notification when a session starts waiting for the user. What is shown
// comes from Tracker (tracker.ts), which reads the status directory with
// the protocol's rules (protocol.ts); VS Code's FileSystemWatcher tells it
// when to read (no polling).

import * as path from "node:path";
import * as vscode from "vscode";
import { DEFAULT_POLICY, Notifier, parseDuration, Policy } from "./notify";
import { locate, View, why } from "./protocol";
import { findShell, ParentOf, procParent } from "./terminal";
import { Clock, realClock, Tracker } from "./tracker";

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

  /** update sets what the tree holds; refresh asks the window to draw it again. */
  update(sessions: View[], error: string | null): void {
    this.sessions = sessions;
    this.error = error;
  }

  refresh(): void {
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
    item.command = { command: "agentstatus.open", title: "Show the session", arguments: [v.session] };
    return item;
  }

  /** message is what the view says when there is nothing to list. */
  message(): string | undefined {
    if (this.error) return `Refusing the status directory: ${this.error}`;
    return this.sessions.length === 0 ? "No agent sessions." : undefined;
  }
}

/** Options for [start]; the tests pass a fake clock, environment and process table. */
export interface StartOptions {
  clock?: Clock;
  env?: Record<string, string | undefined>;
  parentOf?: ParentOf;
}

/** The status bar tooltip lists at most this many sessions. */
const TOOLTIP_SESSIONS = 30;
/** The tree is redrawn at most this often (ms): a burst of changes is one redraw. */
const TREE_INTERVAL_MS = 250;

/** message is a notification's text for a session that entered its state. */
export function message(v: View): string {
  const who = v.agent ?? "An agent";
  const reason = why(v);
  switch (v.state) {
    case "blocked":
      return `${who} is waiting: ${reason || "blocked"} (${describe(v)})`;
    case "idle":
      return reason ? `${who} is idle: ${reason} (${describe(v)})` : `${who} is idle (${describe(v)})`;
    default:
      return `${who} is ${v.state} (${describe(v)})`;
  }
}

/** policy reads the notification settings; a malformed duration counts as 0 and is reported. */
export function policy(cfg: { get<T>(key: string, dflt: T): T }, complain: (msg: string) => void = () => {}): Policy {
  const dur = (key: string) => {
    const raw = cfg.get<string>(key, "0s");
    const ms = parseDuration(String(raw));
    if (ms === null) complain(`agentstatus.${key}: "${raw}" is not a duration like 30s, 2m or 1m30s; using 0s`);
    return ms ?? 0;
  };
  let on = cfg.get<string[]>("notifyOn", DEFAULT_POLICY.on);
  if (!Array.isArray(on)) on = DEFAULT_POLICY.on;
  if (cfg.get<boolean>("notifyBlocked", true) === false) on = on.filter((s) => s !== "blocked");
  return { on: on.map(String), afterMs: dur("notifyAfter"), cooldownMs: dur("notifyCooldown") };
}

/**
 * start wires everything up for the current settings and returns what
 * must be disposed. It is activate's body, exported for the tests.
 */
export function start(context: vscode.ExtensionContext, opts: StartOptions = {}): { tracker(): Tracker | undefined } {
  const clock = opts.clock ?? realClock;
  const item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  item.name = "Agent status";
  item.command = "agentstatus.statusBarClick";
  const tree = new SessionTree();
  const treeView = vscode.window.createTreeView("agentstatus.sessions", { treeDataProvider: tree });
  context.subscriptions.push(item, treeView);

  let tracker: Tracker | undefined;
  let watchers: vscode.Disposable[] = [];
  const config = () => vscode.workspace.getConfiguration("agentstatus");

  // The status bar item: set only what changed (each set is a message to
  // the window), so that with many sessions a change costs one update.
  let shown = { text: "", tooltip: "", background: "", visible: false };
  const setItem = (text: string, tooltip: string, background: string, visible: boolean) => {
    if (!visible) {
      if (shown.visible) item.hide();
      shown = { ...shown, visible };
      return;
    }
    if (text !== shown.text) item.text = text;
    if (tooltip !== shown.tooltip) item.tooltip = tooltip;
    if (background !== shown.background) item.backgroundColor = background ? new vscode.ThemeColor(background) : undefined;
    if (!shown.visible) item.show();
    shown = { text, tooltip, background, visible };
  };

  // The tree: its data is current at once; the redraw it asks of the
  // window is paced, so a burst of changes is one redraw.
  let treeTimer: ReturnType<typeof setTimeout> | undefined;
  let treeDrawn = 0;
  const drawTree = () => {
    treeTimer = undefined;
    treeDrawn = Date.now();
    tree.refresh();
  };
  const scheduleTree = () => {
    if (treeTimer !== undefined) return;
    const wait = treeDrawn + TREE_INTERVAL_MS - Date.now();
    if (wait <= 0) drawTree();
    else treeTimer = setTimeout(drawTree, wait);
  };

  const render = (t: Tracker) => {
    const sessions = t.sessions();
    const error = t.lastError();
    tree.update(sessions, error);
    treeView.message = tree.message();
    scheduleTree();
    const blocked = sessions.filter((s) => s.state === "blocked").length;
    if (error) {
      setItem("$(warning) agents", `Agent status: refusing the status directory: ${error}`, "statusBarItem.errorBackground", true);
    } else if (sessions.length === 0) {
      setItem("", "", "", false);
    } else {
      const lines = sessions.slice(0, TOOLTIP_SESSIONS).map((s) => `${s.state}  ${s.agent ?? "?"}  ${why(s) || describe(s)}`);
      if (sessions.length > TOOLTIP_SESSIONS) lines.push(`… and ${sessions.length - TOOLTIP_SESSIONS} more in the Agent sessions view`);
      setItem(`$(${blocked > 0 ? "bell" : "hubot"}) ${counts(sessions)}`, lines.join("\n"), blocked > 0 ? "statusBarItem.warningBackground" : "", true);
    }
  };

  // A bad setting is said once, not at every change.
  const complained = new Set<string>();
  const complain = (msg: string) => {
    if (complained.has(msg)) return;
    complained.add(msg);
    void vscode.window.showWarningMessage(`Agent status: ${msg}`);
  };

  const notifier = new Notifier(policy(config(), complain), clock, (v) => {
    const show = v.state === "blocked" ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void Promise.resolve(show(plain(message(v)), "Show")).then((pick) => {
      if (pick === "Show") void open(v.session);
    });
  });

  /** open is the click action: the session's terminal when it runs in one, else the view. */
  const open = async (session?: string): Promise<void> => {
    const v = session === undefined ? undefined : tracker?.sessions().find((s) => s.session === session);
    if (v && config().get<string>("clickAction", "terminal") === "terminal") {
      const terminals = vscode.window.terminals ?? [];
      const pids = await Promise.all(terminals.map((t) => Promise.resolve(t.processId).catch(() => undefined)));
      const shell = await findShell(v.pid, pids.filter((p): p is number => typeof p === "number"), opts.parentOf ?? procParent);
      const term = shell === null ? undefined : terminals[pids.indexOf(shell)];
      if (term) {
        term.show(false);
        return;
      }
    }
    await vscode.commands.executeCommand("agentstatus.sessions.focus");
  };

  const stop = () => {
    tracker?.dispose();
    tracker = undefined;
    for (const w of watchers) w.dispose();
    watchers = [];
  };

  const begin = () => {
    stop();
    const cfg = config();
    let dir: string;
    try {
      dir = locate({ dir: cfg.get<string>("statusDir", ""), configHome: cfg.get<string>("configHome", ""), env: opts.env }).dir;
    } catch (e) {
      // One message where the counts would be, until the settings change.
      setItem("$(warning) agents", `Agent status: ${(e as Error).message}`, "statusBarItem.errorBackground", true);
      tree.update([], (e as Error).message);
      treeView.message = `Agent status: ${(e as Error).message}`;
      return;
    }
    const t = new Tracker(dir, (r) => {
      if (tracker !== t) return; // a read that ended after the settings changed
      render(t);
      notifier.report(r);
    }, clock);
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
    vscode.commands.registerCommand("agentstatus.open", (session?: string) => open(typeof session === "string" ? session : undefined)),
    // The status bar: the one blocked session's terminal, else the view.
    vscode.commands.registerCommand("agentstatus.statusBarClick", () => {
      const blocked = tracker?.sessions().filter((s) => s.state === "blocked") ?? [];
      return open(blocked.length === 1 ? blocked[0].session : undefined);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("agentstatus.statusDir") || e.affectsConfiguration("agentstatus.configHome")) begin();
      if (["notifyOn", "notifyAfter", "notifyCooldown", "notifyBlocked"].some((k) => e.affectsConfiguration(`agentstatus.${k}`))) {
        notifier.setPolicy(policy(config(), complain));
      }
    }),
    // Coming back to the window lists the directory again: a change
    // notification lost meanwhile (R18) costs nothing more than that.
    vscode.window.onDidChangeWindowState((s) => {
      if (s.focused) void tracker?.relist();
    }),
    {
      dispose: () => {
        stop();
        notifier.dispose();
        if (treeTimer !== undefined) clearTimeout(treeTimer);
      },
    },
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
