#!/usr/bin/env node
// Makes the npm packages of a release from GoReleaser's dist/:
//
//   dist/npm/agentstatus/      the package users install: launchers for
//                              statusls, statuspub and statusconform, and
//                              one optional dependency per platform
//   dist/npm/<os>-<cpu>/       @agentstatus/<os>-<cpu>: that platform's
//                              binaries, with "os" and "cpu" fields, so
//                              that npm installs only the one that fits
//
// All at the release's version (dist/metadata.json). No install script,
// no download at install time. Usage: node packaging/npm/generate.mjs [DIST]

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");
const dist = path.resolve(process.argv[2] ?? path.join(root, "dist"));

// GoReleaser's names to Node's process.platform and process.arch.
const osNames = { linux: "linux", darwin: "darwin", windows: "win32", freebsd: "freebsd" };
const cpuNames = { amd64: "x64", arm64: "arm64" };
// Every command goes into the platform package: statusls-jq and
// statuspub-install are helpers that statusls and statuspub start from
// their own directory.
const commands = ["statusls", "statusls-jq", "statuspub", "statuspub-install", "statusconform"];

function fail(msg) {
  process.stderr.write(`generate.mjs: ${msg}\n`);
  process.exit(1);
}

function readJSON(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    fail(`${file}: ${err.message} (run goreleaser first)`);
  }
}

const { version } = readJSON(path.join(dist, "metadata.json"));
if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version ?? "")) {
  fail(`dist/metadata.json: version ${JSON.stringify(version)} is not semver`);
}
const main = readJSON(path.join(here, "agentstatus", "package.json"));
const out = path.join(dist, "npm");
fs.rmSync(out, { recursive: true, force: true });

// The platforms, from the binaries GoReleaser built.
const platforms = new Map();
for (const a of readJSON(path.join(dist, "artifacts.json"))) {
  if (a.type !== "Binary" || !commands.includes(a.extra?.ID)) continue;
  const os = osNames[a.goos];
  const cpu = cpuNames[a.goarch];
  if (!os || !cpu) fail(`${a.path}: no npm platform for ${a.goos}/${a.goarch}`);
  const key = `${os}-${cpu}`;
  if (!platforms.has(key)) platforms.set(key, { os, cpu, files: [] });
  platforms.get(key).files.push(a);
}
if (platforms.size === 0) fail(`${dist}/artifacts.json lists no binaries`);

const common = {
  version,
  homepage: main.homepage,
  bugs: main.bugs,
  repository: main.repository,
  license: main.license,
};

const optional = {};
for (const [key, p] of [...platforms].sort()) {
  const name = `@agentstatus/${key}`;
  const dir = path.join(out, key);
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  const got = p.files.map((a) => a.extra.ID).sort();
  const missing = commands.filter((c) => !got.includes(c));
  if (missing.length) fail(`${name}: no ${missing.join(", ")} built for ${key}`);
  for (const a of p.files) {
    const dst = path.join(dir, "bin", path.basename(a.path));
    fs.copyFileSync(path.resolve(root, a.path), dst);
    fs.chmodSync(dst, 0o755);
  }
  const pkg = {
    name,
    ...common,
    description: `The agentstatus commands for ${p.os} ${p.cpu}; install agentstatus, which picks this package`,
    os: [p.os],
    cpu: [p.cpu],
    files: ["bin"],
    preferUnplugged: true,
  };
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  fs.copyFileSync(path.join(root, "LICENSE"), path.join(dir, "LICENSE"));
  optional[name] = version;
}

const top = path.join(out, "agentstatus");
fs.cpSync(path.join(here, "agentstatus"), top, { recursive: true });
fs.copyFileSync(path.join(root, "LICENSE"), path.join(top, "LICENSE"));
fs.copyFileSync(path.join(root, "README.md"), path.join(top, "README.md"));
fs.writeFileSync(
  path.join(top, "package.json"),
  JSON.stringify({ ...main, version, optionalDependencies: optional }, null, 2) + "\n",
);

process.stdout.write(`generate.mjs: agentstatus ${version} and ${platforms.size} platform packages in ${out}: ${[...platforms.keys()].join(" ")}\n`);
