// The extension's reader logic as a command, for the conformance suite
// (`statusconform reader -- node out/reader-cli.js`): it lists the status
// directory (SPEC.md §2: $STATUS_DIR, else the config home's) as of
// $STATUSCONFORM_NOW, or the real clock, and prints one JSON object per
// fresh session: session, agent, state, pid, cwd, title, and the reason
// keys waitingFor and ended (null when none), every string sanitized.
// Exit status 1, with a line on standard error, for a refused directory
// (R2, R23).
//
// readerMain is the whole command but for the process around it:
// src/test/reader-server.ts runs it for the Go tests, one call per case.

import { list, locate, nowNs, parseTime, Refused, view } from "./protocol";

/** Output is where readerMain writes: standard output or standard error. */
export interface Output {
  write(s: string): unknown;
}

/**
 * readerMain lists the status directory that env names, writes the lines
 * to out and errors to err, and returns the exit status.
 */
export async function readerMain(env: NodeJS.ProcessEnv, out: Output, err: Output): Promise<number> {
  try {
    return await listFresh(env, out, err);
  } catch (e) {
    err.write(`reader-cli: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

async function listFresh(env: NodeJS.ProcessEnv, stdout: Output, stderr: Output): Promise<number> {
  const nowText = env.STATUSCONFORM_NOW;
  const now = nowText ? parseTime(nowText) : nowNs();
  if (now === null) {
    stderr.write("reader-cli: STATUSCONFORM_NOW is not an RFC 3339 time\n");
    return 2;
  }
  let entries;
  try {
    entries = await list(locate({ env }).dir, now);
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    stderr.write(`reader-cli: refusing ${e.message}\n`);
    return 1;
  }
  let out = "";
  for (const e of entries) {
    if (e.verdict !== "fresh") continue;
    const v = view(e.record);
    out += JSON.stringify({
      session: v.session, agent: v.agent, state: v.state, pid: v.pid, cwd: v.cwd, title: v.title,
      waitingFor: v.waitingFor, ended: v.ended,
    }) + "\n";
  }
  stdout.write(out);
  return 0;
}

if (require.main === module) {
  readerMain(process.env, process.stdout, process.stderr).then((code) => {
    process.exitCode = code;
  });
}
