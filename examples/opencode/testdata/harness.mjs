// A stand-in for OpenCode's plugin host, for the tests in
// examples/opencode_test.go: it loads the plugin as OpenCode does (an ES
// module whose exported functions receive the plugin context and return
// hooks), then reads one event per line on stdin and passes each to the
// plugin's event hook, answering "ok" once the hook has returned. End of
// input ends the process, as OpenCode exiting would.
//
// The context is a stub of what OpenCode passes: project, directory,
// worktree, client (the SDK) and $ (Bun's shell); the plugin uses only
// directory. https://opencode.ai/docs/plugins/
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [pluginPath, directory] = process.argv.slice(2);
const mod = await import(pathToFileURL(pluginPath).href);
const ctx = {
  project: { id: "prj_test", worktree: directory },
  directory,
  worktree: directory,
  client: new Proxy({}, { get: () => () => { throw new Error("the plugin must not call the SDK"); } }),
  $: () => { throw new Error("the plugin must not run shell commands"); },
};
const hooks = [];
for (const [name, fn] of Object.entries(mod)) {
  if (typeof fn === "function") hooks.push(await fn(ctx));
}
process.stdout.write(JSON.stringify({ pid: process.pid, plugins: hooks.length }) + "\n");
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  const event = JSON.parse(line);
  for (const h of hooks) {
    if (h.event) await h.event({ event });
  }
  process.stdout.write("ok\n");
}
