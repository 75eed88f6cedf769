// A stand-in for the part of the `vscode` module the extension uses, so
// that its glue runs under plain Node: it records what the extension
// shows, and lets a test fire the FileSystemWatcher's events. install()
// makes `require("vscode")` return it.

import Module = require("node:module");

type Listener<T> = (e: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  event = (l: Listener<T>) => {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Uri {
  private constructor(readonly fsPath: string) {}
  static file(p: string): Uri {
    return new Uri(p);
  }
}

export class RelativePattern {
  constructor(readonly base: Uri, readonly pattern: string) {}
}

export class ThemeIcon {
  constructor(readonly id: string) {}
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export enum TreeItemCollapsibleState { None = 0, Collapsed = 1, Expanded = 2 }
export enum StatusBarAlignment { Left = 1, Right = 2 }

export class TreeItem {
  description?: string;
  command?: { command: string; title: string; arguments?: unknown[] };
  tooltip?: string;
  iconPath?: ThemeIcon;
  id?: string;
  constructor(readonly label: string, readonly collapsibleState: TreeItemCollapsibleState) {}
}

export class FileSystemWatcher {
  readonly created = new EventEmitter<Uri>();
  readonly changed = new EventEmitter<Uri>();
  readonly deleted = new EventEmitter<Uri>();
  onDidCreate = this.created.event;
  onDidChange = this.changed.event;
  onDidDelete = this.deleted.event;
  disposed = false;
  constructor(readonly pattern: RelativePattern) {}
  dispose(): void {
    this.disposed = true;
  }
}

export interface StatusBarItem {
  name?: string;
  text: string;
  tooltip?: string;
  command?: string;
  backgroundColor?: ThemeColor;
  visible: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

/** An integrated terminal: its shell's pid, and whether it was shown. */
export class Terminal {
  shown = 0;
  constructor(readonly name: string, readonly processId: Promise<number | undefined>) {}
  show(): void {
    this.shown++;
  }
}

/** What the extension did, for the tests to look at. */
export const recorded = {
  statusBar: [] as StatusBarItem[],
  trees: [] as { id: string; provider: any; view: { message?: string } }[],
  watchers: [] as FileSystemWatcher[],
  messages: [] as string[],
  commands: new Map<string, (...a: unknown[]) => unknown>(),
  executed: [] as string[],
  config: {} as { [key: string]: unknown },
  configEmitter: new EventEmitter<{ affectsConfiguration(s: string): boolean }>(),
  windowState: new EventEmitter<{ focused: boolean }>(),
  /** What the user picks in a notification. */
  pick: undefined as string | undefined,
  terminals: [] as Terminal[],
  reset(): void {
    this.pick = undefined;
    this.terminals = [];
    this.statusBar = [];
    this.trees = [];
    this.watchers = [];
    this.messages = [];
    this.commands = new Map();
    this.executed = [];
    this.config = {};
  },
};

export const window = {
  createStatusBarItem(): StatusBarItem {
    const item: StatusBarItem = {
      text: "",
      visible: false,
      show() { this.visible = true; },
      hide() { this.visible = false; },
      dispose() { this.visible = false; },
    };
    recorded.statusBar.push(item);
    return item;
  },
  createTreeView(id: string, opts: { treeDataProvider: unknown }) {
    const view = { message: undefined as string | undefined, dispose() {} };
    recorded.trees.push({ id, provider: opts.treeDataProvider, view });
    return view;
  },
  showWarningMessage(msg: string): Promise<string | undefined> {
    recorded.messages.push(msg);
    return Promise.resolve(recorded.pick);
  },
  showInformationMessage(msg: string): Promise<string | undefined> {
    recorded.messages.push(msg);
    return Promise.resolve(recorded.pick);
  },
  get terminals() {
    return recorded.terminals;
  },
  onDidChangeWindowState: recorded.windowState.event,
};

export const workspace = {
  createFileSystemWatcher(p: RelativePattern): FileSystemWatcher {
    const w = new FileSystemWatcher(p);
    recorded.watchers.push(w);
    return w;
  },
  getConfiguration(section: string) {
    return {
      get<T>(key: string, dflt: T): T {
        const v = recorded.config[`${section}.${key}`];
        return v === undefined ? dflt : (v as T);
      },
    };
  },
  onDidChangeConfiguration: recorded.configEmitter.event,
};

export const commands = {
  registerCommand(id: string, fn: (...a: unknown[]) => unknown) {
    recorded.commands.set(id, fn);
    return { dispose: () => recorded.commands.delete(id) };
  },
  executeCommand(id: string): Promise<unknown> {
    recorded.executed.push(id);
    return Promise.resolve(recorded.commands.get(id)?.());
  },
};

/** install makes require("vscode") return this module. */
export function install(): void {
  const m = Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown };
  const load = m._load;
  m._load = function (req: string, ...rest: unknown[]) {
    if (req === "vscode") return exports;
    return load.call(this, req, ...rest);
  };
}
