#!/usr/bin/env python3
"""The compiled HTTP demos' loops cost the fewest syscalls a readiness loop can: per request
of a keep-alive client, one wait (epoll_wait or poll), one read and ONE write (the head, the
body and a chunked end gathered first), nothing else (no entropy read per request, no read
that only finds the socket empty). Counted, not timed: `strace -c` attached to the server
after the session is set up, over N echo requests on one connection.

    tests/http_syscalls.py [NAME ...]      (default: rust c, from examples/servers.json)

Builds each demo with its "build" command; installs Debian's strace when it is missing.
Fails when reads or writes exceed one per request (plus a little slack for the set-up
around the measured run), or waits exceed two per request (timer wake-ups).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from procs import free_port, stop, wait_listening  # noqa: E402

N = 300
READS = {"read", "recvfrom", "recvmsg", "readv"}
WRITES = {"write", "sendto", "sendmsg", "writev"}
WAITS = {"epoll_wait", "epoll_pwait", "epoll_pwait2", "poll", "ppoll", "select", "pselect6"}


class Client:
    """One keep-alive HTTP/1.1 connection; each request goes out in one send."""

    def __init__(self, port: int):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.port = port
        self.sid = None

    def post(self, body: dict) -> tuple[int, bytes]:
        data = json.dumps(body, separators=(",", ":")).encode()
        head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(data)}\r\n")
        if self.sid:
            head += f"Mcp-Session-Id: {self.sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
        self.s.sendall(head.encode() + b"\r\n" + data)
        while b"\r\n\r\n" not in self.buf:
            self.recv()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        fields = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
        if "mcp-session-id" in fields:
            self.sid = fields["mcp-session-id"]
        if fields.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                while b"\r\n" not in self.buf:
                    self.recv()
                size, self.buf = self.buf.split(b"\r\n", 1)
                n = int(size.split(b";")[0], 16)
                while len(self.buf) < n + 2:
                    self.recv()
                body, self.buf = body + self.buf[:n], self.buf[n + 2:]
                if n == 0:
                    return status, body
        n = int(fields.get("content-length", "0"))
        while len(self.buf) < n:
            self.recv()
        body, self.buf = self.buf[:n], self.buf[n:]
        return status, body

    def recv(self):
        chunk = self.s.recv(65536)
        if not chunk:
            raise RuntimeError("server closed the connection")
        self.buf += chunk


def count(name: str, argv: list[str]) -> list[str]:
    port = free_port()
    argv = [a.replace("{port}", str(port)) for a in argv]
    log = open(ROOT / "target" / "test-logs" / f"http_syscalls-{name}.log", "wb")
    srv = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    out = tempfile.NamedTemporaryFile(suffix=".strace", delete=False).name
    tracer = None
    try:
        if not wait_listening(port, srv):
            return [f"{name}: not listening on {port}"]
        c = Client(port)
        st, _ = c.post({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "http_syscalls", "version": "0"}}})
        if st != 200 or not c.sid:
            return [f"{name}: initialize answered HTTP {st} without a session"]
        c.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        text = "x" * 1024
        echo = lambda i: c.post({"jsonrpc": "2.0", "id": i, "method": "tools/call",  # noqa: E731
                                 "params": {"name": "echo", "arguments": {"text": text}}})
        for i in range(1, 21):  # warm-up
            echo(i)
        tracer = subprocess.Popen(["strace", "-f", "-c", "-o", out, "-p", str(srv.pid)],
                                  stderr=subprocess.PIPE, text=True)
        line = tracer.stderr.readline()  # "strace: Process N attached"
        if "attached" not in line:
            return [f"{name}: strace did not attach: {line.strip()}"]
        time.sleep(0.2)  # every thread attached
        t0 = time.time()
        for i in range(100, 100 + N):
            st, body = echo(i)
            if st != 200 or text.encode() not in body:
                return [f"{name}: echo {i} answered HTTP {st}: {body[:120]!r}"]
        secs = time.time() - t0
        tracer.send_signal(signal.SIGINT)
        tracer.wait(30)
        calls = {}
        for row in open(out):
            m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", row)
            if m and m.group(2) != "total":
                calls[m.group(2)] = int(m.group(1))
    finally:
        if tracer and tracer.poll() is None:
            tracer.kill()
        stop(srv)
        log.close()
    reads = sum(v for k, v in calls.items() if k in READS)
    writes = sum(v for k, v in calls.items() if k in WRITES)
    waits = sum(v for k, v in calls.items() if k in WAITS)
    print(f"  {name}: {N} requests in {secs:.2f} s: {reads} reads, {writes} writes, {waits} waits; all: "
          + ", ".join(f"{k} {v}" for k, v in sorted(calls.items(), key=lambda kv: -kv[1])))
    errors = []
    # Slack: the tracer attaches during a wait, and sees the server's sweeps.
    if writes > N + 5:
        errors.append(f"{name}: {writes} writes for {N} responses (one each expected)")
    if reads > N + 5:
        errors.append(f"{name}: {reads} reads for {N} requests (one each expected)")
    if waits > 2 * N + 10:
        errors.append(f"{name}: {waits} waits for {N} requests")
    return errors


def main() -> int:
    if not shutil.which("strace"):
        subprocess.run(["apt-get", "install", "-y", "-qq", "strace"], check=True, stdout=subprocess.DEVNULL)
    servers = json.loads((ROOT / "examples" / "servers.json").read_text())
    names = sys.argv[1:] or ["rust", "c"]
    (ROOT / "target" / "test-logs").mkdir(parents=True, exist_ok=True)
    errors = []
    for name in names:
        s = servers[name]
        subprocess.run(s["build"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        errors += count(name, s["http"])
    for e in errors:
        print(f"FAIL {e}")
    print("http_syscalls: " + ("ok" if not errors else f"{len(errors)} failure(s)"))
    return 1 if errors else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
