// Which integrated terminal a session runs in: the record's pid is the
// agent's process; it runs in a terminal when the terminal's shell is that
// process or one of its ancestors. Ancestors come from /proc on Linux
// (where the extension host runs next to the terminals, code-server
// included); elsewhere only the shell itself matches. No vscode import.

import { promises as fsp } from "node:fs";

/** parentOf returns the parent pid of pid, or null when it is unknown or gone. */
export type ParentOf = (pid: number) => Promise<number | null>;

/** procParent reads the parent pid from /proc/PID/stat (Linux), else null. */
export const procParent: ParentOf = async (pid) => {
  if (process.platform !== "linux") return null;
  try {
    const stat = await fsp.readFile(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(rest[1]);
    return Number.isInteger(ppid) && ppid > 0 ? ppid : null;
  } catch {
    return null;
  }
};

const MAX_DEPTH = 64;

/**
 * findShell returns the first of shells (terminal shell pids) that is pid
 * or one of its ancestors, or null. It stops at init, a loop, or 64 steps.
 */
export async function findShell(pid: number | null, shells: readonly number[], parentOf: ParentOf = procParent): Promise<number | null> {
  if (pid === null || pid <= 0 || shells.length === 0) return null;
  const want = new Set(shells);
  const seen = new Set<number>();
  let p: number | null = pid;
  for (let i = 0; p !== null && p > 1 && i < MAX_DEPTH && !seen.has(p); i++) {
    if (want.has(p)) return p;
    seen.add(p);
    p = await parentOf(p);
  }
  return null;
}
