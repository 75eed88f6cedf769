"use strict";
// Starts one of the agentstatus commands from the package of prebuilt
// binaries that npm installed for this platform (@agentstatus/<os>-<cpu>,
// an optional dependency of agentstatus chosen by its "os" and "cpu"
// fields): no install script, no download.

const { spawn } = require("node:child_process");

const commands = ["statusls", "statuspub", "statusconform"];

function binary(name) {
  const pkg = `@agentstatus/${process.platform}-${process.arch}`;
  const file = name + (process.platform === "win32" ? ".exe" : "");
  try {
    return require.resolve(`${pkg}/bin/${file}`);
  } catch {
    process.stderr.write(
      `${name}: no ${pkg} package next to agentstatus: npm installs it with agentstatus on ` +
        `linux, darwin, win32 and freebsd (x64, arm64) unless optional dependencies are omitted\n` +
        `${name}: hint: npm install -g agentstatus (without --omit=optional)\n`,
    );
    process.exit(1);
  }
}

// run starts the command name with args and ends this process as it
// ends: the same exit status, or the same signal.
function run(name, args) {
  const child = spawn(binary(name), args, { stdio: "inherit" });
  // The terminal sends SIGINT (and SIGQUIT) to the whole foreground
  // group, the command included: this process only waits for the
  // command to decide (statuspub run hands Ctrl-C to the agent). A
  // SIGTERM or SIGHUP sent to this process alone is passed on.
  const ignore = () => {};
  const pass = (sig) => child.kill(sig);
  process.on("SIGINT", ignore);
  if (process.platform !== "win32") process.on("SIGQUIT", ignore);
  process.on("SIGTERM", pass);
  process.on("SIGHUP", pass);
  child.on("error", (err) => {
    process.stderr.write(`${name}: ${err.message}\n`);
    process.exit(126);
  });
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code);
  });
}

// main is the "agentstatus" command, for npx: agentstatus statusls demo.
function main(args) {
  if (!commands.includes(args[0])) {
    process.stderr.write(
      (args.length ? `agentstatus: unknown command "${args[0]}"\n` : "") +
        `usage: agentstatus ${commands.join("|")} [arguments]\n` +
        `  npx agentstatus statusls demo\n`,
    );
    process.exit(2);
  }
  run(args[0], args.slice(1));
}

module.exports = { run, main };
