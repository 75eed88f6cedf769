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
//
// With several directories, it is one OpenCode process serving several
// project folders (`opencode serve`): the plugin is loaded once per folder,
// and each instance sees only its folder's events. An event line
// {"to":I,"event":{...}} goes to the instance of the I-th directory; a
// bare event to the first. HARNESS_IMPORT=copies imports the file afresh
// for each folder, as two installed copies of it (global and --project)
// would be; by default the module is imported once, as OpenCode does for
// one file.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [pluginPath, ...directories] = process.argv.slice(2);
const instances = [];
for (const [i, directory] of directories.entries()) {
  let url = pathToFileURL(pluginPath).href;
  if (process.env.HARNESS_IMPORT === "copies") url += `?copy=${i}`;
  const mod = await import(url);
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
  instances.push(hooks);
}
process.stdout.write(JSON.stringify({ pid: process.pid, plugins: instances[0].length, instances: instances.length }) + "\n");
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  let msg = JSON.parse(line);
  if (!("to" in msg)) msg = { to: 0, event: msg };
  for (const h of instances[msg.to]) {
    if (h.event) await h.event({ event: msg.event });
  }
  process.stdout.write("ok\n");
}
