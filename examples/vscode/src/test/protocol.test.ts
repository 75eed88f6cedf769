import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import {
  decode, fileName, formatTime, isFresh, list, locate, nextBoundary, parseTime, Refused, sanitizeText, sanitizeTitle,
  STALE_AFTER_NS, view, why,
} from "../protocol";
import { SEC, statusDir, write } from "./helpers";

const x = (n: number) => "x".repeat(n);

describe("sanitizeTitle", () => {
  const cases: [string, string, string][] = [
    // SPEC.md §7.1
    ["cursor up keeps text", "\x1b[2Ahello Jim", "hello Jim"],
    ["dcs", "\x1bP payload \x1b\\ ok", "ok"],
    ["unterminated osc", "\x1b]0;title", ""],
    ["8-bit csi", "\u009b31mx", "x"],
    ["arabic letter mark", "a\u061cb", "a b"],
    // steps 2 to 5
    ["sgr", "\x1b[31mred\x1b[0m", "red"],
    ["sgr newline rlo", "\x1b[31munsafe\x1b[0m\n\u202e title", "unsafe title"],
    ["osc 8 st", "\x1b]8;;https://example.com\x1b\\safe\x1b]8;;\x1b\\", "safe"],
    ["osc 8 bel", "\x1b]8;;https://example.com\x07safe\x1b]8;;\x07", "safe"],
    ["esc interrupts csi", "\x1b[31\x1b[1mx", "x"],
    ["esc before non-ascii", "a\x1bé", "aé"],
    ["esc esc st ends a string", "a\x1b]t\x1b\x1b\\b", "ab"],
    ["bel inside dcs", "a\x1bPq\x07x\x1b\\b", "ab"],
    ["8-bit st alone", "a\u009cb", "a b"],
    ["csi aborted by a control", "a\x1b[3\nb", "a b"],
    ["esc charset", "a\x1b(Bb", "ab"],
    ["zwj and variation selector kept", "👩\u200d💻 ❤\ufe0f", "👩\u200d💻 ❤\ufe0f"],
    ["invisible", "a\u200bb\u2060c\ufeffd\u2066e", "a b c d e"],
    ["white space collapsed", "  a \u00a0\u3000 b\t\n", "a b"],
    ["only controls", "\x00\x01\x1f\x7f\u0085", ""],
    ["lone surrogate", "a\ud800b", "a\ufffdb"],
    // step 1 and 6: the cut
    ["4096 units kept", x(4096), x(4096)],
    ["4097 units cut, last cluster dropped", x(4097), x(4095)],
    ["cut between surrogates", x(4095) + "👩🏽\u200d💻", x(4095)],
    ["cut inside zwj sequence", x(4094) + "👩\u200d💻", x(4094)],
    ["cut after a whole flag", x(4092) + "🇫🇷🇫🇷", x(4092)],
    ["cut inside combining sequence", x(4095) + "e\u0301", x(4095)],
    ["cut counts units before removing escapes", "\x1b[31m" + x(4091) + "yy", x(4090)],
    ["drop after trim", x(4094) + " yz", x(4094)],
  ];
  for (const [name, raw, want] of cases) {
    test(name, () => {
      const got = sanitizeTitle(raw);
      assert.equal(got, want);
      assert.equal(sanitizeTitle(got), got, "sanitizing again changes nothing");
    });
  }

  test("reason caps: 200 units for detail, 64 for kind", () => {
    assert.equal(sanitizeTitle(x(200), 200), x(200));
    assert.equal(sanitizeTitle(x(201), 200), x(199));
    assert.equal(sanitizeTitle("k".repeat(65), 64), "k".repeat(63));
    assert.equal(sanitizeTitle(x(199) + "🙂", 200), x(199));
  });

  test("properties on random text", () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = ["a", " ", "\x1b", "[", "]", "P", "\\", "\x07", "\u009b", "\u009c", "\u009d", "\u0090", "1", ";", "m",
      "\n", "\t", "\u202e", "\u200d", "👩", "🇫", "\u0301", "é", "\ud800", "\udc00", "\u3000", "\u00a0", "\ufe0f"];
    for (let i = 0; i < 2000; i++) {
      let raw = "";
      const len = rand(3) === 0 ? 4090 + rand(12) : rand(40);
      while (raw.length < len) raw += alphabet[rand(alphabet.length)];
      const got = sanitizeTitle(raw);
      assert.ok(got.length <= 4096);
      assert.equal(sanitizeTitle(got), got, JSON.stringify(raw));
      assert.ok(!/[\x00-\x1f\x7f-\x9f\u061c\u200b\u200c\u200e\u200f\u2028-\u202e\u2060-\u206f\ufeff]/.test(got), JSON.stringify(got));
      assert.ok(!/^ | $|  /.test(got));
      assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(got), "well-formed");
    }
  });
});

test("sanitizeText keeps spacing", () => {
  const cases: [string, string][] = [
    ["/home/me/my  project", "/home/me/my  project"],
    ["\x1b[31mpi\x1b[0m", "pi"],
    ["a\tb\nc", "a b c"],
    ["  x  ", "  x  "],
    ["\x1b]0;t", ""],
    ["a\u00a0b\u3000c", "a b c"],
  ];
  for (const [raw, want] of cases) assert.equal(sanitizeText(raw), want, JSON.stringify(raw));
});

test("parseTime and formatTime", () => {
  const cases: [string, string | null][] = [
    ["2026-07-17T12:34:56.000Z", "2026-07-17T12:34:56.000Z"],
    ["2026-07-17t12:34:56z", "2026-07-17T12:34:56.000Z"],
    ["2026-07-17T12:34:56.123456789999Z", "2026-07-17T12:34:56.123Z"],
    ["2026-07-17T14:34:56.5+02:00", "2026-07-17T12:34:56.500Z"],
    ["2026-07-17T10:04:56-02:30", "2026-07-17T12:34:56.000Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"],
    ["0000-02-29T00:00:00Z", "0000-02-29T00:00:00.000Z"],
    ["1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z"],
    ["2026-02-30T00:00:00Z", null],
    ["1900-02-29T00:00:00Z", null],
    ["2026-07-17T23:59:60Z", null],
    ["2026-07-17T12:34:56.Z", null],
    ["2026-07-17T12:34:56", null],
    ["2026-07-17 12:34:56Z", null],
    ["2026-07-17T12:34:56+0200", null],
    ["2026-07-17T12:34:56Z ", null],
    ["２026-07-17T12:34:56Z", null],
  ];
  for (const [s, want] of cases) {
    const t = parseTime(s);
    assert.equal(t === null ? null : formatTime(t), want, s);
  }
  assert.equal(parseTime("1970-01-01T00:00:00.000000001Z"), 1n);
});

test("freshness at full precision", () => {
  const t = parseTime("2026-07-17T12:34:56.000Z")!;
  const cases: [bigint, boolean][] = [
    [t + STALE_AFTER_NS, true],
    [t + STALE_AFTER_NS + 1n, false],
    [t + STALE_AFTER_NS + 500_000n, false],
    [t - STALE_AFTER_NS, true],
    [t - STALE_AFTER_NS - 1n, false],
  ];
  for (const [now, fresh] of cases) assert.equal(isFresh(t, now), fresh, String(now - t));
  assert.equal(nextBoundary(t, t), t + STALE_AFTER_NS + 1n, "fresh: just after 30 s");
  assert.equal(nextBoundary(t, t - 60n * SEC), t - STALE_AFTER_NS, "future: when it comes within 30 s");
  assert.equal(nextBoundary(t, t + 31n * SEC), null, "stale for good");
});

describe("decode", () => {
  const rec = (extra: string) =>
    `{"schema":"gentle-shell.agent-status/v1","agent":"pi","session":"s-1","pid":4242,"cwd":"/w","state":"working","task":{"title":"T"},"updatedAt":"2026-07-17T12:34:56.000Z"${extra}}`;
  const bad: [string, string, string][] = [
    ["empty", "", "empty"],
    ["white space", " \n\t\r", "empty"],
    ["byte order mark", "\ufeff" + rec(""), "bad-json"],
    ["trailing garbage", rec("") + "x", "bad-json"],
    ["two objects", rec("") + rec(""), "bad-json"],
    ["array", "[]", "not-object"],
    ["null", "null", "not-object"],
    ["other schema", rec(',"schema":"gentle-shell.agent-status/v2"'), "unsupported-schema"],
    ["session null", rec(',"session":null'), "missing-field"],
    ["session empty", rec(',"session":""'), "bad-value"],
    ["state number", rec(',"state":1'), "wrong-type"],
    ["updatedAt not a time", rec(',"updatedAt":"yesterday"'), "bad-value"],
    ["agent number", rec(',"agent":1'), "wrong-type"],
    ["pid string", rec(',"pid":"1"'), "wrong-type"],
    ["pid fraction", rec(',"pid":1.5'), "bad-value"],
    ["pid negative", rec(',"pid":-1'), "bad-value"],
    ["pid too large", rec(',"pid":2147483648'), "bad-value"],
    ["pid rounds to 2^31", rec(',"pid":2147483647.9999999999999'), "bad-value"],
    ["pid infinite", rec(',"pid":1e400'), "bad-value"],
    ["task string", rec(',"task":"T"'), "wrong-type"],
    ["task array", rec(',"task":[]'), "wrong-type"],
    ["title number", rec(',"task":{"title":1}'), "wrong-type"],
  ];
  for (const [name, text, reason] of bad) {
    test(name, () => assert.throws(() => decode(Buffer.from(text)), (e: { reason: string }) => e.reason === reason));
  }

  test("tolerance", () => {
    const r = decode(Buffer.from(rec(',"pid":4.242e3,"agent":null,"cwd":null,"task":{"title":null,"x":1},"new":{"a":[1]}')));
    assert.deepEqual([r.pid, r.agent, r.cwd, r.title], [4242, null, null, null]);
    assert.equal(decode(Buffer.from(rec(',"pid":-0'))).pid, 0);
    assert.equal(decode(Buffer.from(rec(',"state":"reviewing"'))).state, "reviewing");
    assert.equal(decode(Buffer.from(rec(',"sess\\u0069on":"s-2"'))).session, "s-2");
    const u = decode(Buffer.concat([Buffer.from(rec(',"task":{"title":"a').slice(0, -1)), Buffer.from([0xe2, 0x82, 0x41, 0xff]), Buffer.from('\\ud800"}}')]));
    assert.equal(u.title, "a\ufffdA\ufffd\ufffd");
  });

  test("the name is the hash of the session as read", () => {
    assert.equal(fileName("s-1"), "6a840baf5d8c3ff241688aeb14546e653774cd5387faf1cb982b0fbbf1fbb810.json");
    assert.equal(fileName("a\ud800"), fileName("a\ufffd"));
  });
});

describe("reason keys", () => {
  const base = { session: "s", agent: "a", pid: 0, cwd: null, title: null, updatedAt: 0n };
  const blocked = (w: unknown) =>
    view({ ...base, state: "blocked", ended: null, waitingFor: decode(Buffer.from(JSON.stringify({
      schema: "gentle-shell.agent-status/v1", session: "s", state: "blocked", updatedAt: "2026-07-17T12:34:56.000Z", waitingFor: w,
    }))).waitingFor });
  const idle = (e: unknown) =>
    view({ ...base, state: "idle", waitingFor: null, ended: decode(Buffer.from(JSON.stringify({
      schema: "gentle-shell.agent-status/v1", session: "s", state: "idle", updatedAt: "2026-07-17T12:34:56.000Z", ended: e,
    }))).ended });
  const since = "2026-07-17T12:34:50.000Z";
  // A record with its background key (Y8), in its state with its own key.
  const background = (state: string, b: unknown, own: object = {}) =>
    view(decode(Buffer.from(JSON.stringify({
      schema: "gentle-shell.agent-status/v1", session: "s", state, updatedAt: "2026-07-17T12:34:56.000Z", ...own, background: b,
    }))));
  const cases: [string, ReturnType<typeof view>, string][] = [
    ["permission, tool and detail", blocked({ kind: "permission", tool: "Bash", detail: "rm -rf build", since }), "Bash: rm -rf build"],
    ["permission, tool only", blocked({ kind: "permission", tool: "Bash", detail: null, since }), "Bash"],
    ["permission, detail only", blocked({ kind: "permission", tool: null, detail: "rm x", since }), "permission: rm x"],
    ["question", blocked({ kind: "question", tool: null, detail: "Which database?", since }), "question: Which database?"],
    ["question alone", blocked({ kind: "question", tool: null, detail: null, since }), "question"],
    ["auth", blocked({ kind: "auth", tool: null, detail: null, since }), "auth"],
    ["unknown kind", blocked({ kind: "payment", tool: "x", detail: "card", since }), "payment: card"],
    ["tool not a string", blocked({ kind: "permission", tool: 1, detail: "d", since }), "permission: d"],
    ["kind missing: key ignored", blocked({ tool: "Bash" }), ""],
    ["kind empty: key ignored", blocked({ kind: "" }), ""],
    ["not an object", blocked("permission"), ""],
    ["detail sanitized and capped", blocked({ kind: "question", detail: "\x1b[31mwhy\x1b[0m\n" + x(300) }), "question: why " + x(186)], // cut at 200 units of the raw text, escapes included,
    ["done", idle({ reason: "done", detail: null, at: since }), "done"],
    ["cancelled", idle({ reason: "cancelled", detail: "x", at: since }), "cancelled"],
    ["failed", idle({ reason: "failed", detail: "server_error", at: since }), "failed: server_error"],
    ["failed alone", idle({ reason: "failed" }), "failed"],
    ["rate limited", idle({ reason: "rate_limited", detail: "429", at: since }), "rate limited"],
    ["unknown reason", idle({ reason: "timeout", detail: "5m", at: since }), "timeout: 5m"],
    ["unknown reason alone", idle({ reason: "timeout" }), "timeout"],
    ["background agent alone while working", background("working", { agents: 1 }), "1 background agent"],
    ["background tasks alone while working", background("working", { tasks: 2 }), "2 background tasks"],
    ["background both", background("working", { agents: 2, tasks: 1, monitors: 3 }), "2 background agents, 1 background task"],
    ["background after done", background("idle", { tasks: 1 }, { ended: { reason: "done" } }), "done; 1 background task"],
    ["background after a wait", background("blocked", { agents: 1 }, { waitingFor: { kind: "permission", tool: "Bash", detail: "sleep 8" } }), "Bash: sleep 8; 1 background agent"],
    ["background 2.0 is 2", background("working", { agents: 2.0, tasks: 1e0 }), "2 background agents, 1 background task"],
    ["background counts ignored", background("idle", { agents: -1, tasks: "2" }, { ended: { reason: "done" } }), "done"],
    ["background not an object", background("working", [1, 2]), ""],
  ];
  for (const [name, v, want] of cases) test(name, () => assert.equal(why(v), want));

  test("shown only with their state, times in T1 or null", () => {
    const text = (state: string) => JSON.stringify({
      schema: "gentle-shell.agent-status/v1", session: "s", state, updatedAt: "2026-07-17T12:34:56.000Z",
      waitingFor: { kind: "question", tool: null, detail: null, since: "2026-07-17T14:34:50+02:00" },
      ended: { reason: "done", detail: null, at: "not a time" },
    });
    const b = view(decode(Buffer.from(text("blocked"))));
    assert.deepEqual(b.waitingFor, { kind: "question", tool: null, detail: null, since: "2026-07-17T12:34:50.000Z" });
    assert.equal(b.ended, null);
    const i = view(decode(Buffer.from(text("idle"))));
    assert.deepEqual(i.ended, { reason: "done", detail: null, at: null });
    assert.equal(i.waitingFor, null);
    const w = view(decode(Buffer.from(text("working"))));
    assert.deepEqual([w.waitingFor, w.ended], [null, null]);
  });
});

test("locate", () => {
  const env = (m: { [k: string]: string }) => ({ env: m });
  const cases: [string, Parameters<typeof locate>[0], string][] = [
    ["dir setting wins", { dir: "/d", configHome: "/c", ...env({ STATUS_DIR: "/s" }) }, "/d"],
    ["config home setting next", { configHome: "/c", ...env({ STATUS_DIR: "/s" }) }, "/c/agent-status"],
    ["STATUS_DIR", env({ STATUS_DIR: "/s", GENTLE_PI_CONFIG_HOME: "/g", HOME: "/h" }), "/s"],
    ["GENTLE_PI_CONFIG_HOME", env({ GENTLE_PI_CONFIG_HOME: "/g", HOME: "/h" }), "/g/agent-status"],
    ["empty is unset", env({ STATUS_DIR: "", GENTLE_PI_CONFIG_HOME: "", HOME: "/h" }), "/h/.pi/gentle-ai/agent-status"],
    ["no HOME: the home directory", { env: {}, homedir: () => "/u" }, "/u/.pi/gentle-ai/agent-status"],
  ];
  for (const [name, opts, want] of cases) assert.equal(locate(opts).dir, path.resolve(want), name);
  assert.throws(() => locate({ env: {}, homedir: () => "" }));
});

describe("list", () => {
  const now = parseTime("2026-07-17T12:35:00.000Z")!;

  test("verdicts, in file-name order", async () => {
    const dir = statusDir();
    const a = write(dir, { session: "a", updatedAt: now - 5n * SEC });
    const b = write(dir, { session: "b", updatedAt: now - 31n * SEC });
    fs.writeFileSync(path.join(dir, fileName("c")), "{}", { mode: 0o600 });
    fs.writeFileSync(path.join(dir, "x.json"), "{}", { mode: 0o600 }); // not a status name
    fs.writeFileSync(path.join(dir, fileName("d")), " ".repeat(65537), { mode: 0o600 });
    fs.symlinkSync(path.join(dir, a), path.join(dir, fileName("e")));
    fs.writeFileSync(path.join(dir, fileName("f")), fs.readFileSync(path.join(dir, a)), { mode: 0o600 }); // a copy
    const got = new Map((await list(dir, now)).map((e) => [e.name, e.verdict === "invalid" ? e.reason : e.verdict]));
    assert.deepEqual(Object.fromEntries(got), {
      [a]: "fresh", [b]: "stale", [fileName("c")]: "unsupported-schema", [fileName("d")]: "too-large",
      [fileName("e")]: "symlink", [fileName("f")]: "name-mismatch",
    });
    const names = [...got.keys()];
    assert.deepEqual(names, [...names].sort());
  });

  test("a missing directory is empty", async () => {
    assert.deepEqual(await list(path.join(statusDir(), "missing"), now), []);
  });

  if (process.platform !== "win32") {
    const refused: [string, (dir: string) => string][] = [
      ["group-writable", (d) => (fs.chmodSync(d, 0o770), d)],
      ["other-writable", (d) => (fs.chmodSync(d, 0o703), d)],
      ["a symbolic link", (d) => (fs.symlinkSync(d, d + "-link"), d + "-link")],
      ["a file", (d) => (fs.writeFileSync(d + "-file", ""), d + "-file")],
    ];
    for (const [name, make] of refused) {
      test(`refuses a directory that is ${name}`, async () => {
        const dir = statusDir();
        write(dir, { session: "a", updatedAt: now });
        await assert.rejects(list(make(dir), now), Refused);
      });
    }
    test("accepts a directory readable by others", async () => {
      const dir = statusDir();
      write(dir, { session: "a", updatedAt: now });
      fs.chmodSync(dir, 0o755);
      assert.equal((await list(dir, now)).length, 1);
    });
  }
});
