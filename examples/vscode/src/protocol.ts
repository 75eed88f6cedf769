// The gentle-shell.agent-status/v1 reader rules (SPEC.md), for plain Node:
// where the status directory is (§2), what a reader refuses (§8), how a
// record is decoded (§4, §5 C1–C7), when it is fresh (§6), how every string
// is sanitized for display (§7), and the reason keys waitingFor and ended
// with the words every reader shows for them. Nothing here imports vscode:
// the extension, the reader command of the conformance suite and the tests
// all run this module.

import { createHash } from "node:crypto";
import { constants as fsc, promises as fsp } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export const SCHEMA = "gentle-shell.agent-status/v1";
/** A record at most this old (or this far in the future) is fresh (FR1, FR2). */
export const STALE_AFTER_NS = 30_000_000_000n;
/** The largest status file a reader reads (R6). */
export const MAX_FILE = 65536;
/** The UTF-16 units of a raw title the sanitizer looks at (§7 step 1). */
export const MAX_TITLE_UNITS = 4096;
/** The caps of the reason keys' strings. */
export const MAX_DETAIL_UNITS = 200;
export const MAX_KIND_UNITS = 64;
const MAX_PID = 2 ** 31 - 1;

// ---------------------------------------------------------------- location

/** Where the status directory was found, and why (SPEC.md L1–L4). */
export interface Location {
  dir: string;
  configHome: string;
  source: string;
}

export interface LocateOptions {
  /** Like statusls --dir: the status directory itself. */
  dir?: string;
  /** Like statusls --config-home. */
  configHome?: string;
  env?: Record<string, string | undefined>;
  /** The user's home directory when $HOME is not set. */
  homedir?: () => string;
}

/**
 * locate resolves the directory a reader lists, highest first: the dir
 * setting, the configHome setting, $STATUS_DIR, $GENTLE_PI_CONFIG_HOME, then
 * ~/.pi/gentle-ai (~ is $HOME when set, else the user's home directory).
 * Empty values count as unset. It throws when no home directory is known.
 */
export function locate(opts: LocateOptions = {}): Location {
  const env = opts.env ?? process.env;
  const fromDir = (d: string, source: string): Location => {
    const abs = path.resolve(d);
    return { dir: abs, configHome: path.dirname(abs), source };
  };
  const fromHome = (h: string, source: string): Location => {
    const abs = path.resolve(h);
    return { dir: path.join(abs, "agent-status"), configHome: abs, source };
  };
  if (opts.dir) return fromDir(opts.dir, "setting agentstatus.statusDir");
  if (opts.configHome) return fromHome(opts.configHome, "setting agentstatus.configHome");
  if (env.STATUS_DIR) return fromDir(env.STATUS_DIR, "$STATUS_DIR");
  if (env.GENTLE_PI_CONFIG_HOME) return fromHome(env.GENTLE_PI_CONFIG_HOME, "$GENTLE_PI_CONFIG_HOME");
  let home = env.HOME ?? "";
  if (!home) {
    try {
      home = (opts.homedir ?? os.homedir)();
    } catch {
      home = "";
    }
  }
  if (!home) throw new Error("cannot find the status directory: HOME is not set; set agentstatus.statusDir");
  return fromHome(path.join(home, ".pi", "gentle-ai"), "default (~/.pi/gentle-ai)");
}

// -------------------------------------------------------------------- time

function daysFromCivil(y: number, m: number, d: number): number {
  // Days since 1970-01-01 in the proleptic Gregorian calendar.
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

function daysIn(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

/**
 * parseTime reads an RFC 3339 date-time as SPEC.md T2 says (T or t, any
 * number of fractional digits, digits after the ninth ignored, Z, z or
 * ±HH:MM; no leap second) and returns nanoseconds since the Unix epoch, or
 * null.
 */
export function parseTime(s: string): bigint | null {
  if (s.length < 20) return null;
  const num = (i: number, n: number): number => {
    let v = 0;
    for (let j = i; j < i + n; j++) {
      const c = s.charCodeAt(j);
      if (c < 0x30 || c > 0x39) return -1;
      v = v * 10 + (c - 0x30);
    }
    return v;
  };
  const year = num(0, 4), month = num(5, 2), day = num(8, 2);
  const hour = num(11, 2), min = num(14, 2), sec = num(17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || min < 0 || sec < 0) return null;
  if (s[4] !== "-" || s[7] !== "-" || (s[10] !== "T" && s[10] !== "t") || s[13] !== ":" || s[16] !== ":") return null;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || min > 59 || sec > 59) return null;
  let i = 19;
  let nsec = 0;
  if (s[i] === ".") {
    i++;
    const start = i;
    while (i < s.length && s[i] >= "0" && s[i] <= "9") {
      if (i - start < 9) nsec = nsec * 10 + (s.charCodeAt(i) - 0x30);
      i++;
    }
    let digits = i - start;
    if (digits === 0) return null;
    for (; digits < 9; digits++) nsec *= 10;
  }
  if (i >= s.length) return null;
  let offset = 0;
  const c = s[i];
  if (c === "Z" || c === "z") {
    i++;
  } else if (c === "+" || c === "-") {
    if (s.length - i !== 6 || s[i + 3] !== ":") return null;
    const oh = num(i + 1, 2), om = num(i + 4, 2);
    if (oh < 0 || om < 0 || oh > 23 || om > 59) return null;
    offset = (oh * 60 + om) * 60 * (c === "-" ? -1 : 1);
    i += 6;
  } else {
    return null;
  }
  if (i !== s.length) return null;
  const secs = daysFromCivil(year, month, day) * 86400 + hour * 3600 + min * 60 + sec - offset;
  return BigInt(secs) * 1_000_000_000n + BigInt(nsec);
}

/**
 * splitNanos splits nanoseconds since the epoch into whole seconds and the
 * nanoseconds past them (0 to 999,999,999, also before 1970).
 */
export function splitNanos(ns: bigint): [secs: bigint, nsec: bigint] {
  const secs = ns / 1_000_000_000n;
  const rem = ns % 1_000_000_000n;
  return rem < 0n ? [secs - 1n, rem + 1_000_000_000n] : [secs, rem];
}

/** formatTime writes a time as SPEC.md T1 does: UTC, milliseconds truncated. */
export function formatTime(ns: bigint): string {
  const [secs, rem] = splitNanos(ns);
  const s = Number(secs);
  const days = Math.floor(s / 86400);
  const tod = s - days * 86400;
  const [y, m, d] = civilFromDays(days);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  const year = y < 0 ? "-" + p(-y, 4) : p(y, 4);
  return `${year}-${p(m)}-${p(d)}T${p(Math.floor(tod / 3600))}:${p(Math.floor(tod / 60) % 60)}:${p(tod % 60)}.${p(Number(rem / 1_000_000n), 3)}Z`;
}

/** nowNs is the wall clock in nanoseconds since the epoch. */
export function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

/** isFresh: at most 30 s old and at most 30 s in the future (FR1, FR2). */
export function isFresh(updatedAt: bigint, now: bigint): boolean {
  const age = now - updatedAt;
  return age <= STALE_AFTER_NS && age >= -STALE_AFTER_NS;
}

/**
 * nextBoundary returns the next instant after now at which the record's
 * freshness changes (R17): just after updatedAt + 30 s while it is fresh,
 * updatedAt − 30 s while it is too far in the future, never (null) once
 * it is stale for good.
 */
export function nextBoundary(updatedAt: bigint, now: bigint): bigint | null {
  if (isFresh(updatedAt, now)) return updatedAt + STALE_AFTER_NS + 1n;
  if (updatedAt - now > STALE_AFTER_NS) return updatedAt - STALE_AFTER_NS;
  return null;
}

// ---------------------------------------------------------------- sanitize

/** wellFormed replaces every unpaired surrogate with U+FFFD (C6). */
export function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

// White space of §7 step 4 (Unicode White_Space).
function isWhite(r: number): boolean {
  return (r >= 0x09 && r <= 0x0d) || r === 0x20 || r === 0x85 || r === 0xa0 || r === 0x1680 ||
    (r >= 0x2000 && r <= 0x200a) || r === 0x2028 || r === 0x2029 || r === 0x202f || r === 0x205f || r === 0x3000;
}

/** toSpace: the characters §7 step 3 shows as a space. */
function toSpace(r: number): boolean {
  if (r < 0x20 || r === 0x7f || (r >= 0x80 && r <= 0x9f)) return true;
  if (r === 0x061c || r === 0x200b || r === 0x200c || r === 0x200e || r === 0x200f || r === 0xfeff) return true;
  if ((r >= 0x202a && r <= 0x202e) || (r >= 0x2060 && r <= 0x206f)) return true;
  return isWhite(r);
}

const enum St { Text, Esc, EscInter, CSIParam, CSIInter, OSC, CtrlStr, StrEsc }

/**
 * strip removes escape sequences (§7 step 2) and blanks invisible
 * characters (step 3); with collapse it also collapses white space into
 * single spaces and trims both ends (steps 4 and 5).
 */
function strip(s: string, collapse: boolean): string {
  let out = "";
  let st = St.Text;
  let strKind = St.OSC;
  let pending = false;
  const emit = (ch: string) => {
    if (collapse) {
      if (ch === " ") {
        pending = out.length > 0;
        return;
      }
      if (pending) {
        out += " ";
        pending = false;
      }
    }
    out += ch;
  };
  for (let i = 0; i < s.length;) {
    const r = s.codePointAt(i)!;
    const size = r > 0xffff ? 2 : 1;
    switch (st) {
      case St.Text:
        if (r === 0x1b) st = St.Esc;
        else if (r === 0x9b) st = St.CSIParam;
        else if (r === 0x9d) st = strKind = St.OSC;
        else if (r === 0x90 || r === 0x98 || r === 0x9e || r === 0x9f) st = strKind = St.CtrlStr;
        else emit(toSpace(r) ? " " : s.slice(i, i + size));
        break;
      case St.Esc:
        if (r === 0x5b) st = St.CSIParam; // [
        else if (r === 0x5d) st = strKind = St.OSC; // ]
        else if (r === 0x50 || r === 0x58 || r === 0x5e || r === 0x5f) st = strKind = St.CtrlStr; // P X ^ _
        else if (r >= 0x20 && r <= 0x2f) st = St.EscInter;
        else if (r >= 0x30 && r <= 0x7e) st = St.Text;
        else {
          st = St.Text; // not a sequence: only the ESC goes, r is text again
          continue;
        }
        break;
      case St.EscInter:
        if (r >= 0x20 && r <= 0x2f) {
          // more intermediates
        } else if (r >= 0x30 && r <= 0x7e) st = St.Text;
        else {
          st = St.Text;
          continue;
        }
        break;
      case St.CSIParam:
      case St.CSIInter:
        if (r >= 0x30 && r <= 0x3f && st === St.CSIParam) {
          // parameters
        } else if (r >= 0x20 && r <= 0x2f) st = St.CSIInter;
        else if (r >= 0x40 && r <= 0x7e) st = St.Text;
        else {
          st = St.Text; // interrupted: r is read again as text
          continue;
        }
        break;
      case St.OSC:
      case St.CtrlStr:
        if (r === 0x1b) st = St.StrEsc;
        else if (r === 0x9c) st = St.Text;
        else if (r === 0x07 && st === St.OSC) st = St.Text;
        break;
      case St.StrEsc:
        if (r === 0x5c) st = St.Text; // ESC \ is ST
        else if (r !== 0x1b) {
          st = strKind; // not ST: r belongs to the string, and may end it
          continue;
        }
        break;
    }
    i += size;
  }
  return out;
}

let segmenter: Intl.Segmenter | undefined;

/** dropLastCluster removes the last extended grapheme cluster (UAX #29). */
function dropLastCluster(s: string): string {
  segmenter ??= new Intl.Segmenter("en", { granularity: "grapheme" });
  let last = 0;
  for (const seg of segmenter.segment(s)) last = seg.index;
  return s.slice(0, last);
}

/**
 * sanitizeTitle is SPEC.md §7 exactly: cut at max UTF-16 units (4096 for a
 * title; 200 for tool and detail, 64 for kind and reason), remove escape
 * sequences, blank invisible characters, collapse and trim white space,
 * and when the cut removed anything drop the last grapheme cluster.
 * An empty result means nothing to show.
 */
export function sanitizeTitle(raw: string, max = MAX_TITLE_UNITS): string {
  const s = wellFormed(raw);
  let text = s;
  let cut = false;
  let halfDropped = false;
  if (s.length > max) {
    cut = true;
    text = s.slice(0, max);
    const last = text.charCodeAt(max - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      text = text.slice(0, max - 1); // the lone first half is the dropped cluster
      halfDropped = true;
    }
  }
  let out = strip(text, true);
  if (cut && !halfDropped) out = dropLastCluster(out).replace(/ +$/, "");
  return out;
}

/**
 * sanitizeText makes any other field safe to show (R13): §7 steps 2 and
 * 3 only, every removed character one space, nothing collapsed or cut.
 */
export function sanitizeText(raw: string): string {
  return strip(wellFormed(raw), false);
}

// ------------------------------------------------------------------ decode

/** Why a file is not a session (SPEC.md §10). */
export class Invalid extends Error {
  constructor(readonly reason: string, detail = "") {
    super(detail ? `${reason}: ${detail}` : reason);
  }
}

/** waitingFor as read (keys.md): strings raw, times in ns or null. */
export interface WaitingFor {
  kind: string;
  tool: string | null;
  detail: string | null;
  since: bigint | null;
}

/** ended as read (keys.md). */
export interface Ended {
  reason: string;
  detail: string | null;
  at: bigint | null;
}

/** A decoded record. Strings are as written (after C6), not sanitized. */
export interface StatusRecord {
  session: string;
  agent: string | null;
  pid: number; // 0: unknown
  cwd: string | null;
  state: string;
  title: string | null;
  updatedAt: bigint;
  waitingFor: WaitingFor | null;
  ended: Ended | null;
  background?: Background; // none when absent
}

/** background as read (Y8): the counts, 0 for none. */
export interface Background {
  agents: number;
  tasks: number;
}

const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

type JSONObject = { [k: string]: unknown };

function isObject(v: unknown): v is JSONObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function own(o: JSONObject, k: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/**
 * decode reads a status file's bytes as SPEC.md §4–§5 say, and throws
 * [Invalid] with the reason of §10 for a file that is not a record. Invalid
 * UTF-8 becomes U+FFFD per maximal subpart (TextDecoder does that), as do
 * unpaired surrogate escapes; a byte order mark is kept, so JSON.parse
 * rejects it; duplicate keys: the last counts (JSON.parse does that).
 */
export function decode(data: Uint8Array): StatusRecord {
  const text = utf8.decode(data);
  if (/^[ \t\r\n]*$/.test(text)) throw new Invalid("empty");
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Invalid("bad-json", (e as Error).message);
  }
  if (!isObject(v)) throw new Invalid("not-object", typeName(v));
  const schema = own(v, "schema");
  if (typeof schema !== "string" || wellFormed(schema) !== SCHEMA) throw new Invalid("unsupported-schema");
  const required = (k: string): string => {
    const x = own(v, k);
    if (x === undefined || x === null) throw new Invalid("missing-field", k);
    if (typeof x !== "string") throw new Invalid("wrong-type", `${k}: ${typeName(x)}`);
    return wellFormed(x);
  };
  const optional = (k: string): string | null => {
    const x = own(v, k);
    if (x === undefined || x === null) return null;
    if (typeof x !== "string") throw new Invalid("wrong-type", `${k}: ${typeName(x)}`);
    return wellFormed(x);
  };
  const session = required("session");
  if (session === "") throw new Invalid("bad-value", "session is empty");
  const state = required("state");
  const ts = required("updatedAt");
  const updatedAt = parseTime(ts);
  if (updatedAt === null) throw new Invalid("bad-value", "updatedAt is not an RFC 3339 time");
  const agent = optional("agent");
  let pid = 0;
  const p = own(v, "pid");
  if (p !== undefined && p !== null) {
    if (typeof p !== "number") throw new Invalid("wrong-type", `pid: ${typeName(p)}`);
    if (!Number.isInteger(p) || p < 0 || p > MAX_PID) throw new Invalid("bad-value", "pid out of range");
    pid = p === 0 ? 0 : p; // -0 is 0
  }
  const cwd = optional("cwd");
  let title: string | null = null;
  const task = own(v, "task");
  if (task !== undefined && task !== null) {
    if (!isObject(task)) throw new Invalid("wrong-type", `task: ${typeName(task)}`);
    const t = own(task, "title");
    if (t !== undefined && t !== null) {
      if (typeof t !== "string") throw new Invalid("wrong-type", `task.title: ${typeName(t)}`);
      title = wellFormed(t);
    }
  }
  return {
    session, agent, pid, cwd, state, title, updatedAt,
    waitingFor: decodeWaiting(own(v, "waitingFor")),
    ended: decodeEnded(own(v, "ended")),
    background: decodeBackground(own(v, "background")),
  };
}

// The reason keys never drop a record: a wrong shape only drops the key.
function optString(x: unknown): string | null {
  return typeof x === "string" ? wellFormed(x) : null;
}

function optTime(x: unknown): bigint | null {
  return typeof x === "string" ? parseTime(x) : null;
}

function decodeWaiting(x: unknown): WaitingFor | null {
  if (!isObject(x)) return null;
  const kind = own(x, "kind");
  if (typeof kind !== "string" || kind === "") return null;
  return { kind: wellFormed(kind), tool: optString(own(x, "tool")), detail: optString(own(x, "detail")), since: optTime(own(x, "since")) };
}

function decodeEnded(x: unknown): Ended | null {
  if (!isObject(x)) return null;
  const reason = own(x, "reason");
  if (typeof reason !== "string" || reason === "") return null;
  return { reason: wellFormed(reason), detail: optString(own(x, "detail")), at: optTime(own(x, "at")) };
}

/** MAX_BACKGROUND caps each count (Y8): more says nothing a reader can use. */
const MAX_BACKGROUND = 9999;

/** A count of Y8: a non-negative integer (2.0 is 2), capped; 0 for anything else (1e400 included). */
function count(x: unknown): number {
  if (typeof x !== "number" || !Number.isFinite(x) || !Number.isInteger(x) || x < 0) return 0;
  return Math.min(x, MAX_BACKGROUND) || 0; // -0 is 0
}

function decodeBackground(x: unknown): Background {
  if (!isObject(x)) return { agents: 0, tasks: 0 };
  return { agents: count(own(x, "agents")), tasks: count(own(x, "tasks")) };
}

// ---------------------------------------------------------------- display

/** A session as shown: every string sanitized (R13), reasons capped. */
export interface View {
  session: string;
  agent: string | null;
  state: string;
  pid: number | null;
  cwd: string | null;
  title: string | null;
  waitingFor: { kind: string; tool: string | null; detail: string | null; since: string | null } | null;
  ended: { reason: string; detail: string | null; at: string | null } | null;
  background?: Background;
  updatedAt: bigint;
}

const orNull = (s: string) => (s === "" ? null : s);
/** detailView is a tool or detail sanitized, null for none or for nothing left. */
const detailView = (s: string | null) => (s === null ? null : orNull(sanitizeTitle(s, MAX_DETAIL_UNITS)));
const timeView = (ns: bigint | null) => (ns === null ? null : formatTime(ns));

/** view sanitizes a record for display; the reason keys only with their state. */
export function view(r: StatusRecord): View {
  let waitingFor: View["waitingFor"] = null;
  if (r.waitingFor && r.state === "blocked") {
    const kind = sanitizeTitle(r.waitingFor.kind, MAX_KIND_UNITS);
    if (kind !== "") {
      const w = r.waitingFor;
      waitingFor = { kind, tool: detailView(w.tool), detail: detailView(w.detail), since: timeView(w.since) };
    }
  }
  let ended: View["ended"] = null;
  if (r.ended && r.state === "idle") {
    const reason = sanitizeTitle(r.ended.reason, MAX_KIND_UNITS);
    if (reason !== "") {
      ended = { reason, detail: detailView(r.ended.detail), at: timeView(r.ended.at) };
    }
  }
  return {
    session: sanitizeText(r.session),
    agent: r.agent === null ? null : orNull(sanitizeText(r.agent)),
    state: sanitizeText(r.state),
    pid: r.pid === 0 ? null : r.pid,
    cwd: r.cwd === null ? null : orNull(sanitizeText(r.cwd)),
    title: r.title === null ? null : orNull(sanitizeTitle(r.title)),
    waitingFor,
    ended,
    background: r.background,
    updatedAt: r.updatedAt,
  };
}

/**
 * why is the WHY words every reader shows (statusls, tmux, Neovim, this
 * extension): "Bash: rm -rf build", "question: Which database?",
 * "cancelled", "rate limited", "1 background agent", "done; 2 background
 * tasks" (Y8: the background work after the state's own words), ... ; ""
 * when the record says nothing.
 */
export function why(v: Pick<View, "waitingFor" | "ended" | "background">): string {
  const words = ownWhy(v);
  const bg = backgroundWords(v.background);
  return words && bg ? `${words}; ${bg}` : words || bg;
}

/**
 * backgroundWords is how the counts of Y8 are shown: "1 background agent",
 * "2 background tasks", both joined by ", "; "" for none.
 */
function backgroundWords(b: Background | undefined): string {
  const part = (n: number, what: string) => (n > 0 ? `${n} background ${what}${n > 1 ? "s" : ""}` : "");
  return [part(b?.agents ?? 0, "agent"), part(b?.tasks ?? 0, "task")].filter((w) => w !== "").join(", ");
}

/** ownWhy is why without the background work. */
function ownWhy(v: Pick<View, "waitingFor" | "ended">): string {
  const join = (head: string, detail: string | null) => (detail ? `${head}: ${detail}` : head);
  if (v.waitingFor) {
    const w = v.waitingFor;
    if (w.kind === "permission" && w.tool) return join(w.tool, w.detail);
    return join(w.kind, w.detail);
  }
  if (v.ended) {
    const e = v.ended;
    switch (e.reason) {
      case "done":
        return "done";
      case "cancelled":
        return "cancelled";
      case "rate_limited":
        return "rate limited";
      default:
        return join(e.reason, e.detail);
    }
  }
  return "";
}

// ------------------------------------------------------------------ names

const STATUS_NAME = /^[0-9a-f]{64}\.json$/;

/** isStatusName: the only names a reader looks at (R3). */
export function isStatusName(name: string): boolean {
  return STATUS_NAME.test(name);
}

/** fileName is a session's file name (N1), of the id as read (C7). */
export function fileName(session: string): string {
  return createHash("sha256").update(Buffer.from(wellFormed(session), "utf8")).digest("hex") + ".json";
}

// ---------------------------------------------------------------- reading

/** The status directory must be refused (R2); nothing in it is shown. */
export class Refused extends Error {}

/** One file's verdict. */
export type Entry =
  | { name: string; verdict: "fresh" | "stale"; record: StatusRecord }
  | { name: string; verdict: "invalid"; reason: string; error: string };

const isWindows = process.platform === "win32";
const O_NOFOLLOW = fsc.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fsc.O_NONBLOCK ?? 0;
const O_DIRECTORY = fsc.O_DIRECTORY ?? 0;
const O_NOCTTY = fsc.O_NOCTTY ?? 0;

function errno(e: unknown): string {
  return (e as NodeJS.ErrnoException)?.code ?? "";
}

function myUid(): number | null {
  return typeof process.geteuid === "function" ? process.geteuid() : null;
}

/**
 * An open, checked status directory. Files are opened through it: on
 * Linux through /proc/self/fd, which is the directory that was checked
 * (as openat would be) even if the path is replaced meanwhile; elsewhere
 * by path, and [close] reports whether the path still led to it.
 */
class Dir {
  private constructor(readonly dir: string, private fh: fsp.FileHandle | null, private ino: bigint, private dev: bigint, private via: string) {}

  /** open returns null for a missing directory (R1); throws Refused (R2). */
  static async open(dir: string): Promise<Dir | null> {
    if (isWindows) {
      let st;
      try {
        st = await fsp.lstat(dir, { bigint: true });
      } catch (e) {
        if (errno(e) === "ENOENT") return null;
        throw new Refused(`${dir}: ${(e as Error).message}`);
      }
      if (st.isSymbolicLink()) throw new Refused(`${dir}: the status directory is a symbolic link`);
      if (!st.isDirectory()) throw new Refused(`${dir}: not a directory`);
      return new Dir(dir, null, st.ino, st.dev, dir);
    }
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(dir, fsc.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
    } catch (e) {
      const code = errno(e);
      if (code === "ENOENT") return null;
      if (code === "ELOOP" || code === "EMLINK") throw new Refused(`${dir}: the status directory is a symbolic link`);
      if (code === "ENOTDIR") throw new Refused(`${dir}: not a directory`);
      throw new Refused(`${dir}: ${(e as Error).message}`);
    }
    try {
      const st = await fh.stat({ bigint: true });
      if (!st.isDirectory()) throw new Refused(`${dir}: not a directory`);
      const uid = myUid();
      if (uid !== null && st.uid !== BigInt(uid)) throw new Refused(`${dir}: owned by uid ${st.uid}, not by this account`);
      if ((st.mode & 0o022n) !== 0n) {
        throw new Refused(`${dir}: writable by group or others (mode ${(st.mode & 0o7777n).toString(8).padStart(4, "0")})`);
      }
      let via = dir;
      if (process.platform === "linux") {
        const proc = `/proc/self/fd/${fh.fd}`;
        try {
          const pst = await fsp.stat(proc, { bigint: true });
          if (pst.ino === st.ino && pst.dev === st.dev) via = proc;
        } catch {
          // no /proc: by path
        }
      }
      return new Dir(dir, fh, st.ino, st.dev, via);
    } catch (e) {
      await fh.close();
      throw e;
    }
  }

  async names(): Promise<string[]> {
    const names = await fsp.readdir(this.via);
    return names.filter(isStatusName).sort(); // R3, R14 (ASCII: bytewise)
  }

  /** read returns a file's bytes, null if it vanished (R8); throws Invalid. */
  async read(name: string): Promise<Uint8Array | null> {
    const p = path.join(this.via, name);
    if (isWindows) {
      const st = await fsp.lstat(p).catch((e) => {
        if (errno(e) === "ENOENT") return null;
        throw new Invalid("unreadable", (e as Error).message);
      });
      if (st === null) return null;
      if (st.isSymbolicLink()) throw new Invalid("symlink");
    }
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(p, fsc.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    } catch (e) {
      const code = errno(e);
      if (code === "ENOENT") return null;
      if (code === "ELOOP" || code === "EMLINK") throw new Invalid("symlink");
      if (code === "ENXIO" || code === "EOPNOTSUPP" || code === "EISDIR") throw new Invalid("not-regular");
      throw new Invalid("unreadable", (e as Error).message);
    }
    try {
      const st = await fh.stat();
      if (!st.isFile()) throw new Invalid("not-regular");
      const uid = myUid();
      if (uid !== null && !isWindows && st.uid !== uid) throw new Invalid("not-owned");
      if (st.size > MAX_FILE) throw new Invalid("too-large");
      const buf = Buffer.alloc(MAX_FILE + 1);
      let n = 0;
      while (n < buf.length) {
        const { bytesRead } = await fh.read(buf, n, buf.length - n, null);
        if (bytesRead === 0) break;
        n += bytesRead;
      }
      if (n > MAX_FILE) throw new Invalid("too-large");
      return buf.subarray(0, n);
    } catch (e) {
      if (e instanceof Invalid) throw e;
      throw new Invalid("unreadable", (e as Error).message);
    } finally {
      await fh.close();
    }
  }

  /** close reports whether the path still leads to the directory read. */
  async close(): Promise<boolean> {
    await this.fh?.close();
    if (this.via !== this.dir) return true;
    try {
      const st = await fsp.lstat(this.dir, { bigint: true });
      return st.ino === this.ino && st.dev === this.dev && st.isDirectory();
    } catch {
      return false;
    }
  }
}

async function judge(d: Dir, name: string, now: bigint): Promise<Entry | null> {
  try {
    const data = await d.read(name);
    if (data === null) return null; // R8
    const record = decode(data);
    if (fileName(record.session) !== name) throw new Invalid("name-mismatch"); // R11
    return { name, verdict: isFresh(record.updatedAt, now) ? "fresh" : "stale", record };
  } catch (e) {
    if (e instanceof Invalid) return { name, verdict: "invalid", reason: e.reason, error: e.message };
    throw e;
  }
}

/**
 * list reads the status directory once and gives every status file a
 * verdict, in file-name order (R14). A missing directory is an empty
 * listing (R1); a refused one throws [Refused] (R2).
 */
export async function list(dir: string, now: bigint): Promise<Entry[]> {
  const d = await Dir.open(dir);
  if (d === null) return [];
  const out: Entry[] = [];
  try {
    let names: string[];
    try {
      names = await d.names();
    } catch (e) {
      throw new Refused(`${dir}: ${(e as Error).message}`);
    }
    for (const name of names) {
      const e = await judge(d, name, now);
      if (e) out.push(e);
    }
  } finally {
    if (!(await d.close())) throw new Refused(`${dir}: replaced while it was read`);
  }
  return out;
}

/**
 * readOne reads one status name as a listing does (R15, R16): null when
 * the file is gone, or the directory is.
 */
export async function readOne(dir: string, name: string, now: bigint): Promise<Entry | null> {
  if (!isStatusName(name)) return null;
  const d = await Dir.open(dir);
  if (d === null) return null;
  let e: Entry | null;
  try {
    e = await judge(d, name, now);
  } finally {
    if (!(await d.close())) throw new Refused(`${dir}: replaced while it was read`);
  }
  return e;
}
