#!/usr/bin/env python3
"""Adversarial byte streams against a stdio MCP server process.

Usage:
    tests/adversarial/run.py [--full] [--max-line 1048576] [--rss-limit-mib 64]
                             [--only NAME[,NAME...]] [--seed N] [-v] -- SERVER_CMD...

The server is started as SERVER_CMD + ["--max-line", N], once per scenario:

  random     random bytes (small: 20 MB, --full: 1 GB); every non-blank line of garbage
             must get exactly one error reply (-32700, or -32600 when overlong)
  endless    one line without a newline (small: 50 MB, --full: 1 GB) that starts like a
             request with id "endless"; then "\\n": exactly one -32600 reply, with that id
  pipelined  tiny valid requests written back to back without waiting (small: 50 000,
             --full: 1 000 000 pings): every id answered exactly once, with a result
  slowloris  valid pings written one byte per millisecond (small: 3 s, --full: 60 s):
             every one answered
  cancels    200 slow requests (`sleep` 10 s), each cancelled at once, then an `echo`:
             answered at once, with a result (a cancelled request must free its slot, or
             the server runs out of them)
  stalled    a client that stops reading: pings written back to back (small: 400 000,
             --full: 4 000 000) while nothing is read for a second after the writes stop
             making progress; then everything is read: every id answered exactly once.
             A server that keeps reading without writing buffers its answers without
             bound; the RSS check catches it

Every scenario first does the initialize handshake and ends with a ping that must be
answered; all output must be valid JSON lines; the peak RSS of the server (VmHWM in
/proc/PID/status, read after the final ping) must stay under --rss-limit-mib, a bound
that does not depend on the input size; and the server must exit with status 0 after
its stdin is closed. Prints one `ok - NAME` / `not ok - NAME: why` line per scenario,
then `N passed, M failed`; exit status 0 when all pass, 1 otherwise, 2 on usage errors.

The RSS is that of the process started (use the server binary itself, not a shell
wrapper). Python 3 standard library only; Linux (/proc) for the RSS check.
"""

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import threading
import time

PING = b'{"jsonrpc":"2.0","id":"final-ping","method":"ping"}\n'
INIT = (b'{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":'
        b'"2025-11-25","capabilities":{},"clientInfo":{"name":"adversarial","version":"1"}}}\n'
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
CHUNK = 1 << 20


class Fail(Exception):
    pass


class Reader(threading.Thread):
    """Reads the server's stdout: counts replies, checks every line is JSON, records the
    replies to string ids, and counts replies to integer ids 1..n_int."""

    def __init__(self, stream, n_int=0):
        super().__init__(daemon=True)
        self.stream = stream
        self.total = 0
        self.bad = []
        self.codes = collections.Counter()
        self.int_hits = bytearray(n_int + 1)
        self.int_other = 0
        self.by_id = collections.defaultdict(list)
        self.cond = threading.Condition()
        self.eof = False
        # Cleared: the reader stops reading (a client that does not read its input).
        self.gate = threading.Event()
        self.gate.set()

    def run(self):
        try:
            for raw in self.stream:
                self.gate.wait()
                self.total += 1
                try:
                    msg = json.loads(raw)
                except ValueError:
                    if len(self.bad) < 5:
                        self.bad.append(raw[:200])
                    continue
                if not isinstance(msg, dict):
                    if len(self.bad) < 5:
                        self.bad.append(raw[:200])
                    continue
                err = msg.get("error")
                if isinstance(err, dict):
                    self.codes[err.get("code")] += 1
                mid = msg.get("id")
                if type(mid) is int and 0 < mid < len(self.int_hits):
                    if "result" in msg:
                        self.int_hits[mid] = min(self.int_hits[mid] + 1, 255)
                    else:
                        self.int_other += 1
                elif isinstance(mid, str):
                    with self.cond:
                        self.by_id[mid].append(msg)
                        self.cond.notify_all()
        finally:
            with self.cond:
                self.eof = True
                self.cond.notify_all()

    def wait_for(self, mid, timeout):
        end = time.monotonic() + timeout
        with self.cond:
            while not self.by_id.get(mid):
                left = end - time.monotonic()
                if left <= 0 or self.eof:
                    return None
                self.cond.wait(left)
            return self.by_id[mid][0]

    def wait_total(self, n, timeout):
        end = time.monotonic() + timeout
        while self.total < n and time.monotonic() < end and not self.eof:
            time.sleep(0.01)
        return self.total >= n


class Server:
    def __init__(self, cmd, max_line, n_int=0):
        self.proc = subprocess.Popen(cmd + ["--max-line", str(max_line)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # Writes go straight to the pipe (os.write); reads are buffered.
        self.fd = self.proc.stdin.fileno()
        self.reader = Reader(self.proc.stdout, n_int)
        self.reader.start()
        self.err_tail = collections.deque(maxlen=20)
        self.err_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self.err_thread.start()

    def _drain_stderr(self):
        for line in self.proc.stderr:
            self.err_tail.append(line.decode("utf-8", "replace").rstrip())

    def write(self, data):
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.fd, view)
            except BrokenPipeError:
                raise Fail("server closed its input (exit status %s)" % self.proc.poll())
            view = view[n:]

    def expect(self, mid, timeout, what):
        msg = self.reader.wait_for(mid, timeout)
        if msg is None:
            raise Fail("no reply to %s within %.0f s (exit status %s)" % (what, timeout, self.proc.poll()))
        return msg

    def handshake(self, timeout):
        self.write(INIT)
        msg = self.expect("init", timeout, "initialize")
        if "result" not in msg:
            raise Fail("initialize failed: %s" % json.dumps(msg)[:200])

    def peak_rss_kib(self):
        try:
            with open("/proc/%d/status" % self.proc.pid) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
        except OSError:
            return None
        return None

    def finish(self, timeout, rss_limit_kib):
        """Final ping, RSS check, then EOF and a clean exit. Returns a summary."""
        self.write(PING)
        msg = self.expect("final-ping", timeout, "the final ping")
        if msg.get("result") != {}:
            raise Fail("final ping answered with %s" % json.dumps(msg)[:200])
        rss = self.peak_rss_kib()
        self.proc.stdin.close()
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise Fail("still running %.0f s after end of input" % timeout)
        self.reader.join(5)
        if status != 0:
            raise Fail("exit status %d after end of input" % status)
        if self.reader.bad:
            raise Fail("invalid output lines, e.g. %r" % self.reader.bad[0])
        if rss is not None and rss > rss_limit_kib:
            raise Fail("peak RSS %.1f MiB over the %.0f MiB bound" % (rss / 1024, rss_limit_kib / 1024))
        return "peak RSS %s" % ("%.1f MiB" % (rss / 1024) if rss is not None else "n/a")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def is_blank(line):
    """A line of only space, tab and CR gets no reply (when not overlong)."""
    return not line.strip(b" \t\r")


def scenario_random(srv, a):
    size = a.random_bytes
    rng = random.Random(a.seed)
    expected = 0
    carry = 0  # length of the unfinished line so far
    carry_blank = True
    written = 0
    srv.handshake(a.timeout)
    base = srv.reader.total
    while written < size:
        n = min(CHUNK, size - written)
        data = rng.randbytes(n)
        parts = data.split(b"\n")
        for i, part in enumerate(parts):
            length = carry + len(part)
            blank = carry_blank and is_blank(part)
            if i < len(parts) - 1:
                if length > a.max_line or not blank:
                    expected += 1
                carry, carry_blank = 0, True
            else:
                carry, carry_blank = length, blank
        srv.write(data)
        written += n
    srv.write(b"\n")
    if carry > a.max_line or not carry_blank:
        expected += 1
    note = srv.finish(a.timeout, a.rss_limit_kib)
    got = srv.reader.total - base - 1  # minus the final ping
    if got != expected:
        raise Fail("%d replies to %d garbage lines" % (got, expected))
    other = {c: n for c, n in srv.reader.codes.items() if c not in (-32700, -32600)}
    if other:
        raise Fail("unexpected error codes %s" % other)
    return "%d MB, %d garbage lines answered, %s" % (size // 10**6, expected, note)


def scenario_endless(srv, a):
    size = a.endless_bytes
    srv.handshake(a.timeout)
    base = srv.reader.total
    head = b'{"jsonrpc":"2.0","id":"endless","method":"ping","params":{"pad":"'
    srv.write(head)
    block = b"x" * CHUNK
    left = size - len(head)
    while left > 0:
        n = min(left, len(block))
        srv.write(block[:n])
        left -= n
    srv.write(b'"}}\n')
    msg = srv.expect("endless", a.timeout, "the endless line")
    code = (msg.get("error") or {}).get("code")
    if code != -32600:
        raise Fail("endless line answered with %s" % json.dumps(msg)[:200])
    note = srv.finish(a.timeout, a.rss_limit_kib)
    if len(srv.reader.by_id["endless"]) != 1 or srv.reader.total - base != 2:
        raise Fail("%d replies in all, %d for the endless line (want 2 and 1)"
                   % (srv.reader.total - base, len(srv.reader.by_id["endless"])))
    return "%d MB line -> -32600 with its id, %s" % (size // 10**6, note)


def check_answered_once(srv, n):
    """Every integer id 1..n got exactly one reply, a result."""
    hits = srv.reader.int_hits
    missing = sum(1 for i in range(1, n + 1) if hits[i] == 0)
    dup = sum(1 for i in range(1, n + 1) if hits[i] > 1)
    if missing or dup or srv.reader.int_other:
        raise Fail("%d unanswered, %d answered twice, %d errors (of %d)"
                   % (missing, dup, srv.reader.int_other, n))


def scenario_pipelined(srv, a):
    n = a.requests
    srv.handshake(a.timeout)
    batch = []
    for i in range(1, n + 1):
        batch.append(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i)
        if len(batch) == 10000 or i == n:
            srv.write(b"".join(batch))
            batch = []
    note = srv.finish(a.timeout, a.rss_limit_kib)
    check_answered_once(srv, n)
    return "%d requests answered once each, %s" % (n, note)


def scenario_slowloris(srv, a):
    srv.handshake(a.timeout)
    stream = b"".join(b'{"jsonrpc":"2.0","id":"slow-%d","method":"ping"}\n' % i for i in range(10000))
    t0 = time.monotonic()
    end = t0 + a.slow_seconds
    i = 0
    while True:
        due = t0 + i * 0.001
        now = time.monotonic()
        if now >= end:
            break
        if due > now:
            time.sleep(due - now)
        srv.write(stream[i:i + 1])
        i += 1
    complete = stream[:i].count(b"\n")
    # Finish the line in progress, then the final request.
    rest = stream[i:]
    srv.write(rest[:rest.index(b"\n") + 1])
    complete += 1
    note = srv.finish(a.timeout, a.rss_limit_kib)
    missing = [k for k in range(complete) if len(srv.reader.by_id.get("slow-%d" % k, [])) != 1]
    if missing:
        raise Fail("%d of %d trickled requests not answered exactly once (first: slow-%d)"
                   % (len(missing), complete, missing[0]))
    return "%d bytes over %.1f s, %d requests answered, %s" % (i, a.slow_seconds, complete, note)


def scenario_stalled(srv, a):
    n = a.stalled_requests
    srv.handshake(a.timeout)
    srv.reader.gate.clear()
    progress = [0]
    errors = []

    def writer():
        try:
            batch = []
            for i in range(1, n + 1):
                batch.append(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i)
                if len(batch) == 10000 or i == n:
                    srv.write(b"".join(batch))
                    progress[0] = i
                    batch = []
        except Exception as e:  # the server died: reported below
            errors.append(e)

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    # Wait until the writes stop making progress (the server stopped reading) or end.
    last, still = -1, time.monotonic()
    while t.is_alive() and time.monotonic() - still < 1.0:
        time.sleep(0.05)
        if progress[0] != last:
            last, still = progress[0], time.monotonic()
    stalled_at = progress[0]
    srv.reader.gate.set()
    t.join(a.timeout)
    if t.is_alive() or errors:
        raise Fail("writing the pings failed: %s" % (errors[0] if errors else "timed out"))
    if stalled_at >= n:
        # Megabytes of answers cannot have fit in the pipe: the server kept reading while
        # nothing it wrote was read, so it held them in memory (a bound it does not have).
        raise Fail("the server read all %d requests while its answers went unread: it "
                   "buffers output without bound instead of pausing its input" % n)
    note = srv.finish(a.timeout, a.rss_limit_kib)
    check_answered_once(srv, n)
    return "%d requests answered once each (input paused after %d), %s" % (n, stalled_at, note)


def scenario_cancels(srv, a):
    srv.handshake(a.timeout)
    batch = []
    for i in range(200):
        batch.append(b'{"jsonrpc":"2.0","id":"slow-%d","method":"tools/call","params":'
                     b'{"name":"sleep","arguments":{"ms":10000}}}\n' % i)
        batch.append(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":'
                     b'{"requestId":"slow-%d","reason":"adversarial"}}\n' % i)
    srv.write(b"".join(batch))
    srv.write(b'{"jsonrpc":"2.0","id":"after","method":"tools/call","params":'
              b'{"name":"echo","arguments":{"text":"still here"}}}\n')
    msg = srv.expect("after", min(a.timeout, 5.0), "the echo after 200 cancelled requests")
    if "result" not in msg:
        raise Fail("echo after 200 cancelled requests answered %s" % json.dumps(msg)[:200])
    note = srv.finish(a.timeout, a.rss_limit_kib)
    answered = sum(1 for i in range(200) if srv.reader.by_id.get("slow-%d" % i))
    return "echo answered after 200 cancels (%d cancelled requests answered anyway), %s" % (
        answered, note)


SCENARIOS = [("random", scenario_random), ("endless", scenario_endless),
             ("pipelined", scenario_pipelined), ("slowloris", scenario_slowloris),
             ("cancels", scenario_cancels), ("stalled", scenario_stalled)]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--full", action="store_true", help="full size (1 GB, 1 M requests, 60 s)")
    p.add_argument("--max-line", type=int, default=1048576)
    p.add_argument("--rss-limit-mib", type=float, default=64)
    p.add_argument("--only", default="", help="comma-separated scenario names")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--timeout", type=float, default=None, help="seconds to wait for a reply")
    p.add_argument("-v", "--verbose", action="store_true", help="show server stderr on failure")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        p.error("give the server command after --")
    a.random_bytes = 10**9 if a.full else 20 * 10**6
    a.endless_bytes = 10**9 if a.full else 50 * 10**6
    a.requests = 1_000_000 if a.full else 50_000
    a.stalled_requests = 4_000_000 if a.full else 400_000
    a.slow_seconds = 60.0 if a.full else 3.0
    a.timeout = a.timeout or (600.0 if a.full else 30.0)
    a.rss_limit_kib = a.rss_limit_mib * 1024
    only = set(filter(None, a.only.split(",")))
    unknown = only - {n for n, _ in SCENARIOS}
    if unknown:
        p.error("unknown scenario(s): %s" % ", ".join(sorted(unknown)))

    passed = failed = 0
    t_all = time.monotonic()
    for name, fn in SCENARIOS:
        if only and name not in only:
            continue
        t0 = time.monotonic()
        try:
            n_int = {"pipelined": a.requests, "stalled": a.stalled_requests}.get(name, 0)
            srv = Server(cmd, a.max_line, n_int=n_int)
        except OSError as e:
            print("not ok - %s: cannot start %s: %s" % (name, cmd[0], e))
            failed += 1
            continue
        try:
            note = fn(srv, a)
            print("ok - %s (%.1f s): %s" % (name, time.monotonic() - t0, note))
            passed += 1
        except Fail as e:
            print("not ok - %s (%.1f s): %s" % (name, time.monotonic() - t0, e))
            if a.verbose:
                for line in srv.err_tail:
                    print("#   stderr: %s" % line)
            failed += 1
        finally:
            srv.kill()
        sys.stdout.flush()
    print("# %.1f s in all" % (time.monotonic() - t_all))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
