// The extension's reader logic as a command, for the conformance suite
// (`statusconform reader -- node out/reader-cli.js`): it lists the status
// directory (SPEC.md §2: $STATUS_DIR, else the config home's) as of
// $STATUSCONFORM_NOW, or the real clock, and prints one JSON object per
// fresh session: session, agent, state, pid, cwd, title, and the reason
// keys waitingFor and ended (null when none), every string sanitized.
// Exit status 1, with a line on standard error, for a refused directory
// (R2, R23).

import { list, locate, nowNs, parseTime, Refused, view } from "./protocol";

async function main(): Promise<number> {
  const nowText = process.env.STATUSCONFORM_NOW;
  const now = nowText ? parseTime(nowText) : nowNs();
  if (now === null) {
    process.stderr.write("reader-cli: STATUSCONFORM_NOW is not an RFC 3339 time\n");
    return 2;
  }
  let entries;
  try {
    entries = await list(locate().dir, now);
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    process.stderr.write(`reader-cli: refusing ${e.message}\n`);
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
  process.stdout.write(out);
  return 0;
}

main().then((code) => {
  process.exitCode = code;
}, (e) => {
  process.stderr.write(`reader-cli: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
