#!/usr/bin/env python3
"""Regenerates fuzz/seeds/<target>/ from the bad-input corpus and the spec examples.

    fuzz/make_seeds.py            # rewrite every seed directory (deterministic)

Sources: tests/malformed/cases.jsonl (the `send` texts; @PAD(N)@ capped at 6000 bytes so
the seeds stay small while still exceeding the 4096-byte line limit) and the 2026-07-28
schema examples (../shared/spec/examples/2026-07-28, or the copy in tests/corpus/).
The session seeds are programs in the command language of fuzz/src/session.rs.
Python 3 standard library only.
"""

import glob
import hashlib
import json
import os
import re
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CASES = os.path.join(ROOT, "tests", "malformed", "cases.jsonl")
EXAMPLE_DIRS = [
    os.path.join(ROOT, "..", "shared", "spec", "examples", "2026-07-28"),
    os.path.join(ROOT, "tests", "corpus", "spec-2026-07-28"),
]
PAD_RE = re.compile(r"@PAD\((\d+)\)@")
PAD_CAP = 6000

# Command opcodes (fuzz/src/session.rs).
FEED, FEED_LINE, ADVANCE, RESPOND, RESPOND_ERROR, SEND_REQUEST, CANCEL, NOTIFY, \
    SEND_NOTIFICATION, PROGRESS, LOG, INPUT, CAP_OR_LISTEN, CLOSE, EOF, ADVANCE_S = range(16)
# Config byte bits.
ALL, LEGACY, MODERN, OLD = 0, 1, 2, 3
SMALL_LINE, TIGHT, FEW_SLOTS, EMPTY_CAPS, NO_TIMEOUT = 4, 8, 16, 32, 64
# Indexes into protocol::METHODS.
M = {name: i for i, name in enumerate([
    "initialize", "notifications/initialized", "ping", "notifications/cancelled",
    "notifications/progress", "tools/list", "tools/call", "notifications/tools/list_changed",
    "resources/list", "resources/templates/list", "resources/read", "resources/subscribe",
    "resources/unsubscribe", "notifications/resources/updated",
    "notifications/resources/list_changed", "prompts/list", "prompts/get",
    "notifications/prompts/list_changed", "logging/setLevel", "notifications/message",
    "completion/complete", "roots/list", "notifications/roots/list_changed",
    "sampling/createMessage", "elicitation/create", "notifications/elicitation/complete",
    "tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "notifications/tasks/status",
    "server/discover", "subscriptions/listen", "notifications/subscriptions/acknowledged"])}


def line(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def feed(data):
    if isinstance(data, str):
        data = data.encode()
    out = b""
    while True:
        chunk, data = data[:65535], data[65535:]
        out += bytes([FEED]) + struct.pack("<H", len(chunk)) + chunk
        if not data:
            return out


def op(code, *args):
    return bytes([code, *args])


def load_cases():
    cases = []
    with open(CASES, encoding="utf-8") as f:
        for raw in f:
            raw = raw.strip()
            if not raw or raw.startswith("#"):
                continue
            c = json.loads(raw)
            if "send_hex" in c:
                data = bytes.fromhex("".join(c["send_hex"].split()))
            else:
                text = PAD_RE.sub(lambda m: "x" * min(int(m.group(1)), PAD_CAP), c["send"])
                data = text.encode("utf-8")
            cases.append((c["name"], c.get("state", "ready"), c.get("version", "2025-11-25"), data))
    return cases


def load_examples():
    for d in EXAMPLE_DIRS:
        if os.path.isdir(d):
            files = sorted(glob.glob(os.path.join(d, "*", "*.json")))
            out = []
            for p in files:
                with open(p, "rb") as f:
                    raw = f.read()
                if len(raw) <= 4096:
                    name = os.path.relpath(p, d).replace(os.sep, "_")
                    out.append((name, raw, json.loads(raw)))
            return out
    return []


def init(version="2025-11-25", caps=None):
    caps = caps if caps is not None else {"roots": {"listChanged": True}, "sampling": {},
                                          "elicitation": {"form": {}}}
    return (line({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                  "params": {"protocolVersion": version, "capabilities": caps,
                             "clientInfo": {"name": "seed", "version": "1"}}}) + "\n"
            + line({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")


META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}, "sampling": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "seed", "version": "1"}}


def modern(id_, method, params=None, meta_extra=None):
    p = dict(params or {})
    p["_meta"] = dict(META, **(meta_extra or {}))
    return line({"jsonrpc": "2.0", "id": id_, "method": method, "params": p}) + "\n"


PING = line({"jsonrpc": "2.0", "id": "after", "method": "ping"}) + "\n"

# What a picomcp server answers (captured from the core; fuzz/src/session.rs client ids
# start at 0).
DISCOVER_RESULT = {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                   "capabilities": {"tools": {"listChanged": True},
                                    "resources": {"subscribe": True, "listChanged": True},
                                    "prompts": {}, "logging": {}},
                   "ttlMs": 0, "cacheScope": "private",
                   "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}}
INIT_RESULT = {"protocolVersion": "2025-11-25",
               "capabilities": {"tools": {"listChanged": True},
                                "resources": {"subscribe": True, "listChanged": True},
                                "prompts": {}, "logging": {}, "tasks": {"list": {}}},
               "serverInfo": {"name": "s", "version": "1"}}


def resp(id_, result):
    return line({"jsonrpc": "2.0", "id": id_, "result": result}) + "\n"


def err(id_, code, msg="x"):
    return line({"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": msg}}) + "\n"


def req(id_, method, params=None):
    m = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        m["params"] = params
    return line(m) + "\n"


def note(method, params=None):
    m = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        m["params"] = params
    return line(m) + "\n"


def answer_all(n=4):
    out = b""
    for i in range(n):
        out += op(RESPOND, 0, i) + op(RESPOND_ERROR, 0, i, i)
    return out


def server_seeds(cases, examples):
    seeds = {}
    cfg_for = {"2024-11-05": OLD, "2025-03-26": OLD, "2025-06-18": LEGACY, "2025-11-25": ALL}
    for i, (name, state, version, data) in enumerate(cases):
        cfg = cfg_for.get(version, ALL) | (TIGHT if i % 5 == 0 else 0) | (FEW_SLOTS if i % 7 == 0 else 0)
        prog = bytes([cfg, i & 255])
        if state == "ready":
            prog += feed(init(version))
        prog += feed(data) + answer_all(2) + feed(PING) + op(ADVANCE, 0x10, 0x27) + op(EOF)
        seeds["case_" + name] = prog
    # Modern era: discover, then each example request with its own id.
    for name, raw, obj in examples:
        if not (isinstance(obj, dict) and "method" in obj):
            continue
        params = obj.get("params") if isinstance(obj.get("params"), dict) else {}
        params = dict(params)
        params.setdefault("_meta", META)
        msg = dict(obj, params=params)
        text = line(msg) + "\n"
        for cfg in (MODERN, ALL):
            prog = bytes([cfg, len(seeds) & 255])
            prog += feed(modern(1, "server/discover")) + feed(text)
            prog += op(INPUT, 0, 1) + op(RESPOND, 0, 2) + op(PROGRESS, 0, 3)
            prog += op(LOG, 0, 8 | 1) + feed(PING) + op(EOF)
            seeds["example_%d_%s" % (cfg, name)] = prog
        # And the same line in a legacy session.
        seeds["legacy_example_" + name] = (bytes([ALL, 3]) + feed(init()) + feed(line(obj) + "\n")
                                           + answer_all(1) + op(EOF))
    # Hand-written flows that exercise host commands.
    flows = {
        "legacy_full": bytes([ALL, 1]) + feed(init())
        + feed(req(1, "tools/call", {"name": "echo", "arguments": {}, "_meta": {"progressToken": "p"}}))
        + op(PROGRESS, 0, 1) + op(PROGRESS, 0, 4) + op(LOG, 0, 3) + op(RESPOND, 0, 2)
        + op(SEND_REQUEST, M["roots/list"], 0, 0) + op(SEND_REQUEST, M["sampling/createMessage"], 3, 4)
        + feed(resp(0, {"roots": []})) + op(NOTIFY, 0) + op(NOTIFY, 3)
        + feed(req(2, "resources/subscribe", {"uri": "file:///a"})) + op(RESPOND, 0, 0) + op(NOTIFY, 3)
        + feed(req(3, "logging/setLevel", {"level": "error"})) + op(LOG, 0, 1) + op(LOG, 0, 6)
        + op(ADVANCE, 0xe8, 0x03) + op(CANCEL, 0, 1) + op(SEND_REQUEST, M["ping"], 0, 2)
        + feed(err(1, -32601)) + op(ADVANCE_S, 9) + op(CLOSE),
        "legacy_cancel": bytes([LEGACY, 2]) + feed(init("2025-06-18"))
        + feed(req("a", "tools/call", {"name": "slow"})) + feed(note("notifications/cancelled", {"requestId": "a"}))
        + op(RESPOND, 0, 0) + feed(req("a", "ping")) + op(EOF),
        "legacy_dup": bytes([ALL, 3]) + feed(init()) + feed(req(5, "tools/list") * 3) + answer_all(3) + op(EOF),
        "batch_2025_03_26": bytes([OLD, 4]) + feed(init("2025-03-26"))
        + feed("[" + req(1, "ping").strip() + "," + req(2, "tools/list").strip() + "," + note("notifications/x").strip() + "]\n")
        + answer_all(2) + feed("[]\n[1,2]\n") + op(EOF),
        "modern_full": bytes([MODERN, 5]) + feed(modern(1, "server/discover"))
        + feed(modern(2, "subscriptions/listen", {"notifications": {"toolsListChanged": True, "resourceSubscriptions": ["file:///a"]}}))
        + op(NOTIFY, 0) + op(NOTIFY, 3) + feed(modern(3, "tools/call", {"name": "x", "arguments": {}}, {"io.modelcontextprotocol/logLevel": "debug", "progressToken": 7}))
        + op(LOG, 0, 8) + op(PROGRESS, 0, 2) + op(INPUT, 0, 1 | 8) + feed(modern(4, "prompts/get", {"name": "p"}))
        + op(CAP_OR_LISTEN, 0, 0) + feed(modern(5, "resources/read", {"uri": "file:///a"})) + op(RESPOND_ERROR, 0, 3, 1)
        + feed(note("notifications/cancelled", {"requestId": 2})) + op(CLOSE),
        "modern_tight": bytes([MODERN | TIGHT | SMALL_LINE | FEW_SLOTS, 6]) + feed(modern(1, "server/discover"))
        + feed(modern(2, "tools/list") * 4) + answer_all(4) + op(EOF),
        "fresh_garbage": bytes([ALL, 7]) + feed(b"\x00\xff\r\n{\"id\":1}\n" + b"x" * 5000 + b"\n") + feed(PING) + op(EOF),
    }
    # Reproducers of the bugs the targets found (core/tests/regressions.rs), so a short
    # run finds them again at once.
    overlong = (req(1, "tools/list") + req(2, "tools/list")
                + '{"jsonrpc":"2.0","id":9,"method":"ping"}' + " " * 4200)
    for end, name in ((op(EOF), "eof"), (op(CLOSE), "close"), (feed("\n") + op(RESPOND, 0, 0), "next")):
        flows["regression_overlong_kept_" + name] = (bytes([ALL | FEW_SLOTS, 8]) + feed(init())
                                                     + feed(overlong) + end + feed(PING) + op(EOF))
        flows["regression_overlong_kept_tight_" + name] = (bytes([ALL | TIGHT | SMALL_LINE, 9]) + feed(init())
                                                           + feed(note("x") * 4 + "x" * 700) + end + op(EOF))
    flows["regression_timeout_after_close"] = (bytes([ALL, 10]) + feed(init())
                                               + op(SEND_REQUEST, M["ping"], 0, 2) + op(CLOSE) + op(ADVANCE, 100, 0))
    flows["regression_timeout_after_eof"] = (bytes([ALL, 11]) + feed(init())
                                             + op(SEND_REQUEST, M["roots/list"], 0, 2) + op(EOF) + op(ADVANCE_S, 2))
    b1 = '[' + req(1, "tools/list").strip() + ']'
    b2 = '[' + req(2, "tools/list").strip() + ']'
    flows["regression_second_batch_split"] = (bytes([OLD, 12]) + feed(init("2025-03-26"))
                                              + feed(b1 + "\n" + b2[:10]) + feed(b2[10:] + "\n")
                                              + op(RESPOND, 0, 0) + feed(PING) + op(RESPOND, 0, 0) + op(EOF))
    flows["regression_batch_respond_error"] = (bytes([OLD, 13]) + feed(init("2025-03-26"))
                                               + feed("[" + req(1, "tools/list").strip() + "," + req(2, "ping").strip() + "]\n")
                                               + op(RESPOND_ERROR, 0, 0, 1) + feed(b2 + "\n") + op(RESPOND, 0, 0) + op(EOF))
    flows["regression_batch_duplicate_id"] = (bytes([OLD, 14]) + feed(init("2025-03-26"))
                                              + feed("[" + req(1, "ping").strip() + "," + req(1, "tools/list").strip() + "]\n")
                                              + op(RESPOND, 0, 0) + op(EOF))
    seeds.update(flows)
    return seeds


def client_seeds(cases, examples):
    seeds = {}
    legacy_open = feed(resp(0, INIT_RESULT))
    modern_open = feed(resp(0, DISCOVER_RESULT))
    server_reqs = (req("s1", "ping") + req("s2", "roots/list") + req("s3", "sampling/createMessage", {"messages": [], "maxTokens": 5})
                   + req("s4", "elicitation/create", {"message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}))
    flows = {
        "legacy_full": bytes([LEGACY, 1]) + legacy_open + feed(server_reqs) + answer_all(4)
        + op(SEND_REQUEST, M["tools/list"], 0, 4) + feed(note("notifications/progress", {"progressToken": 1, "progress": 1, "total": 2}))
        + feed(resp(1, {"tools": []})) + op(SEND_REQUEST, M["tools/call"], 2, 2) + op(ADVANCE, 20, 0)
        + op(SEND_REQUEST, M["prompts/list"], 0, 0) + op(CANCEL, 0, 1) + feed(resp(3, {"prompts": []}))
        + op(NOTIFY, 0) + feed(note("notifications/tools/list_changed")) + feed(err(9, -32600)) + op(EOF),
        "legacy_timeout": bytes([LEGACY, 2]) + op(ADVANCE_S, 61) + op(EOF),
        "legacy_reject": bytes([LEGACY, 3]) + feed(err(0, -32602, "bad version")),
        "legacy_old_version": bytes([LEGACY, 4]) + feed(resp(0, dict(INIT_RESULT, protocolVersion="2024-11-05"))) + feed(server_reqs) + op(EOF),
        "probe_fallback_error": bytes([ALL, 5]) + feed(err(0, -32601, "Method not found")) + feed(resp(1, INIT_RESULT)) + feed(server_reqs) + answer_all(2) + op(EOF),
        "probe_fallback_timeout": bytes([ALL, 6]) + op(ADVANCE_S, 4) + feed(resp(1, INIT_RESULT)) + op(EOF),
        "probe_unsupported": bytes([ALL, 7]) + feed(line({"jsonrpc": "2.0", "id": 0, "error": {"code": -32022, "message": "unsupported", "data": {"supported": ["2025-11-25"]}}}) + "\n") + feed(resp(1, INIT_RESULT)) + op(EOF),
        "modern_full": bytes([MODERN, 8]) + modern_open + op(SEND_REQUEST, M["tools/call"], 2, 4)
        + feed(resp(1, {"resultType": "input_required", "inputRequests": {"e": {"method": "elicitation/create", "params": {"message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}}}, "requestState": "abc"}))
        + op(INPUT, 0, 0) + feed(resp(2, {"content": [], "resultType": "complete"}))
        + op(CAP_OR_LISTEN, 0, 1) + feed(note("notifications/subscriptions/acknowledged", {"notifications": {"toolsListChanged": True}, "_meta": {"io.modelcontextprotocol/subscriptionId": 3}}))
        + feed(note("notifications/tools/list_changed", {"_meta": {"io.modelcontextprotocol/subscriptionId": 3}}))
        + op(CANCEL, 0, 0) + op(SEND_REQUEST, M["resources/read"], 5, 1) + op(ADVANCE, 20, 0) + op(EOF),
        "modern_all": bytes([ALL, 9]) + modern_open + op(SEND_REQUEST, M["tools/list"], 0, 0) + feed(resp(1, {"tools": [], "ttlMs": 5})) + feed(req("x", "ping")) + op(EOF),
    }
    seeds.update(flows)
    for i, (name, state, version, data) in enumerate(cases):
        cfg = (LEGACY if i % 2 else MODERN) | (TIGHT if i % 5 == 0 else 0)
        opening = legacy_open if cfg & 3 == LEGACY else modern_open
        seeds["case_" + name] = (bytes([cfg, i & 255]) + opening + op(SEND_REQUEST, M["tools/list"], 0, 0)
                                 + feed(data) + answer_all(1) + feed(resp(1, {"tools": []})) + op(EOF))
    for name, raw, obj in examples:
        if not isinstance(obj, dict) or "jsonrpc" not in obj:
            continue
        msg = dict(obj)
        if "result" in msg or "error" in msg:
            msg["id"] = 1
        for cfg in (LEGACY, MODERN):
            opening = legacy_open if cfg == LEGACY else modern_open
            method = M["tools/call"] if "Tool" in name else M["resources/read"] if "Resource" in name else M["prompts/get"]
            seeds["example_%d_%s" % (cfg, name)] = (bytes([cfg, len(seeds) & 255]) + opening
                                                    + op(SEND_REQUEST, method, 2, 4)
                                                    + feed(line(msg) + "\n") + answer_all(1) + op(INPUT, 0, 0) + op(EOF))
    return seeds


def schema_seeds():
    """`schema \\0 instance` pairs: every case of the JSON-Schema-Test-Suite copy (one
    instance per group, to keep the seeds few) and the demo's tool schemas."""
    seeds = {}
    suite = os.path.join(ROOT, "core", "tests", "data", "json-schema-test-suite")
    for path in sorted(glob.glob(os.path.join(suite, "*.json"))):
        stem = os.path.splitext(os.path.basename(path))[0]
        with open(path, encoding="utf-8") as f:
            groups = json.load(f)
        for gi, group in enumerate(groups):
            tests = group["tests"]
            case = tests[gi % len(tests)]
            seeds["suite_%s_%d" % (stem, gi)] = (
                json.dumps(group["schema"], separators=(",", ":")) + "\0" + json.dumps(case["data"])
            ).encode()
    echo = '{"type":"object","properties":{"text":{"type":"string","description":"The text to return"}},"required":["text"]}'
    seeds["echo"] = (echo + '\0{"text":"hello"}').encode()
    seeds["echo_missing"] = (echo + "\0{}").encode()
    seeds["ref_cycle"] = b'{"$ref":"#"}\0[1]'
    seeds["recursive"] = b'{"items":{"$ref":"#"},"uniqueItems":true}\0[[[[]]],[[[]]]]'
    return seeds


def main():
    cases = load_cases()
    examples = load_examples()
    targets = {}
    caps = [255, 255, 64, 16, 200, 1]
    targets["framing"] = {}
    for i, (name, _s, _v, data) in enumerate(cases):
        n = i % 4
        offs = b"".join(struct.pack("<H", (i * 37 + k * 101) % (len(data) + 1)) for k in range(n))
        targets["framing"]["case_" + name] = bytes([caps[i % len(caps)], n | ((i % 3) << 4)]) + offs + data
    stream = "".join(line(o) + "\n" for _n, _r, o in examples[:40]).encode()
    targets["framing"]["examples_stream"] = bytes([255, 0x23]) + struct.pack("<HH", 7, 900) + stream
    targets["framing"]["examples_stream_small"] = bytes([100, 0x12]) + struct.pack("<H", 333) + stream[:3000].replace(b"\n", b"\r\n")

    targets["json_scanner"] = {}
    for name, _s, _v, data in cases:
        targets["json_scanner"]["case_" + name] = data.rstrip(b"\n")
    for name, raw, _o in examples:
        targets["json_scanner"]["example_" + name] = raw
    targets["json_scanner"]["surrogates"] = b'["\\ud83d\\ude00","\\u00e9\\/\\b\\f\\n\\r\\t",1e400,-0.0e-7,12345678901234567890123]'

    targets["jsonrpc_parse"] = {}
    for i, (name, _s, _v, data) in enumerate(cases):
        first = data.split(b"\n")[0].rstrip(b"\r")
        targets["jsonrpc_parse"]["case_" + name] = bytes([i % 16]) + first
    for i, (name, raw, obj) in enumerate(examples):
        if isinstance(obj, dict) and "jsonrpc" in obj:
            targets["jsonrpc_parse"]["example_" + name] = bytes([0]) + line(obj).encode()

    targets["schema_validate"] = schema_seeds()
    targets["server_session"] = server_seeds(cases, examples)
    targets["client_session"] = client_seeds(cases, examples)

    # URI templates: `template \0 uri` (fuzz/src/uri_template.rs).
    targets["uri_template"] = {}
    for i, (t, u) in enumerate([
        ("file:///{name}", "file:///readme.txt"),
        ("file:///logs/{service}/{+path}{?since,level}", "file:///logs/api/a/b.log?level=error&since=5m"),
        ("{+path}/meta/{id}", "a/meta/b/meta/c"),
        ("{name}.{ext}", "a.tar.gz"),
        ("X{.x,y}", "X.1024.768"),
        ("{/who,dub}", "/fred/me%2Ftoo"),
        ("{;v,empty,who}", ";v=6;empty;who=fred"),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("page{#frag}", "page#sec/1?x"),
        ("search{?q}{&page}", "search?page=2&q=mcp"),
        ("prefix-{id}", "prefix-prefix-123"),
        ("docs://\u00e9{name}\u00e9", "docs://\u00e9a\u00e9\u00e9"),
    ]):
        targets["uri_template"]["t%02d" % i] = t.encode() + b"\0" + u.encode()
    # Roots: `[rules] roots (newline-separated) \0 target` (fuzz/src/roots.rs).
    targets["roots"] = {}
    for i, (rules, roots, t) in enumerate([
        (0, ["file:///home/ann/project"], "/home/ann/project/src/../main.rs"),
        (0, ["file:///home/ann/project"], "file:///home/ann/project/%2e%2e/x"),
        (0, ["file:///a", "file:///"], "file://localhost/b/c"),
        (1, ["file:///Users/Ann"], "/users/ann/%C3%A9"),
        (3, ["file:///C:/Users/ann"], "c:\\users\\ann\\x.txt."),
        (3, ["file:///C:/Users/ann"], "file:///C:/Users/ann/a%5C..%5Cb"),
        (0, ["file://evil.com/x", "file:///x"], "/x/y"),
    ]):
        targets["roots"]["r%02d" % i] = bytes([rules]) + "\n".join(roots).encode() + b"\0" + t.encode()

    targets["http_codec"] = http_codec_seeds()
    targets["http_endpoint"] = http_endpoint_seeds()
    targets["http_auth"] = http_auth_seeds()

    total = 0
    for target, seeds in targets.items():
        d = os.path.join(HERE, "seeds", target)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        seen = set()
        for name, data in sorted(seeds.items()):
            h = hashlib.sha1(data).hexdigest()[:8]
            if h in seen:
                continue
            seen.add(h)
            safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:80]
            with open(os.path.join(d, "%s-%s" % (safe, h)), "wb") as f:
                f.write(data)
            total += len(data)
        print("%-16s %4d seeds" % (target, len(seen)))
    print("total %.0f KiB" % (total / 1024))


HTTP_MALFORMED = os.path.join(ROOT, "core", "tests", "http_malformed.txt")


def http_unescape(text):
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            e = text[i + 1]
            if e == "x":
                out.append(int(text[i + 2:i + 4], 16))
                i += 4
                continue
            out += {"r": b"\r", "n": b"\n", "t": b"\t", "\\": b"\\"}[e]
            i += 2
            continue
        out += c.encode()
        i += 1
    return bytes(out)


def http_endpoint_seeds():
    """Requests separated by 0xFF, each `[op] body` (fuzz/src/http_endpoint.rs): a legacy
    session's life (initialize, initialized, a call, GET, resumption, DELETE), the
    2026-07-28 stateless call, and refusals."""
    init = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}'
    note = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
    call = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":7}}}'
    modern = (b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{},'
              b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}')
    join = lambda recs: b"\xff".join(bytes([op]) + body for op, body in recs)
    seeds = {}
    for v in (b"2025-03-26", b"2025-06-18", b"2025-11-25"):
        seeds["life_" + v.decode()] = join([
            (0, init % v), (32, note), (32, call), (33, b""), (4, b"\x40"), (32, call),
            (5, b""), (33, b"1-1"), (34, b""), (32, call)])
    seeds["batch"] = join([(0, init % b"2025-03-26"), (32, note), (32, b"[" + call + b"," + note + b"]")])
    seeds["modern"] = join([(128, modern), (128 | 64, modern), (128, b"{}"), (5, b"")])
    seeds["refused"] = join([(8, init % b"2025-06-18"), (16, init % b"2025-06-18"), (3, b""),
                             (64, call), (0, b"{bad"), (1, b""), (2, b"")])
    seeds["flood"] = join([(0, init % b"2025-06-18")] * 12 + [(4, b"\x7f")])
    return seeds


def http_auth_seeds():
    """Requests separated by 0xFF, each `[op] target \0 authorization \0 body`
    (fuzz/src/http_auth.rs): the metadata document, no token, good and bad tokens
    (audience, expiry, scope, rejected, malformed, in the query), a step-up."""
    init = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}'
    admin = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"admin"}}'
    rec = lambda op, target, auth, body=b"": bytes([op]) + target + b"\0" + auth + b"\0" + body
    join = lambda recs: b"\xff".join(recs)
    good = b"Bearer alice|r|2000000|0|mcp"
    return {
        "metadata": join([rec(1, b"/.well-known/oauth-protected-resource", b""),
                          rec(1, b"/.well-known/oauth-protected-resource/mcp", b""),
                          rec(0, b"/.well-known/oauth-protected-resource", b"")]),
        "tokens": join([rec(0, b"/mcp", b"", init), rec(0, b"/mcp", good, init),
                        rec(0, b"/mcp", b"Bearer a|http://x/mcp|2000000|0|mcp", init),
                        rec(0, b"/mcp", b"Bearer a|r|10|0|mcp", init),
                        rec(0, b"/mcp", b"Bearer a|r|2000000|9999999|mcp", init),
                        rec(0, b"/mcp", b"Bearer !forged", init),
                        rec(0, b"/mcp", b"Bearer a b", init),
                        rec(4, b"/mcp", good, init),
                        rec(0, b"/mcp?access_token=x", good, init)]),
        "step_up": join([rec(0, b"/mcp", good, admin),
                         rec(0, b"/mcp", b"Bearer alice|r|2000000|0|mcp+admin", admin),
                         rec(0, b"/mcp", b"Bearer alice|r|2000000|0|admin", admin)]),
    }


def http_codec_seeds():
    """`[flags] [split seed] stream` (fuzz/src/http_codec.rs): the malformed-request
    corpus, well-formed requests (pipelined, chunked, HTTP/1.0), responses and SSE."""
    seeds = {}
    with open(HTTP_MALFORMED, encoding="utf-8") as f:
        for i, line in enumerate(l for l in f.read().splitlines() if l and not l.startswith("#")):
            status, req = line.split(" ", 1)
            seeds["bad_%02d_%s" % (i, status)] = bytes([i % 16, i]) + http_unescape(req)
    good = [
        b"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
        b"POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nAGET /b HTTP/1.1\r\nHost: h\r\n\r\n"
        b"POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;x=y\r\nCC\r\n0\r\nT: 1\r\n\r\n"
        b"DELETE /d HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
        b"GET /1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\nHEAD /2 HTTP/1.0\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}",
        b"\r\n\r\nGET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\nHost: h\n\n",
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"1b\r\nid: s-1\ndata: {\"jsonrpc\":1}\n\n\r\n0\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
        b"\xef\xbb\xbf: c\r\nid: 1\revent: e\ndata: a\r\ndata\n\nretry: 300\n\ndata: z\n\n",
    ]
    for i, g in enumerate(good):
        for flags in (0, 1, 2, 4 | 8, 16 | 3):
            seeds["good_%02d_%02x" % (i, flags)] = bytes([flags, i + 7]) + g
    return seeds


if __name__ == "__main__":
    main()
