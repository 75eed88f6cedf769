"""The gentle-shell.agent-status/v1 protocol (SPEC.md) in Python's standard
library: names, time, the record, and the sanitizer of SPEC.md section 7.

Shared by status_reader.py and status_publisher.py, the conformance suite's
Python adapters. Python 3.8 or later.
"""

import datetime
import decimal
import json
import math
import os
import re
import unicodedata

try:
    from _sha256 import sha256  # hashlib without loading OpenSSL: a faster start
except ImportError:
    from hashlib import sha256

# FLAW names one deliberate deviation from SPEC.md, for the conformance
# suite's own tests only (go test ./conformance): each breaks one rule the
# way an implementer could plausibly misread it, and the suite must fail
# it. Empty in normal use.
FLAW = os.environ.get("STATUSPROTO_FLAW", "")

SCHEMA = "gentle-shell.agent-status/v1"
MAX_FILE = 65536  # R6
MAX_TITLE_UNITS = 4096  # section 7, step 1
MAX_WHY_WORD_UNITS = 64  # section 4.4, Y4: kind, reason
MAX_WHY_DETAIL_UNITS = 200  # tool, detail
STALE_NS = 30 * 10**9  # FR1, FR2
NAME_RE = re.compile(r"[0-9a-f]{64}\.json\Z")
STATES = ("working", "blocked", "idle")


def file_name(session):
    """N1: the lowercase hex SHA-256 of the id's UTF-8 bytes, plus .json."""
    return sha256(session.encode("utf-8")).hexdigest() + ".json"


def valid_session(session):
    """N2: non-empty, at most 1024 bytes of UTF-8, no C0/C1 control or DEL."""
    if not session:
        return "empty"
    try:
        raw = session.encode("utf-8")
    except UnicodeEncodeError:
        return "not valid UTF-8"
    if FLAW == "session-limit-utf16":
        raw = session.encode("utf-16-le")[::2]  # wrongly one per UTF-16 unit
    if len(raw) > 1024:
        return "%d bytes, more than 1024" % len(raw)
    for c in session:
        o = ord(c)
        if o < 0x20 or 0x7F <= o <= 0x9F:
            return "control character U+%04X" % o
    return None


# ---------------------------------------------------------------- time (T1, T2)

_TIME_RE = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]+))?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))\Z"
)


_EPOCH = datetime.datetime(1970, 1, 1)
_SECOND = datetime.timedelta(seconds=1)


def parse_time_ns(s):
    """T2: an RFC 3339 date-time as nanoseconds since the epoch, or None."""
    m = _TIME_RE.match(s)
    if FLAW == "unicode-digits":
        m = re.compile(_TIME_RE.pattern.replace("[0-9]", "\\d")).match(s)  # wrongly any decimal digit
    if not m:
        return None
    if FLAW == "uppercase-t-z-only" and ("t" in s or "z" in s):
        return None  # wrongly: RFC 3339 allows t and z too
    y, mo, d, h, mi, sec = (int(m.group(i)) for i in range(1, 7))
    if h > 23 or mi > 59 or sec > 59:  # no leap second
        return None
    try:
        dt = datetime.datetime(y, mo, d, h, mi, sec)
    except ValueError:  # February 30, year 0000, ...
        return None
    frac = (m.group(7) or "")[:9].ljust(9, "0")
    if FLAW == "truncate-updated-to-ms":
        frac = frac[:3] + "000000"
    offset = 0
    if m.group(8):
        oh, om = int(m.group(9)), int(m.group(10))
        if oh > 23 or om > 59:
            return None
        offset = (oh * 60 + om) * 60 * (1 if m.group(8) == "+" else -1)
    ns = ((dt - _EPOCH) // _SECOND - offset) * 10**9 + int(frac)
    if FLAW == "round-updated-to-ms":
        ns = (ns + 500000) // 10**6 * 10**6
    return ns


def format_time_ns(ns):
    """T1: UTC with milliseconds, truncated: YYYY-MM-DDTHH:MM:SS.sssZ."""
    sec, rest = divmod(ns, 10**9)
    dt = datetime.datetime.fromtimestamp(sec, datetime.timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (rest // 10**6)


def is_fresh(updated_ns, now_ns):
    """FR1, FR2: at most 30 s old and at most 30 s in the future."""
    return -STALE_NS <= now_ns - updated_ns <= STALE_NS


# ---------------------------------------------------------------- the record (C1-C6)


class Invalid(Exception):
    """A file that is not a record to show; .reason is a SPEC.md section 10 reason."""

    def __init__(self, reason, detail=""):
        super().__init__(reason + (": " + detail if detail else ""))
        self.reason = reason


_SURROGATE = re.compile("[\ud800-\udfff]")


def _fix(s):
    """C6: unpaired surrogate escapes become U+FFFD."""
    return _SURROGATE.sub("\ufffd", s)


def _reject_constant(name):
    raise ValueError("%s is not JSON" % name)


def decode(data):
    """Decode a status file (bytes) into a dict with session, agent, state,
    pid, cwd, title (raw) and updated_ns; raise Invalid otherwise."""
    if FLAW == "strip-bom" and data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    text = data.decode("utf-8", "replace")  # C6
    if FLAW == "one-fffd-per-run":
        text = re.sub("\ufffd+", "\ufffd", text)  # wrongly one per ill-formed run
    if text.strip(" \t\r\n") == "":
        raise Invalid("empty")
    if FLAW == "strip-any-white-space":
        text = text.strip()  # wrongly: Python's white space, not JSON's
    try:
        # Duplicate keys: the last one counts (C5), as dict() does.
        hooks = {}
        if FLAW == "exact-pid":
            hooks["parse_float"] = decimal.Decimal
        elif FLAW == "minus-means-negative":
            hooks["parse_int"] = lambda t: -1 if t.startswith("-") else int(t)
        if FLAW == "first-key-wins":
            hooks["object_pairs_hook"] = lambda pairs: dict(reversed(pairs))
        obj = json.loads(text, parse_constant=_reject_constant, **hooks)
    except (ValueError, RecursionError) as e:
        raise Invalid("bad-json", str(e)[:200])
    if not isinstance(obj, dict):
        raise Invalid("not-object")
    schema = obj.get("schema")
    if FLAW == "schema-case-insensitive" and isinstance(schema, str):
        schema = schema.lower()
    if schema != SCHEMA or not isinstance(schema, str):
        raise Invalid("unsupported-schema")

    def required(key):
        v = obj.get(key)
        if v is None:
            raise Invalid("missing-field", key)
        if not isinstance(v, str):
            raise Invalid("wrong-type", key)
        return _fix(v)

    def optional(key):
        v = obj.get(key)
        if v is None:
            return ""
        if not isinstance(v, str):
            raise Invalid("wrong-type", key)
        return _fix(v)

    rec = {"session": required("session"), "state": required("state")}
    if rec["session"] == "":
        raise Invalid("bad-value", "empty session")
    updated = parse_time_ns(required("updatedAt"))
    if updated is None:
        raise Invalid("bad-value", "updatedAt is not an RFC 3339 time")
    rec["updated_ns"] = updated
    rec["agent"] = optional("agent")
    pid = obj.get("pid")
    if pid is None:
        pid = 0
    elif isinstance(pid, bool) or not isinstance(pid, (int, float, decimal.Decimal)):
        raise Invalid("wrong-type", "pid")
    elif FLAW == "int-before-range":
        pid = int(pid)  # OverflowError for an infinite pid
    elif pid != pid or pid < 0 or pid > 2**31 - 1 or int(pid) != pid:
        raise Invalid("bad-value", "pid")
    rec["pid"] = int(pid)
    rec["cwd"] = optional("cwd")
    task = obj.get("task")
    title = ""
    if task is not None:
        if not isinstance(task, dict):
            raise Invalid("wrong-type", "task")
        if FLAW == "strict-task-keys" and set(task) - {"title"}:
            raise Invalid("wrong-type", "task")  # wrongly: unknown keys are ignored (C1, F2)
        t = task.get("title")
        if FLAW == "title-null-invalid" and "title" in task and t is None:
            raise Invalid("wrong-type", "task.title")  # wrongly: a null title means no title (F1)
        if t is not None:
            if not isinstance(t, str):
                raise Invalid("wrong-type", "task.title")
            title = _fix(t)
    rec["title"] = title
    rec["waitingFor"] = _why(obj, "waitingFor", "kind", ("tool", "detail"), "since", "blocked", rec["state"])
    rec["ended"] = _why(obj, "ended", "reason", ("detail",), "at", "idle", rec["state"])
    bg = obj.get("background")
    if FLAW == "background-wrong-type-drops" and bg is not None and (
            not isinstance(bg, dict) or any(not _count(bg.get(k)) for k in ("agents", "tasks") if k in bg)):
        raise Invalid("wrong-type", "background")  # wrongly: Y8 ignores the key and its counts
    if FLAW == "hash-raw-bytes":
        raw = json.loads(data.decode("utf-8", "surrogateescape")).get("session")
        rec["raw_session"] = raw.encode("utf-8", "surrogateescape")
    return rec


def _count(v):
    """Y8: whether v is a background count, a non-negative integer (2.0 is
    2). Only the background-wrong-type-drops flaw asks: a reader that shows
    no counts ignores the key."""
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return v >= 0
    return isinstance(v, float) and math.isfinite(v) and v >= 0 and v == int(v)


def _why(obj, key, word, texts, when, state, rec_state):
    """Section 4.4: waitingFor or ended as a reader shows it, or None. Y6:
    never a reason to drop the record; only with its state; sanitized and
    cut (Y4)."""
    v = obj.get(key)
    if FLAW == "why-wrong-type-drops" and v is not None and not isinstance(v, dict):
        raise Invalid("wrong-type", key)  # wrongly: Y6 ignores the key
    if not isinstance(v, dict):
        return None
    if rec_state != state and FLAW != "why-any-state":
        return None
    w = v.get(word)
    if not isinstance(w, str):
        return None
    cut = (lambda x: _fix(x)) if FLAW == "why-unsanitized" else None
    w = cut(w) if cut else sanitize_title(_fix(w), MAX_WHY_WORD_UNITS)
    if w == "":
        return None
    out = {word: w}
    for t in texts:
        x = v.get(t)
        if isinstance(x, str):
            x = cut(x) if cut else sanitize_title(_fix(x), MAX_WHY_DETAIL_UNITS)
        out[t] = x if isinstance(x, str) and x != "" else None
    ts = v.get(when)
    ns = parse_time_ns(ts) if isinstance(ts, str) else None
    out[when] = format_time_ns(ns) if ns is not None else None
    return out


def _json_string(s):
    """E2: escaped as JSON.stringify does: " and \\ with a backslash,
    \\b \\f \\n \\r \\t short, other controls below U+0020 as \\u00xx,
    nothing else (no HTML escaping, U+2028/U+2029 as they are)."""
    out = ['"']
    for c in s:
        o = ord(c)
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif o < 0x20:
            if FLAW == "escape-controls-as-hex":
                out.append("\\u%04x" % o)  # wrongly: \b \f \n \r \t have short forms
            elif FLAW == "escape-uppercase-hex":
                out.append({8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t"}.get(o, "\\u%04X" % o))
            else:
                out.append({8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t"}.get(o, "\\u%04x" % o))
        elif 0xD800 <= o <= 0xDFFF:
            if FLAW == "surrogates-escaped":
                out.append("\\u%04x" % o)  # wrongly, as json.dumps writes an invalid byte it was given
            else:
                out.append("\ufffd")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


WAIT_KINDS = ("permission", "question", "auth", "other")  # section 4.4, Y2
END_REASONS = ("done", "cancelled", "failed", "rate_limited")  # Y3


def encode(session, agent, pid, cwd, state, title, updated_ns, why=None):
    """E1: compact JSON, keys in the order of SPEC.md section 4, a newline;
    why holds the waitingFor and ended to write (Y1), already limited to
    their state."""
    title = sanitize_title(title)
    task = "null" if title == "" else '{"title":' + _json_string(title) + "}"
    tail = ""
    for key, members in (("waitingFor", ("kind", "tool", "detail", "since")),
                         ("ended", ("reason", "detail", "at"))):
        v = (why or {}).get(key)
        if not v:
            continue
        if FLAW == "why-members-sorted":
            members = sorted(members)  # wrongly: Y1 gives their order
        parts = []
        for m in members:
            x = v.get(m)
            if isinstance(x, str) and m not in ("since", "at"):
                x = sanitize_title(x, MAX_WHY_WORD_UNITS if m in ("kind", "reason") else MAX_WHY_DETAIL_UNITS)
            parts.append('"%s":%s' % (m, _json_string(x) if x else "null"))
        tail += ',"%s":{%s}' % (key, ",".join(parts))
    return (
        '{"schema":"' + SCHEMA + '","agent":' + _json_string(agent)
        + ',"session":' + _json_string(session) + ',"pid":' + str(int(pid))
        + ',"cwd":' + _json_string(cwd) + ',"state":' + _json_string(state)
        + ',"task":' + task + ',"updatedAt":"' + format_time_ns(updated_ns) + '"' + tail + '}\n'
    ).encode("utf-8")


# ---------------------------------------------------------------- sanitizing (section 7)


def _to_space(c):
    """Step 3 (and the white space of step 4)."""
    o = ord(c)
    if o < 0x80:
        return o < 0x20 or o == 0x7F or o == 0x20
    if o <= 0x9F:
        return True
    if o in (0x061C, 0x200B, 0x200C, 0x200E, 0x200F, 0x2028, 0x2029, 0xFEFF):
        return True
    if FLAW == "invisible-range-short":
        # wrongly: only the word joiner, the invisible operators and the
        # isolates, not the rest of U+2060-U+206F
        if 0x202A <= o <= 0x202E or 0x2060 <= o <= 0x2064 or 0x2066 <= o <= 0x2069:
            return True
    elif 0x202A <= o <= 0x202E or 0x2060 <= o <= 0x206F:
        return True
    # Step 4's white space: U+0085, U+00A0, U+1680, U+2000-U+200A, U+202F,
    # U+205F, U+3000 (and the ASCII ones above).
    last_space = 0x2009 if FLAW == "spaces-range-short" else 0x200A  # the flaw: U+200A forgotten
    return o in (0xA0, 0x1680, 0x202F, 0x205F, 0x3000) or 0x2000 <= o <= last_space


def _introducer(o):
    """ESC or a C1 control: what starts a sequence of its own."""
    return o == 0x1B or 0x80 <= o <= 0x9F


_TEXT, _ESC, _ESC_INTER, _CSI_PARAM, _CSI_INTER, _OSC, _CTRL_STR, _STR_ESC = range(8)


def _sanitize(s, collapse):
    """Steps 2-5: remove escape sequences, blank invisible characters and,
    for titles, collapse white space and trim."""
    out = []
    pending = False
    state = _TEXT
    str_kind = _OSC

    def emit(c):
        nonlocal pending
        if collapse:
            if c == " ":
                pending = len(out) > 0
                return
            if pending:
                out.append(" ")
                pending = False
        out.append(c)

    i = 0
    n = len(s)
    while i < n:
        c = s[i]
        o = ord(c)
        if state == _TEXT:
            if o == 0x1B:
                state = _ESC
            elif o == 0x9B:
                state = _CSI_PARAM
            elif o == 0x9D and FLAW != "no-8bit-strings":
                state, str_kind = _OSC, _OSC
            elif o in (0x90, 0x98, 0x9E, 0x9F) and FLAW != "no-8bit-strings":
                state, str_kind = _CTRL_STR, _CTRL_STR
            else:
                emit(" " if _to_space(c) else c)
        elif state in (_ESC, _ESC_INTER):
            # Only right after the ESC may a CSI or a string start; after
            # intermediates, "[" and the others are final bytes.
            if c == "[" and state == _ESC:
                state = _CSI_PARAM
            elif c == "]" and state == _ESC:
                state, str_kind = _OSC, _OSC
            elif c in "PX^_" and state == _ESC and not (FLAW == "sos-pm-apc-as-escape" and c != "P"):
                state, str_kind = _CTRL_STR, _CTRL_STR
            elif 0x20 <= o <= 0x2F:
                state = _ESC_INTER
            elif 0x30 <= o <= 0x7E:
                state = _TEXT
            elif FLAW == "interrupter-dropped" and not _introducer(o):
                state = _TEXT  # wrongly drops the interrupting character too
            else:
                state = _TEXT
                continue  # only the sequence so far is removed; look at c again
        elif state in (_CSI_PARAM, _CSI_INTER):
            if 0x30 <= o <= 0x3F and state == _CSI_PARAM:
                pass
            elif 0x20 <= o <= 0x2F:
                state = _CSI_INTER
            elif 0x40 <= o <= 0x7E:
                state = _TEXT
            elif FLAW == "esc-interrupt-kept" and o == 0x1B:
                state = _TEXT
                emit(" ")  # the ESC is blanked, and what follows is text
            elif FLAW == "interrupter-dropped" and not _introducer(o):
                state = _TEXT
            else:
                state = _TEXT
                continue
        elif state in (_OSC, _CTRL_STR):
            if o == 0x1B:
                state = _STR_ESC
            elif o == 0x9C and FLAW != "no-8bit-st":
                state = _TEXT
            elif o == 0x07 and (state == _OSC or FLAW == "bel-ends-any-string"):
                state = _TEXT
            elif FLAW == "osc-printable-only" and not 0x20 <= o <= 0x7E:
                state = _TEXT
                continue
        elif state == _STR_ESC:
            if c == "\\":
                state = _TEXT
            elif FLAW == "esc-aborts-string":
                state = _ESC
                continue
            elif FLAW == "esc-swallows-next":
                state = str_kind  # wrongly takes ESC and the next character as a pair
            elif o == 0x1B:
                pass
            else:
                state = str_kind
                continue
        i += 1
    return "".join(out)


def _cut_utf16(s, max_units):
    """Step 1: the longest prefix of at most max_units UTF-16 units; whether
    anything was cut; whether the cut fell inside a surrogate pair."""
    units = 0
    # The limits of the reason keys (Y4), misread as counts of UTF-8 bytes
    # or of code points (the flaws of the conformance suite's tests).
    why = max_units != MAX_TITLE_UNITS
    as_bytes = why and FLAW in ("why-cut-utf8-bytes", "why-written-cut-utf8-bytes")
    as_code_points = FLAW == "why-cut-code-points" and why or FLAW == "title-cut-code-points" and not why
    for i, c in enumerate(s):
        w = 2 if ord(c) > 0xFFFF else 1
        if as_bytes:
            w = len(c.encode("utf-8", "surrogatepass"))
        elif as_code_points:
            w = 1
        if units + w > max_units:
            return s[:i], True, units + 1 == max_units and not as_bytes
        units += w
    return s, False, False


# Grapheme clusters (UAX #29) with what the standard library offers:
# unicodedata has no Grapheme_Cluster_Break property, so this approximates
# it with general categories and code point ranges. It is exact for
# combining marks, variation selectors, emoji modifiers, ZWJ emoji
# sequences, flags (regional indicator pairs) and Hangul syllables, which
# are what step 6 meets in practice; rarer rules (prepended concatenation
# marks, Indic conjuncts) are not modelled.


def _is_extend(c):
    o = ord(c)
    if o == 0x200D or 0x1F3FB <= o <= 0x1F3FF or 0xFE00 <= o <= 0xFE0F or 0xE0020 <= o <= 0xE007F:
        return True
    return unicodedata.category(c) in ("Mn", "Me", "Mc")


def _is_pictographic(c):
    o = ord(c)
    return unicodedata.category(c) == "So" or 0x1F000 <= o <= 0x1FAFF or 0x2600 <= o <= 0x27BF


def _is_ri(c):
    return 0x1F1E6 <= ord(c) <= 0x1F1FF


def _hangul(c):
    o = ord(c)
    if 0x1100 <= o <= 0x115F or 0xA960 <= o <= 0xA97C:
        return "L"
    if 0x1160 <= o <= 0x11A7 or 0xD7B0 <= o <= 0xD7C6:
        return "V"
    if 0x11A8 <= o <= 0x11FF or 0xD7CB <= o <= 0xD7FB:
        return "T"
    if 0xAC00 <= o <= 0xD7A3:
        return "LV" if (o - 0xAC00) % 28 == 0 else "LVT"
    return None


def _joins(prev, c, ri_run):
    """Whether there is no cluster boundary between prev and c."""
    if prev == "\r" and c == "\n":
        return True
    if _is_extend(c):
        return True
    if prev == "\u200d" and _is_pictographic(c):
        return True
    if _is_ri(prev) and _is_ri(c) and ri_run % 2 == 1:
        return True
    hp, hc = _hangul(prev), _hangul(c)
    if hp == "L" and hc in ("L", "V", "LV", "LVT"):
        return True
    if hp in ("LV", "V") and hc in ("V", "T"):
        return True
    if hp in ("LVT", "T") and hc == "T":
        return True
    return False


def _drop_last_cluster(s):
    if FLAW == "drop-last-code-point":
        return s[:-1]
    start = 0
    ri_run = 0
    for i in range(1, len(s)):
        ri_run = ri_run + 1 if _is_ri(s[i - 1]) else 0
        if not _joins(s[i - 1], s[i], ri_run):
            start = i
    return s[:start]


def sanitize_title(raw, max_units=None):
    """Section 7: the title as a publisher writes it and a reader shows it;
    "" means no title. With max_units, the limit of the reason keys (Y4)
    in place of 4096 units."""
    if max_units is None:
        max_units = MAX_TITLE_UNITS
    if FLAW == "cut-after-sanitize":
        raw = _sanitize(raw, True)
    text, cut, half = _cut_utf16(raw, max_units)
    out = _sanitize(text, True)
    if FLAW == "drop-only-when-split" and cut and text and raw[len(text):] and not _joins(text[-1], raw[len(text)], 0):
        cut = False
    if cut and not half and FLAW == "drop-before-trim":
        out = _drop_last_cluster(_collapse_untrimmed(text)).strip(" ")
    elif cut and not half:
        out = _drop_last_cluster(out).rstrip(" ")
    return out


def _collapse_untrimmed(text):
    """Steps 2-4 without the trim (for the drop-before-trim flaw)."""
    out = _sanitize(text, False)
    return re.sub(r"\s+", " ", out)


def sanitize_text(s):
    """Section 7, last paragraph: other fields get steps 2 and 3 only."""
    return _sanitize(s, False)
