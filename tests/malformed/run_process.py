#!/usr/bin/env python3
"""Process-level runner for the picomcp bad-input corpus (tests/malformed/cases.jsonl).

Usage:
    run_process.py [--max-line 4096] [--filter SUBSTR] [--jobs 4] [--timeout 5]
                   [--timeout-scale N] [--features LIST] [--features-off LIST]
                   [--cases PATH] [--verbose] -- SERVER_CMD...
    run_process.py --check [--cases PATH]

Each case runs in a fresh server process started as SERVER_CMD + ["--max-line", N].
Before the cases, one more process is asked what the server offers (initialize, then
tools/list, resources/list, prompts/list for the declared capabilities); a case whose
"needs" are not all offered is reported as `ok - NAME # SKIP ...`.
See README.md next to this file for the case format.  Python 3 standard library only.
"""

import argparse
import collections
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CASES = os.path.join(HERE, "cases.jsonl")

CATEGORIES = ("framing", "json", "jsonrpc", "lifecycle", "tools")
STATES = ("ready", "fresh")
DEFAULT_VERSION = "2025-11-25"
CASE_KEYS = {"name", "category", "state", "version", "send", "send_hex", "expect",
             "expect_batch", "timeout", "needs", "note"}
ENTRY_KEYS = {"code", "id", "id_raw", "result", "is_error", "result_subset", "batch"}
PAD_RE = re.compile(r"@PAD\((\d+)\)@")
# The line limit the corpus is written for. The overlong and under-limit cases pad to a
# fraction of it, so against a server with another limit (--max-line) every PAD(N) is
# scaled by LINE / CORPUS_LINE: a case well under (or over) 4096 stays well under (or
# over) the server's limit by the same ratio.
CORPUS_LINE = 4096
LINE = CORPUS_LINE
EXIT_WAIT = 5.0


class CaseFileError(Exception):
    pass


class Fail(Exception):
    pass


# --------------------------------------------------------------------------- case file

def _check_entry(entry, where, allow_batch=True):
    if not isinstance(entry, dict):
        raise CaseFileError("%s: expectation must be an object" % where)
    extra = set(entry) - ENTRY_KEYS
    if extra:
        raise CaseFileError("%s: unknown expectation keys %s" % (where, sorted(extra)))
    if "batch" in entry:
        if not allow_batch:
            raise CaseFileError("%s: nested batch" % where)
        if set(entry) != {"batch"}:
            raise CaseFileError("%s: a batch entry has only the key 'batch'" % where)
        _check_entries(entry["batch"], where + ".batch", allow_batch=False)
        if not entry["batch"]:
            raise CaseFileError("%s: an expected batch reply cannot be empty" % where)
        return
    has_code = "code" in entry
    has_result = "result" in entry
    if has_code == has_result:
        raise CaseFileError("%s: exactly one of 'code' or 'result' is required" % where)
    if has_code and (type(entry["code"]) is not int):
        raise CaseFileError("%s: 'code' must be an integer" % where)
    if has_result:
        if entry["result"] is not True:
            raise CaseFileError("%s: 'result' must be true" % where)
        if "id" not in entry and "id_raw" not in entry:
            raise CaseFileError("%s: a result expectation needs 'id' or 'id_raw'" % where)
    else:
        for k in ("is_error", "result_subset"):
            if k in entry:
                raise CaseFileError("%s: '%s' only applies to result expectations" % (where, k))
    if "id" in entry and "id_raw" in entry:
        raise CaseFileError("%s: use 'id' or 'id_raw', not both" % where)
    if "id_raw" in entry and not isinstance(entry["id_raw"], str):
        raise CaseFileError("%s: 'id_raw' must be a string" % where)
    if "is_error" in entry and entry["is_error"] is not True:
        raise CaseFileError("%s: 'is_error' may only be true" % where)
    if "result_subset" in entry and not isinstance(entry["result_subset"], dict):
        raise CaseFileError("%s: 'result_subset' must be an object" % where)


def _check_entries(entries, where, allow_batch=True):
    if not isinstance(entries, list):
        raise CaseFileError("%s: must be a list" % where)
    for i, e in enumerate(entries):
        _check_entry(e, "%s[%d]" % (where, i), allow_batch)


def case_bytes(case):
    """The exact bytes a case writes to the server's stdin."""
    if "send_hex" in case:
        return bytes.fromhex(re.sub(r"\s+", "", case["send_hex"]))
    text = PAD_RE.sub(lambda m: "x" * (int(m.group(1)) * LINE // CORPUS_LINE), case["send"])
    return text.encode("utf-8")  # strict: a lone surrogate in the case file is an error


def load_cases(path):
    cases = []
    names = set()
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CaseFileError("%s: not UTF-8: %s" % (path, e))
    # Split on LF only: str.splitlines() would also split on U+2028, \x1c, ...
    for lineno, line in enumerate(text.split("\n"), 1):
        if line.endswith("\r"):
            line = line[:-1]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = "%s:%d" % (os.path.basename(path), lineno)
        try:
            case = json.loads(line)
        except ValueError as e:
            raise CaseFileError("%s: invalid JSON: %s" % (where, e))
        if not isinstance(case, dict):
            raise CaseFileError("%s: a case must be a JSON object" % where)
        extra = set(case) - CASE_KEYS
        if extra:
            raise CaseFileError("%s: unknown keys %s" % (where, sorted(extra)))
        name = case.get("name")
        if not isinstance(name, str) or not name:
            raise CaseFileError("%s: 'name' must be a non-empty string" % where)
        where = "%s (%s)" % (where, name)
        if name in names:
            raise CaseFileError("%s: duplicate name" % where)
        names.add(name)
        if case.get("category") not in CATEGORIES:
            raise CaseFileError("%s: 'category' must be one of %s" % (where, CATEGORIES))
        case.setdefault("state", "ready")
        if case["state"] not in STATES:
            raise CaseFileError("%s: 'state' must be one of %s" % (where, STATES))
        case.setdefault("version", DEFAULT_VERSION)
        if not isinstance(case["version"], str):
            raise CaseFileError("%s: 'version' must be a string" % where)
        if ("send" in case) == ("send_hex" in case):
            raise CaseFileError("%s: exactly one of 'send' or 'send_hex' is required" % where)
        if "send" in case and not isinstance(case["send"], str):
            raise CaseFileError("%s: 'send' must be a string" % where)
        if "send_hex" in case:
            if not isinstance(case["send_hex"], str):
                raise CaseFileError("%s: 'send_hex' must be a string" % where)
            try:
                bytes.fromhex(re.sub(r"\s+", "", case["send_hex"]))
            except ValueError as e:
                raise CaseFileError("%s: bad 'send_hex': %s" % (where, e))
        try:
            payload = case_bytes(case)
        except UnicodeEncodeError as e:
            raise CaseFileError("%s: 'send' is not encodable as UTF-8 (%s); use send_hex "
                                "or escape the backslash" % (where, e))
        if not payload.endswith(b"\n"):
            raise CaseFileError("%s: the bytes sent must end with a newline" % where)
        if ("expect" in case) == ("expect_batch" in case):
            raise CaseFileError("%s: exactly one of 'expect' or 'expect_batch' is required"
                                % where)
        if "expect_batch" in case:
            _check_entries(case["expect_batch"], where + " expect_batch", allow_batch=False)
            case["expect"] = [{"batch": case.pop("expect_batch")}]
        _check_entries(case["expect"], where + " expect")
        if "timeout" in case and (not isinstance(case["timeout"], (int, float))
                                  or isinstance(case["timeout"], bool)
                                  or case["timeout"] <= 0):
            raise CaseFileError("%s: 'timeout' must be a positive number" % where)
        needs = case.setdefault("needs", [])
        if not (isinstance(needs, list) and all(isinstance(n, str) and n for n in needs)):
            raise CaseFileError("%s: 'needs' must be a list of non-empty strings" % where)
        if "note" in case and not isinstance(case["note"], str):
            raise CaseFileError("%s: 'note' must be a string" % where)
        case["_index"] = len(cases) + 1
        cases.append(case)
    return cases


# --------------------------------------------------------------------------- raw JSON scanning
# A tiny tolerant scanner over *server output* that finds the raw byte span of values, so
# that ids can be compared byte for byte (huge integers, escaped strings).

WS = b" \t\r\n"


def _skip_ws(b, i):
    while i < len(b) and b[i] in WS:
        i += 1
    return i


def _scan_string(b, i):
    if i >= len(b) or b[i] != 0x22:
        raise ValueError("string expected at %d" % i)
    i += 1
    while i < len(b):
        c = b[i]
        if c == 0x5C:
            i += 2
            continue
        if c == 0x22:
            return i + 1
        i += 1
    raise ValueError("unterminated string")


def _scan_value(b, i):
    i = _skip_ws(b, i)
    if i >= len(b):
        raise ValueError("value expected at end")
    c = b[i]
    if c == 0x22:
        return i, _scan_string(b, i)
    if c in b"{[":
        start = i
        depth = 0
        while i < len(b):
            c = b[i]
            if c == 0x22:
                i = _scan_string(b, i)
                continue
            if c in b"{[":
                depth += 1
            elif c in b"}]":
                depth -= 1
                if depth == 0:
                    return start, i + 1
            i += 1
        raise ValueError("unterminated container")
    start = i
    while i < len(b) and b[i] not in b",}] \t\r\n":
        i += 1
    if i == start:
        raise ValueError("value expected at %d" % i)
    return start, i


def object_members(b, start=0):
    """[(decoded_key, raw_value_bytes)] of the JSON object at b[start:]."""
    i = _skip_ws(b, start)
    if i >= len(b) or b[i] != 0x7B:
        raise ValueError("object expected")
    i = _skip_ws(b, i + 1)
    out = []
    if i < len(b) and b[i] == 0x7D:
        return out
    while True:
        i = _skip_ws(b, i)
        ks = i
        i = _scan_string(b, i)
        key = json.loads(b[ks:i].decode("utf-8"))
        i = _skip_ws(b, i)
        if i >= len(b) or b[i] != 0x3A:
            raise ValueError("':' expected")
        vs, ve = _scan_value(b, i + 1)
        out.append((key, b[vs:ve]))
        i = _skip_ws(b, ve)
        if i < len(b) and b[i] == 0x2C:
            i += 1
            continue
        if i < len(b) and b[i] == 0x7D:
            return out
        raise ValueError("',' or '}' expected")


def array_elements(b, start=0):
    """Raw byte spans of the elements of the JSON array at b[start:]."""
    i = _skip_ws(b, start)
    if i >= len(b) or b[i] != 0x5B:
        raise ValueError("array expected")
    i = _skip_ws(b, i + 1)
    out = []
    if i < len(b) and b[i] == 0x5D:
        return out
    while True:
        vs, ve = _scan_value(b, i)
        out.append(b[vs:ve])
        i = _skip_ws(b, ve)
        if i < len(b) and b[i] == 0x2C:
            i += 1
            continue
        if i < len(b) and b[i] == 0x5D:
            return out
        raise ValueError("',' or ']' expected")


def raw_top_id(b):
    """Raw bytes of the top-level "id" member of the object b, or None."""
    for key, raw in object_members(b):
        if key == "id":
            return raw
    return None


# --------------------------------------------------------------------------- matching

def strict_eq(a, b):
    """JSON equality that keeps bool/int/float/str apart (1 != 1.0 != true)."""
    if isinstance(a, dict):
        return (isinstance(b, dict) and a.keys() == b.keys()
                and all(strict_eq(a[k], b[k]) for k in a))
    if isinstance(a, list):
        return (isinstance(b, list) and len(a) == len(b)
                and all(strict_eq(x, y) for x, y in zip(a, b)))
    return type(a) is type(b) and a == b


def describe(entry):
    return json.dumps(entry, ensure_ascii=True)


def match_entry(exp, obj, raw):
    """None when the reply (parsed obj, raw bytes) matches the expectation, else a reason."""
    if not isinstance(obj, dict):
        return "expected a single response object"
    if obj.get("jsonrpc") != "2.0":
        return "reply lacks \"jsonrpc\":\"2.0\""
    if "code" in exp:
        if "result" in obj:
            return "expected error %d, got a result" % exp["code"]
        err = obj.get("error")
        if not isinstance(err, dict):
            return "expected error %d, reply has no error object" % exp["code"]
        code = err.get("code")
        if type(code) is not int:
            return "error.code is not an integer"
        if not isinstance(err.get("message"), str):
            return "error.message is not a string"
        if code != exp["code"]:
            return "expected error %d, got error %d" % (exp["code"], code)
    else:
        if "error" in obj:
            e = obj["error"]
            return "expected a result, got error %s" % (
                e.get("code") if isinstance(e, dict) else e)
        res = obj.get("result")
        if not isinstance(res, dict):
            return "expected a result object"
        if exp.get("is_error"):
            if res.get("isError") is not True:
                return "expected a result with isError:true"
        elif res.get("isError") is True:
            return "unexpected isError:true result"
        for k, v in exp.get("result_subset", {}).items():
            if k not in res or not strict_eq(res[k], v):
                return "result.%s: expected %s, got %s" % (
                    k, json.dumps(v), json.dumps(res.get(k, "<missing>")))
    if "id_raw" in exp:
        try:
            rid = raw_top_id(raw)
        except (ValueError, UnicodeDecodeError) as e:
            return "cannot scan reply for id: %s" % e
        want = exp["id_raw"].encode("utf-8")
        if rid is None:
            return "expected id %s, reply has no id" % exp["id_raw"]
        if rid != want:
            return "expected raw id %s, got %s" % (
                exp["id_raw"][:80], rid[:80].decode("utf-8", "replace"))
    elif "id" in exp:
        if "id" not in obj:
            return "expected id %s, reply has no id" % json.dumps(exp["id"])
        if not strict_eq(obj["id"], exp["id"]):
            return "expected id %s, got id %s" % (json.dumps(exp["id"]), json.dumps(obj["id"]))
    elif "id" in obj:
        return "expected no id member, got id %s" % json.dumps(obj["id"])
    return None


def match_batch(entries, obj, raw):
    if not isinstance(obj, list):
        return "expected a batch (array) reply"
    if len(obj) != len(entries):
        return "expected a batch of %d responses, got %d" % (len(entries), len(obj))
    try:
        raws = array_elements(raw)
    except (ValueError, UnicodeDecodeError) as e:
        return "cannot scan batch reply: %s" % e
    if len(raws) != len(obj):
        return "cannot scan batch reply"
    used = [False] * len(obj)
    for exp in entries:  # JSON-RPC allows any order inside a batch reply
        reasons = []
        for j, (o, r) in enumerate(zip(obj, raws)):
            if used[j]:
                continue
            why = match_entry(exp, o, r)
            if why is None:
                used[j] = True
                break
            reasons.append(why)
        else:
            return "no batch element matches %s (%s)" % (describe(exp), "; ".join(reasons))
    return None


# --------------------------------------------------------------------------- one server process

class Server:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0)
        self.lines = queue.Queue()
        self.stderr_tail = collections.deque(maxlen=40)
        self.skipped = 0
        self.readers = [threading.Thread(target=self._read_stdout, daemon=True),
                        threading.Thread(target=self._read_stderr, daemon=True)]
        for t in self.readers:
            t.start()

    def _read_stdout(self):
        try:
            for line in iter(self.proc.stdout.readline, b""):
                self.lines.put(line)
        except (OSError, ValueError):
            pass
        self.lines.put(None)

    def _read_stderr(self):
        try:
            for line in iter(self.proc.stderr.readline, b""):
                self.stderr_tail.append(line[:400].decode("utf-8", "replace").rstrip())
        except (OSError, ValueError):
            pass

    def write(self, data, deadline):
        err = []

        def run():
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError) as e:
                err.append(e)

        t = threading.Thread(target=run, daemon=True)
        t.start()
        t.join(max(0.0, deadline - time.monotonic()))
        if t.is_alive():
            raise Fail("timed out writing %d bytes to the server (not reading stdin?)"
                       % len(data))
        if err:
            raise Fail("writing to the server failed: %s (exit status %s)"
                       % (err[0], self.proc.poll()))

    def next_message(self, deadline, what):
        """Next non-notification message as (raw_bytes, parsed); skips S->C notifications."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Fail("timed out waiting for %s" % what)
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                raise Fail("timed out waiting for %s" % what)
            if line is None:
                self.lines.put(None)
                rc = self.proc.poll()
                raise Fail("server closed stdout while waiting for %s (exit status %s)"
                           % (what, rc))
            raw = line.rstrip(b"\n")
            if raw.endswith(b"\r"):
                raise Fail("server wrote a CR before LF: %r" % raw[-60:])
            try:
                obj = json.loads(raw.decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                raise Fail("server wrote a non-JSON line: %r" % raw[:200])
            if isinstance(obj, dict) and "method" in obj and "id" not in obj:
                self.skipped += 1
                continue
            if isinstance(obj, dict) and "method" in obj:
                raise Fail("unexpected server->client request: %s"
                           % raw[:200].decode("utf-8", "replace"))
            return raw, obj

    def finish(self, exit_wait=EXIT_WAIT):
        """Close stdin; return (extra non-notification lines, exit status or None)."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        deadline = time.monotonic() + exit_wait
        extra = []
        while True:
            try:
                raw, _ = self.next_message(deadline, "EOF")
                extra.append(raw)
            except Fail as e:
                if "closed stdout" in str(e):
                    break
                if "timed out" in str(e):
                    break
                extra.append(str(e).encode())
                # keep draining: a bad line must not hide the exit status
        try:
            rc = self.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            rc = None
        return extra, rc

    def kill(self):
        if self.proc.poll() is None:
            try:
                self.proc.kill()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        # A pipe is closed only once its reader thread has seen EOF. Closing it under a
        # reader that is between two read(2) calls frees the descriptor number while the
        # thread still holds it: the next pipe another case opens gets that number, and the
        # old thread steals its first byte (seen as a server's first line or input missing
        # its "{" under --jobs). A reader that never ends (a grandchild holding the pipe)
        # keeps its descriptor open: a leak for one case, never a stolen byte.
        for t, pipe in zip(self.readers, (self.proc.stdout, self.proc.stderr)):
            t.join(5)
            if not t.is_alive():
                try:
                    pipe.close()
                except OSError:
                    pass


def short(raw, n=160):
    s = raw.decode("utf-8", "replace")
    return s if len(s) <= n else s[:n] + "...(%d bytes)" % len(raw)


def handshake(srv, version, deadline):
    init = {"jsonrpc": "2.0", "id": "hs-init", "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {},
                       "clientInfo": {"name": "picomcp-malformed-runner", "version": "0"}}}
    srv.write((json.dumps(init, separators=(",", ":")) + "\n").encode(), deadline)
    raw, obj = srv.next_message(deadline, "the initialize response (handshake)")
    if not (isinstance(obj, dict) and obj.get("id") == "hs-init" and isinstance(obj.get("result"), dict)):
        raise Fail("handshake: bad initialize response: %s" % short(raw))
    got = obj["result"].get("protocolVersion")
    if got != version:
        raise Fail("handshake: asked for %s, server chose %r" % (version, got))
    srv.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n', deadline)
    return obj["result"]


def run_case(case, argv, default_timeout, verbose, timeout_scale=1.0):
    """(ok, detail) for one case. The case's timeout (or default_timeout), and the wait
    for the exit after EOF, are multiplied by timeout_scale (slow links, emulators)."""
    idx = case["_index"]
    timeout = case.get("timeout", default_timeout) * timeout_scale
    exit_wait = EXIT_WAIT * max(1.0, timeout_scale)
    try:
        srv = Server(argv)
    except OSError as e:
        return False, "cannot start the server %r: %s" % (argv[0], e)
    try:
        deadline = time.monotonic() + timeout
        if case["state"] == "ready":
            handshake(srv, case["version"], deadline)
        srv.write(case_bytes(case), deadline)
        for k, exp in enumerate(case["expect"], 1):
            label = "expected reply #%d %s" % (k, describe(exp))
            raw, obj = srv.next_message(deadline, label)
            if "batch" in exp:
                why = match_batch(exp["batch"], obj, raw)
            else:
                why = match_entry(exp, obj, raw)
            if why:
                raise Fail("reply #%d: %s; got %s" % (k, why, short(raw)))
        ping_id = "after-%d" % idx
        srv.write(('{"jsonrpc":"2.0","id":"%s","method":"ping"}\n' % ping_id).encode(), deadline)
        raw, obj = srv.next_message(deadline, "the reply to the trailing ping")
        if not (isinstance(obj, dict) and obj.get("id") == ping_id
                and obj.get("jsonrpc") == "2.0" and strict_eq(obj.get("result"), {})):
            if case["expect"]:
                raise Fail("unexpected extra reply before the trailing ping's: %s" % short(raw))
            raise Fail("expected no reply, got %s" % short(raw))
        extra, rc = srv.finish(exit_wait)
        if extra:
            raise Fail("unexpected output after the trailing ping: %s" % short(extra[0]))
        if rc is None:
            raise Fail("server did not exit within %gs of stdin EOF" % exit_wait)
        if rc != 0:
            raise Fail("server exited with status %d after stdin EOF" % rc)
        return True, None
    except Fail as e:
        detail = str(e)
        if verbose and srv.stderr_tail:
            detail += "\n    stderr: " + "\n    stderr: ".join(list(srv.stderr_tail)[-8:])
        return False, detail
    finally:
        srv.kill()


# --------------------------------------------------------------------------- features
# What a server offers, as a set of names that a case's "needs" are compared with:
#   - every capability it declares in `initialize` (`tools`, `resources`, `prompts`,
#     `logging`, `completions`, ...) and every sub-flag that is true, as
#     `<capability>.<flag>` (`resources.subscribe`, `tools.listChanged`, ...);
#   - the name of every tool in tools/list, the URI of every resource in resources/list
#     and the name of every prompt in prompts/list (each asked only when declared);
#   - `batches`: JSON-RPC batches in 2025-03-26. No capability announces them (that
#     revision requires them), so they count as offered unless --features-off says not.

ASSUMED_FEATURES = ("batches",)
LIST_PAGES = 20


def _list_all(srv, method, key, field, deadline):
    out, cursor = [], None
    for page in range(LIST_PAGES):
        req = {"jsonrpc": "2.0", "id": "feat-%s-%d" % (key, page), "method": method}
        if cursor is not None:
            req["params"] = {"cursor": cursor}
        srv.write((json.dumps(req, separators=(",", ":")) + "\n").encode(), deadline)
        raw, obj = srv.next_message(deadline, "the %s response (feature discovery)" % method)
        res = obj.get("result") if isinstance(obj, dict) and obj.get("id") == req["id"] else None
        if not isinstance(res, dict) or not isinstance(res.get(key), list):
            raise Fail("%s: unexpected reply %s" % (method, short(raw)))
        out += [x[field] for x in res[key] if isinstance(x, dict) and isinstance(x.get(field), str)]
        cursor = res.get("nextCursor")
        if not isinstance(cursor, str):
            break
    return out


def discover_features(argv, timeout):
    """The feature names the server offers (see above), from one fresh process."""
    srv = Server(argv)
    try:
        deadline = time.monotonic() + timeout
        result = handshake(srv, DEFAULT_VERSION, deadline)
        caps = result.get("capabilities")
        if not isinstance(caps, dict):
            raise Fail("initialize result has no capabilities object")
        feats = set(ASSUMED_FEATURES)
        for cap, val in caps.items():
            feats.add(cap)
            if isinstance(val, dict):
                feats.update("%s.%s" % (cap, k) for k, v in val.items() if v is True)
        if "tools" in caps:
            feats.update(_list_all(srv, "tools/list", "tools", "name", deadline))
        if "resources" in caps:
            feats.update(_list_all(srv, "resources/list", "resources", "uri", deadline))
        if "prompts" in caps:
            feats.update(_list_all(srv, "prompts/list", "prompts", "name", deadline))
        return feats
    finally:
        srv.kill()


def split_list(text):
    return [x for x in (t.strip() for t in (text or "").split(",")) if x]


# --------------------------------------------------------------------------- main

def main(argv):
    if "--" in argv:
        cut = argv.index("--")
        own, server_cmd = argv[:cut], argv[cut + 1:]
    else:
        own, server_cmd = argv, []
    ap = argparse.ArgumentParser(
        prog="run_process.py",
        usage="%(prog)s [options] -- SERVER_CMD...   |   %(prog)s --check")
    ap.add_argument("--max-line", type=int, default=CORPUS_LINE,
                    help="passed to the server as --max-line N (default 4096); the "
                         "@PAD(N)@ lengths scale with it")
    ap.add_argument("--filter", default=None, help="run only cases whose name contains SUBSTR")
    ap.add_argument("--jobs", type=int, default=4, help="parallel server processes (default 4)")
    ap.add_argument("--timeout", type=float, default=5.0,
                    help="per-case timeout in seconds (default 5; a case may override)")
    ap.add_argument("--timeout-scale", type=float, default=1.0, metavar="N",
                    help="multiply every timeout by N (slow servers, e.g. an emulated UART)")
    ap.add_argument("--features", default=None, metavar="LIST",
                    help="comma-separated features the server offers; skips asking it")
    ap.add_argument("--features-off", default="", metavar="LIST",
                    help="comma-separated features the server lacks although it does not "
                         "say so (e.g. batches); removed from what it declares")
    ap.add_argument("--cases", default=DEFAULT_CASES, help="case file (default: cases.jsonl)")
    ap.add_argument("--check", action="store_true",
                    help="only validate the case file and print counts per category")
    ap.add_argument("--verbose", "-v", action="store_true",
                    help="show the server's stderr tail on failures")
    args = ap.parse_args(own)
    global LINE
    LINE = args.max_line

    try:
        cases = load_cases(args.cases)
    except (CaseFileError, OSError) as e:
        print("case file error: %s" % e, file=sys.stderr)
        return 2
    if args.filter:
        cases = [c for c in cases if args.filter in c["name"]]

    if args.check:
        counts = collections.Counter(c["category"] for c in cases)
        for cat in CATEGORIES:
            print("%-10s %d" % (cat, counts.get(cat, 0)))
        print("%-10s %d" % ("total", len(cases)))
        return 0
    if not server_cmd:
        ap.error("missing SERVER_CMD after --")
    if not cases:
        print("no cases selected", file=sys.stderr)
        return 2

    full_argv = server_cmd + ["--max-line", str(args.max_line)]
    scale = args.timeout_scale if args.timeout_scale > 0 else 1.0
    passed = failed = skipped = 0
    off = set(split_list(args.features_off))
    if args.features is not None:
        features = set(split_list(args.features))
        how = "given"
    else:
        try:
            features = discover_features(full_argv, args.timeout * scale)
            how = "declared"
        except (Fail, OSError) as e:
            # Without knowing what the server offers, hold it to every case.
            failed += 1
            print("not ok - feature discovery: %s" % e, flush=True)
            features, how = None, "unknown"
    if features is not None:
        features -= off
        print("# features (%s%s): %s" % (
            how, ", off: " + ",".join(sorted(off)) if off else "", ",".join(sorted(features))),
            flush=True)

    def missing(case):
        return [] if features is None else [n for n in case["needs"] if n not in features]

    runnable = [c for c in cases if not missing(c)]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {id(c): pool.submit(run_case, c, full_argv, args.timeout, args.verbose, scale)
                   for c in runnable}
        for case in cases:
            lack = missing(case)
            if lack:
                skipped += 1
                why = ", ".join("%s (%s)" % (n, "turned off by --features-off" if n in off
                                               else "not declared by the server")
                                for n in lack)
                print("ok - %s # SKIP needs %s" % (case["name"], why), flush=True)
                continue
            ok, detail = futures[id(case)].result()
            if ok:
                passed += 1
                print("ok - %s" % case["name"], flush=True)
            else:
                failed += 1
                print("not ok - %s: %s" % (case["name"], detail), flush=True)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
