#!/usr/bin/env python3
"""Hostile HTTP requests against every demo's Streamable HTTP transport, over raw sockets.

Usage:
    tests/adversarial/http_hostile.py [--only rust,c,...] [-v]

Each demo with an "http" command in examples/servers.json is started on a free port of
127.0.0.1 (built by the `release` step beforehand, as for `probe_http`), and sent
requests no polite client sends: request smuggling shapes (Content-Length with
Transfer-Encoding, repeated lengths, funky chunk sizes), heads and targets over the
limits, an absolute-form target naming another host, headers that may appear once sent
twice (Mcp-Session-Id, MCP-Protocol-Version, Origin, Mcp-Method), `Accept` with q=0,
coded bodies, batches per revision, ids that must be echoed byte for byte, sessions
after DELETE. The framing and limit cases ("codec: ...") run against the demos whose
HTTP/1.1 layer is picomcp's codec (Rust, C); Python (uvicorn) and Node (node:http)
bring their own parser, so only the MCP cases run there. Each case says the status it
must get (docs/DESIGN.md, "Hostile input");
framing errors must also close the connection; and after every case the server must
still answer a ping. All four demos run the same core endpoint through different
adapters (Rust std loop, C ABI, Python and Node bindings), so they must agree.

Prints `ok - DEMO CASE` / `not ok - DEMO CASE: why` per case, then `N passed, M failed`;
exit status 0 when all pass. Python 3 standard library only. About 10 s per demo.
"""

from __future__ import annotations

import argparse
import json
import shlex
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from procs import free_port, stop, wait_listening  # noqa: E402

# Demos whose HTTP/1.1 layer is not picomcp's codec: their framing and limits (the
# `codec` cases) are that library's, so only the endpoint's cases (the MCP rules) run.
OWN_HTTP = {
    "python": "uvicorn with httptools (the ASGI adapter, Server.asgi())",
    "node": "node:http (llhttp)",
}

ACCEPT = b"application/json, text/event-stream"
META = (b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        b'"io.modelcontextprotocol/clientCapabilities":{}}')


def init_body(version: bytes) -> bytes:
    return (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"'
            + version + b'","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}')


def ping(i: bytes = b"2") -> bytes:
    return b'{"jsonrpc":"2.0","id":' + i + b',"method":"ping"}'


NOTE = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


class Demo:
    def __init__(self, port: int):
        self.port = port

    def exchange(self, data: bytes | tuple[bytes, bytes], timeout: float = 5.0) -> bytes:
        """Sends `data`, reads until the server closes (every case asks it to, or makes
        it) or `timeout`; returns what came back. A pair (head, body) sends the body
        only after the first interim or final head came back (`Expect: 100-continue`)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            out = b""
            if isinstance(data, tuple):
                s.sendall(data[0])
                while b"\r\n\r\n" not in out:
                    d = s.recv(65536)
                    if not d:
                        return out
                    out += d
                data = data[1]
            s.sendall(data)
            try:
                while True:
                    d = s.recv(65536)
                    if not d:
                        break
                    out += d
            except socket.timeout:
                out += b"<timeout>"
            except ConnectionResetError:
                pass
            return out

    def post(self, body: bytes, headers: bytes = b"", accept: bytes = ACCEPT,
             ctype: bytes = b"application/json", host: bytes = b"127.0.0.1") -> bytes:
        return (b"POST /mcp HTTP/1.1\r\nHost: " + host + b"\r\nAccept: " + accept
                + b"\r\nContent-Type: " + ctype + b"\r\n" + headers
                + b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body)

    def session(self, version: bytes) -> bytes:
        r = self.exchange(self.post(init_body(version)))
        sid = header(r, b"mcp-session-id")
        assert sid, f"no session id: {r[:300]!r}"
        self.exchange(self.post(NOTE, b"Mcp-Session-Id: " + sid + b"\r\n"))
        return sid


def header(resp: bytes, name: bytes) -> bytes | None:
    head = resp.split(b"\r\n\r\n", 1)[0]
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == name:
            return v.strip()
    return None


def statuses(resp: bytes) -> list[int]:
    """Status codes of the responses in `resp`, in order (bodies skipped by length)."""
    out = []
    while resp.startswith(b"HTTP/1."):
        head, sep, rest = resp.partition(b"\r\n\r\n")
        if not sep:
            break
        out.append(int(head.split(b" ", 2)[1]))
        n = header(head + b"\r\n\r\n", b"content-length")
        resp = rest[int(n):] if n is not None else b""
    return out


def body(resp: bytes) -> bytes:
    return resp.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in resp else b""


def cases(d: Demo):
    """(name, request bytes, check(response) -> None or why)."""
    sid = d.session(b"2025-06-18")
    s = b"Mcp-Session-Id: " + sid + b"\r\n"
    v = b"MCP-Protocol-Version: 2025-06-18\r\n"
    P = ping()
    head = (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: " + ACCEPT
            + b"\r\nContent-Type: application/json\r\n" + s)

    def status(want: int, closes: bool = False):
        def check(r: bytes):
            got = statuses(r)
            if got[:1] != [want]:
                return f"status {got} (want {want}): {r[:200]!r}"
            if closes and r.endswith(b"<timeout>"):
                return "the connection stayed open after a framing error"
            return None
        return check

    def mcp_error(want_status: int, code: int, id_raw: bytes | None = None):
        def check(r: bytes):
            why = status(want_status)(r)
            if why:
                return why
            try:
                j = json.loads(body(r))
            except ValueError:
                return f"not JSON: {body(r)[:200]!r}"
            if j.get("error", {}).get("code") != code:
                return f"error code {j.get('error')} (want {code})"
            if id_raw is not None and b'"id":' + id_raw not in body(r):
                return f"id {id_raw!r} not echoed: {body(r)[:200]!r}"
            return None
        return check

    def echoes(id_raw: bytes):
        def check(r: bytes):
            why = status(200)(r)
            if why:
                return why
            if not body(r).startswith(b'{"jsonrpc":"2.0","id":' + id_raw + b","):
                return f"id not echoed byte for byte: {body(r)[:200]!r}"
            return None
        return check

    def chunked(raw: bytes) -> bytes:
        return head + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + raw

    # -- framing (the codec; every error closes the connection)
    yield "codec: content-length with transfer-encoding", head + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status(400, True)
    yield "codec: transfer-encoding chunked, identity", head + b"Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n", status(400, True)
    yield "codec: repeated content-length", head + b"Content-Length: 40\r\nContent-Length: 40\r\n\r\n" + P, status(400, True)
    yield "codec: content-length list", head + b"Content-Length: 40, 40\r\n\r\n" + P, status(400, True)
    yield "codec: obs-fold transfer-encoding", head + b"Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n", status(400, True)
    yield "codec: chunk size then junk", chunked(b"1 zz\r\nx\r\n0\r\n\r\n"), status(400, True)
    yield "codec: chunk size overflow", chunked(b"10000000000000000\r\n"), status(400, True)
    yield "codec: chunk data bare LF", chunked(b"%x\r\n" % len(P) + P + b"\n0\r\n\r\n"), status(400, True)
    yield "codec: chunked with extensions, leading zeros, trailers", chunked(b"000%x;a=b\r\n" % len(P) + P + b"\r\n0\r\nX-T: 1\r\n\r\n"), echoes(b"2")
    yield "codec: request target over the limit", b"POST /mcp?" + b"a" * 9000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", status(414, True)
    yield "codec: head over the limit", head + b"X-Big: " + b"a" * 9000 + b"\r\n\r\n", status(431, True)
    yield "codec: body over the limit", head + b"Content-Length: 50000000\r\n\r\n", status(413, True)
    yield "codec: HTTP/2.0 request line", b"GET /mcp HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n", status(505, True)
    yield "codec: space inside the target", b"GET /mcp x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", status(400, True)
    yield "codec: absolute-form target naming another host", head.replace(b"POST /mcp ", b"POST http://evil.example.com/mcp ") + b"Content-Length: 40\r\n\r\n" + P, status(400, True)
    yield "codec: pipelined requests answered in order", (head + b"Content-Length: 40\r\n\r\n" + ping(b"7")) * 2 + head + b"Connection: close\r\nContent-Length: 40\r\n\r\n" + ping(b"8"), \
        lambda r: None if statuses(r) == [200, 200, 200] and r.count(b'"id":7') == 2 and r.rfind(b'"id":7') < r.find(b'"id":8') else f"{statuses(r)} {r[:300]!r}"
    yield "codec: expect 100-continue", (head + b"Expect: 100-continue\r\nConnection: close\r\nContent-Length: 40\r\n\r\n", P), \
        lambda r: None if r.startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 ") else f"{r[:200]!r}"
    # -- MCP header rules (the endpoint)
    yield "accept missing", d.post(P, s + v).replace(b"Accept: " + ACCEPT + b"\r\n", b""), status(406)
    yield "accept q=0 for json", d.post(P, s + v, accept=b"application/json;q=0, text/event-stream"), status(406)
    yield "accept */*", d.post(P, s + v, accept=b"*/*"), echoes(b"2")
    yield "accept in two lines", d.post(P, s + v + b"Accept: text/event-stream\r\n", accept=b"application/json"), echoes(b"2")
    yield "content-type with parameters, any case", d.post(P, s + v, ctype=b"Application/JSON; charset=UTF-8"), echoes(b"2")
    yield "content-type missing", d.post(P, s + v).replace(b"Content-Type: application/json\r\n", b""), status(415)
    yield "content-encoding gzip", d.post(P, s + v + b"Content-Encoding: gzip\r\n"), status(415)
    yield "unknown MCP-Protocol-Version", d.post(P, s + b"MCP-Protocol-Version: 2099-01-01\r\n"), mcp_error(400, -32000, b"2")
    yield "repeated MCP-Protocol-Version", d.post(P, s + v + b"MCP-Protocol-Version: 2099-01-01\r\n"), status(400)
    yield "unknown session", d.post(P, b"Mcp-Session-Id: 0123456789abcdef0123456789abcdef\r\n"), mcp_error(404, -32000, b"2")
    yield "repeated session id", d.post(P, s + b"Mcp-Session-Id: 0123456789abcdef0123456789abcdef\r\n"), status(400)
    yield "no session id", d.post(P, v), mcp_error(400, -32000, b"2")
    yield "forged origin", d.post(P, s + b"Origin: http://evil.example.com\r\n"), status(403)
    yield "forged origin beside an allowed one", d.post(P, s + b"Origin: http://localhost\r\nOrigin: http://evil.example.com\r\n"), status(403)
    yield "host that only starts like [::1]", d.post(P, s, host=b"[::1]evil.example.com"), status(403)
    yield "batch in 2025-06-18", d.post(b"[" + P + b"]", s + v), mcp_error(400, -32600)
    yield "notification only", d.post(b'{"jsonrpc":"2.0","method":"notifications/x"}', s + v), \
        lambda r: None if statuses(r) == [202] and header(r, b"content-length") == b"0" else f"{r[:200]!r}"
    for raw in [b'"\\u0041b"', b"123456789012345678901234567890", b"-0", b'""']:
        yield f"id {raw.decode()} echoed", d.post(ping(raw), s + v), echoes(raw)
    yield "get without session", b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n", status(400)
    # -- 2025-03-26 batches
    old = b"Mcp-Session-Id: " + d.session(b"2025-03-26") + b"\r\n"
    yield "empty batch (2025-03-26)", d.post(b"[]", old), mcp_error(400, -32600)
    yield "batch of invalid entries (2025-03-26)", d.post(b"[1,2]", old), mcp_error(400, -32600)
    yield "batch of notifications (2025-03-26)", d.post(b"[" + NOTE.replace(b"initialized", b"x") + b"]", old), status(202)
    yield "batch with a request and an invalid entry (2025-03-26)", d.post(b"[" + P + b",5]", old), \
        lambda r: None if statuses(r) == [200] and len(json.loads(body(r))) == 2 else f"{r[:300]!r}"
    # -- 2026-07-28
    disc = b'{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{' + META + b"}}"
    mv = b"MCP-Protocol-Version: 2026-07-28\r\n"
    yield "2026-07-28 discover", d.post(disc, mv + b"Mcp-Method: server/discover\r\n"), status(200)
    yield "2026-07-28 without MCP-Protocol-Version", d.post(disc, b"Mcp-Method: server/discover\r\n"), mcp_error(400, -32020, b"9")
    yield "2026-07-28 repeated Mcp-Method", d.post(disc, mv + b"Mcp-Method: server/discover\r\nMcp-Method: tools/call\r\n"), mcp_error(400, -32020, b"9")
    yield "2026-07-28 ping is gone", d.post(ping(b"10").replace(b'"ping"', b'"ping","params":{' + META + b"}"), mv + b"Mcp-Method: ping\r\n"), mcp_error(404, -32601, b"10")
    # -- an id reused while the first request with it is in flight (on another
    # connection): the second POST is refused, the first keeps its stream
    def reused_id(d: Demo) -> bytes:
        slow = (b'{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"sleep",'
                b'"arguments":{"ms":60000,"steps":10000},"_meta":{"progressToken":"t"}}}')
        with socket.create_connection(("127.0.0.1", d.port), timeout=5) as a:
            a.sendall(d.post(slow, s + v))
            seen = b""
            while b"progress" not in seen:  # in flight: its stream has begun
                chunk = a.recv(65536)
                if not chunk:
                    return b"the slow call's stream ended: " + seen
                seen += chunk
            return d.exchange(d.post(ping(b'"dup"'), s + v))
    yield "id reused while in flight", reused_id, mcp_error(400, -32600, b'"dup"')
    # -- the session ends (last: it uses the first session)
    delete = b"DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + s + b"Connection: close\r\n\r\n"
    yield "delete", delete, status(200)
    yield "session after delete", d.post(P, s + v), mcp_error(404, -32000, b"2")
    yield "delete again", delete, status(404)


def alive(d: Demo) -> str | None:
    r = d.exchange(d.post(init_body(b"2025-11-25")))
    return None if statuses(r) == [200] else f"no longer answers: {r[:200]!r}"


def run_demo(name: str, argv: list[str], verbose: bool) -> tuple[int, int]:
    port = free_port()
    argv = [a.replace("{port}", str(port)) for a in argv]
    proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    passed = failed = 0
    try:
        if not wait_listening(port, proc):
            print(f"not ok - {name}: did not listen: {shlex.join(argv)}")
            return 0, 1
        d = Demo(port)
        for case, data, check in cases(d):
            if case.startswith("codec: ") and name in OWN_HTTP:
                continue
            try:
                resp = data(d) if callable(data) else d.exchange(data)
                why = check(resp) or alive(d)
            except OSError as e:
                why = f"{type(e).__name__}: {e}"
            if proc.poll() is not None:
                why = f"the server exited ({proc.returncode})"
            if why:
                failed += 1
                print(f"not ok - {name} {case}: {why}")
            else:
                passed += 1
                if verbose:
                    print(f"ok - {name} {case}")
        if not verbose:
            own = f" (HTTP/1.1 by {OWN_HTTP[name]}: codec cases skipped)" if name in OWN_HTTP else ""
            print(f"{name}: {passed} cases ok" + (f", {failed} failed" if failed else "") + own)
        return passed, failed
    finally:
        stop(proc)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--only", help="comma-separated demo names (examples/servers.json)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    servers = json.loads((ROOT / "examples" / "servers.json").read_text())
    names = [n for n, s in servers.items() if "http" in s]
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    passed = failed = 0
    for n in names:
        p, f = run_demo(n, servers[n]["http"], args.verbose)
        passed += p
        failed += f
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
