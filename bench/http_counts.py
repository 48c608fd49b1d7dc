#!/usr/bin/env python3
"""Counted per-request figures of the HTTP servers (issue 14's latency at one connection), which
hold on a busy shared machine where req/s do not: for each server and mode of bench/http_load.py,
with the same load client (`mcp-http-load`, 1 KiB echo, keep-alive):

- syscalls per request of the server (`strace -f -c` over a load run; every syscall at least
  once per 10 requests is listed),
- user-space instructions per request of the server (valgrind callgrind, counters zeroed after
  a warm-up and dumped after the measured run; `--no-callgrind` skips it),
- on-CPU time per request of the server and of the load client (from /proc/PID/task/*/schedstat,
  nanoseconds, over the measured window), the user share of the server's, and voluntary
  context switches (sleeps) per request; with `--pin split` (server on CPU 0, client on CPU 1,
  the shape of a quiet 2-core machine: every request wakes the other CPU) or `--pin same`.

    bench/http_counts.py [--only rust,c,rmcp,floor] [--conns 1] [--secs 3] [--pin split|same|none]
                         [--no-strace] [--no-callgrind] [--no-build] [--server 'LABEL=CMD {port}']

Before/after: `--server 'rust-before=/path/to/old/picomcp-demo --http 127.0.0.1:{port}'`.

Builds as bench/http_load.py does (unless --no-build). Prints one table (markdown); nothing
here is timed against a threshold. About 15 s per server and mode with the defaults.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import http_load as H  # noqa: E402  (server table, builds, the load client's path)


def wait_port(port, proc, secs=60):
    deadline = time.time() + secs
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"exited with {proc.returncode}")
        try:
            H.socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"not listening on {port}")


def start(argv, env, cwd, port, wrap=(), cpus=None):
    argv = list(wrap) + [a.replace("{port}", str(port)) for a in argv]
    p = subprocess.Popen(argv, cwd=cwd, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
    wait_port(port, p)
    return p


def load(port, conns, secs, warm, cpus=None, pid=None):
    argv = [H.LOAD, f"http://127.0.0.1:{port}/mcp", "-c", str(conns), "-d", str(secs), "-w", str(warm)]
    if pid:
        argv += ["--pid", str(pid)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, text=True,
                            preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)


def result(lp):
    out, _ = lp.communicate(timeout=120)
    return json.loads(out.strip().splitlines()[-1])


def stop(p, sig=signal.SIGTERM):
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def snap(pid):
    """Per thread: (on-CPU ns, voluntary switches, user ticks, system ticks)."""
    out = {}
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            run = int(open(f"/proc/{pid}/task/{t}/schedstat").read().split()[0])
            vol = 0
            for line in open(f"/proc/{pid}/task/{t}/status"):
                if line.startswith("voluntary_ctxt_switches"):
                    vol = int(line.split()[1])
            f = open(f"/proc/{pid}/task/{t}/stat").read()
            f = f[f.rfind(")") + 2:].split()
            out[t] = (run, vol, int(f[11]), int(f[12]))
        except (FileNotFoundError, ProcessLookupError):
            pass
    return out


def delta(a, b):
    """What the threads did between two snapshots: a thread that ended in between counts
    for nothing (a thread per connection whose client left), one that began counts whole."""
    d = [0, 0, 0, 0]
    for t, y in b.items():
        x = a.get(t, (0, 0, 0, 0))
        for i in range(4):
            d[i] += y[i] - x[i]
    return d


def cpu(argv, env, cwd, port, a, pin):
    p = start(argv, env, cwd, port, cpus=pin[0])
    try:
        lp = load(port, a.conns, a.secs, 0.5, pin[1], p.pid)
        time.sleep(0.5)
        s0, c0 = snap(p.pid), snap(lp.pid)
        time.sleep(a.secs)
        s1, c1 = snap(p.pid), snap(lp.pid)
        r = result(lp)
    finally:
        stop(p)
    n = max(r["requests"], 1)
    d, dc = delta(s0, s1), delta(c0, c1)
    return {"rps": r["rps"], "p50_us": r["p50_us"], "server_us": d[0] / n / 1000,
            "server_user_pct": 100 * d[2] / max(d[2] + d[3], 1), "server_sleeps": d[1] / n,
            "client_us": dc[0] / n / 1000}


def syscalls(argv, env, cwd, port, a):
    with tempfile.NamedTemporaryFile(suffix=".strace", delete=False) as f:
        out = f.name
    p = start(argv, env, cwd, port, wrap=["strace", "-f", "-c", "-o", out])
    try:
        r = result(load(port, a.conns, a.secs, 0))
    finally:
        # strace prints its summary when its child ends: stop the traced server, not strace.
        kids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
        for k in kids[:1]:
            os.kill(int(k), signal.SIGTERM)
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            stop(p)
    n = max(r["requests"], 1)
    calls = {}
    for line in open(out):
        m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", line)
        if m and m.group(2) != "total":
            calls[m.group(2)] = int(m.group(1))
    os.unlink(out)
    per = {k: v / n for k, v in sorted(calls.items(), key=lambda kv: -kv[1]) if v / n >= 0.1}
    return {"syscalls": sum(per.values()), "by_call": per}


def instructions(argv, env, cwd, port, a):
    d = tempfile.mkdtemp(prefix="callgrind-")
    out = os.path.join(d, "cg.out")
    p = start(argv, env, cwd, port, wrap=["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"])
    try:
        result(load(port, a.conns, 0.5, 0))  # warm-up (lazy binding, first allocations)
        subprocess.run(["callgrind_control", "-z", str(p.pid)], capture_output=True, check=True)
        r = result(load(port, a.conns, a.secs, 0))
        subprocess.run(["callgrind_control", "-d", str(p.pid)], capture_output=True, check=True)
    finally:
        stop(p)
    ir = None
    for name in os.listdir(d):
        if name.startswith("cg.out."):  # the dump after zeroing: the measured run only
            for line in open(os.path.join(d, name)):
                if line.startswith("summary:"):
                    ir = int(line.split()[1])
    subprocess.run(["rm", "-rf", d])
    return {"ir_per_req": ir / max(r["requests"], 1) if ir else None}


def main():
    ap = argparse.ArgumentParser(prog="bench/http_counts.py")
    ap.add_argument("--only", default="rust,c,rmcp,floor")
    ap.add_argument("--conns", type=int, default=1)
    ap.add_argument("--secs", type=float, default=3.0)
    ap.add_argument("--pin", choices=sorted(H.PIN), default="split")
    ap.add_argument("--no-strace", action="store_true")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--server", action="append", default=[],
                    help="LABEL=CMD with {port}: one more server (e.g. an earlier build of a demo), "
                         "added to --only")
    a = ap.parse_args()
    table = H.server_table(a.server)
    labels = [x for x in a.only.split(",") if x in table]
    labels += [x.partition("=")[0] for x in a.server if x.partition("=")[0] not in labels]
    if not a.no_build:
        H.build(labels)
    pin = H.PIN[a.pin]
    rows = []
    port = H.free_port()
    for label in labels:
        argv, modes, cwd, _ = table[label]
        for mode, env in modes.items():
            row = {"server": f"{label}/{mode}"}
            try:
                row.update(cpu(argv, env, cwd, port, a, pin))
                if not a.no_strace:
                    row.update(syscalls(argv, env, cwd, port, a))
                if not a.no_callgrind:
                    row.update(instructions(argv, env, cwd, port, a))
            except (RuntimeError, OSError, subprocess.SubprocessError, ValueError) as e:
                row["error"] = str(e)
            print(f"# {row}", file=sys.stderr)
            rows.append(row)
    print(f"\nHTTP counts, 1 KiB echo, {a.conns} connection(s), {a.secs} s runs, pin {a.pin}, "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print("| server | req/s | p50 µs | server on-CPU µs/req (user %) | server sleeps/req | client on-CPU µs/req "
          "| syscalls/req | by call | user instructions/req |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for r in rows:
        if "error" in r:
            print(f"| {r['server']} | error: {r['error']} ||||||||")
            continue
        calls = ", ".join(f"{k} {v:.2f}" for k, v in r.get("by_call", {}).items()) or "n/a"
        ir = f"{r['ir_per_req']:,.0f}" if r.get("ir_per_req") else "n/a"
        sc = f"{r['syscalls']:.2f}" if "syscalls" in r else "n/a"
        print(f"| {r['server']} | {r['rps']:,.0f} | {r['p50_us']} | {r['server_us']:.1f} ({r['server_user_pct']:.0f}) | "
              f"{r['server_sleeps']:.2f} | {r['client_us']:.1f} | {sc} | {calls} | {ir} |")


if __name__ == "__main__":
    main()
