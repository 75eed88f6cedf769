// A server for examples/vscode_test.go: the extension's reader logic
// (readerMain, what reader-cli.js runs) in one long-lived process, as in
// VS Code's extension host, rather than a Node start per conformance case.
// Each connection to the Unix socket named by the first argument sends one
// line, the environment of the case as a JSON object, and gets one line
// back, {"code": exit status, "stdout": ..., "stderr": ...}. "ready" on
// standard output says it listens; it exits at the end of standard input.

import * as net from "node:net";
import { readerMain } from "../reader-cli";

const server = net.createServer((conn) => {
  let line = "";
  conn.setEncoding("utf8");
  conn.on("error", () => conn.destroy());
  conn.on("data", (chunk: string) => {
    line += chunk;
    const nl = line.indexOf("\n");
    if (nl < 0) return;
    conn.removeAllListeners("data");
    const env = JSON.parse(line.slice(0, nl)) as NodeJS.ProcessEnv;
    let stdout = "";
    let stderr = "";
    readerMain(env, { write: (s: string) => (stdout += s) }, { write: (s: string) => (stderr += s) }).then((code) => {
      conn.end(JSON.stringify({ code, stdout, stderr }) + "\n");
    });
  });
});
server.listen(process.argv[2], () => process.stdout.write("ready\n"));
process.stdin.resume();
process.stdin.on("end", () => server.close(() => process.exit(0)));
