#!/usr/bin/env python3
"""HTTP load benchmark (issue 14): our demos over Streamable HTTP against the official SDKs'
reference servers (rmcp on axum, the TypeScript SDK on node:http, the Python SDK on uvicorn),
all in the same run, with the shared load client `mcp-http-load` (../shared/bench/http), and
the floor (bench/http_floor.c: a keep-alive HTTP echo with no MCP, in its "epoll" and "threads"
modes), the upper bound of any server with this client and kernel, against which the compiled
demos and rmcp are compared too. Counted figures per request (syscalls, instructions, on-CPU
time): bench/http_counts.py.

Called by `bench/run.sh --http [options]`; see that script's header for the options.

What is measured, per server and response mode, at 1 and 64 keep-alive connections:
`tools/call echo` with a 1 KiB text (the load client has no `ping` mode: echo only), one shared
legacy session (initialize + notifications/initialized first), one request at a time per
connection. Medians over the repetitions of req/s, p50 latency, server CPU per request
(server CPU seconds in the measured window / requests) and the server's peak RSS (VmHWM).
The ratio table gives, beside the req/s ratios, the reference's server CPU per request over
ours: at one connection req/s measures the round trip (each side waits for the other to
wake; on an idle 2-core machine that wake-up, not either server's work, sets the rate), so
CPU per request is the fair comparison there; `--pin same` (server and client on one CPU)
turns the round trip into CPU time too.

Modes: the reference servers choose with JSON_RESPONSE=1 ("json": one application/json body per
POST) or not ("sse": a text/event-stream per POST that carries the answer); rmcp honours
json_response only without sessions, so its JSON mode is "json-stateless" (RMCP_STATELESS=1 too:
no session id, every POST stands alone). Our demos use the
endpoint's default ResponseMode::Auto ("auto"): a request whose handling causes no other message
(progress, log, a question to the client) is answered with one application/json body, and one
that does gets an SSE stream; the echo causes nothing else, so "auto" answers it as JSON. The
content type each server actually answered with is probed before the load and shown.

`--idle-sessions N`: opens N legacy sessions (initialize + notifications/initialized, then
abandoned: no DELETE) on one keep-alive connection against each server and reports its RSS
after, its peak RSS, the status codes seen, and whether the first session still answers (a
server that bounds its sessions evicts idle ones: the first id then gets 404).
"""
import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_HOME = os.environ.get("BENCH_HOME", os.path.expanduser("~/.cache/picomcp-bench"))
H = os.path.join(BENCH_HOME, "http")
LOAD = os.path.join(H, "target/release/mcp-http-load")
PV = "2025-11-25"
# Which references an implementation of ours is compared with: the official SDK's server and,
# for the compiled demos, the floor (bench/http_floor.c: the least an HTTP server can do per
# request, the upper bound at one connection); the floor itself against rmcp (how far above
# rmcp anything can go).
REF_OF = {"rust": ("rmcp", "floor"), "c": ("rmcp", "floor"), "python": ("py-sdk",), "node": ("ts-sdk",),
          "floor": ("rmcp",)}
FLOOR = os.path.join(ROOT, "target/bench-http/http-floor")


def servers_json():
    with open(os.path.join(ROOT, "examples/servers.json")) as f:
        return json.load(f)


def server_table(extra=()):
    """label -> (argv template with {port}, {mode: env}, cwd, kind)"""
    t = {}
    for spec in extra:  # --server LABEL=CMD: one more of ours, e.g. the demo with other flags
        label, _, cmd = spec.partition("=")
        t[label] = (cmd.split(), {"auto": {}}, ROOT, "ours")
    for name, s in servers_json().items():
        if "http" in s:
            t[name] = (s["http"], {"auto": {}}, ROOT, "ours")
    ref_modes = {"sse": {}, "json": {"JSON_RESPONSE": "1"}}
    # rmcp honours json_response only without sessions: its JSON mode is stateless.
    rmcp_modes = {"sse": {}, "json-stateless": {"RMCP_STATELESS": "1", "JSON_RESPONSE": "1"}}
    # The floor: a keep-alive HTTP server with no MCP (bench/http_floor.c), one epoll thread
    # (the shape of our loops) or a blocking thread per connection (two syscalls a request).
    t["floor"] = ([FLOOR, "{port}"], {"epoll": {}, "threads": {"FLOOR_THREADS": "1"}}, ROOT, "floor")
    t["rmcp"] = ([os.path.join(H, "target/release/rmcp-http-echo"), "{port}"], rmcp_modes, H, "ref")
    t["ts-sdk"] = (["node", os.path.join(H, "servers/ts_http_echo.mjs"), "{port}"], ref_modes, H, "ref")
    t["py-sdk"] = ([os.path.join(H, "venv/bin/python"), os.path.join(H, "servers/py_http_echo.py"), "{port}"],
                   ref_modes, H, "ref")
    return t


def build(labels):
    shared = os.environ.get("PICOMCP_SHARED", os.path.join(ROOT, "../shared"))
    if not os.path.isdir(os.path.join(shared, "bench/http")):
        shared = "/work/shared"
    subprocess.run(["bash", os.path.join(shared, "bench/http/setup.sh")], check=True, stdout=sys.stderr)
    if "floor" in labels:
        os.makedirs(os.path.dirname(FLOOR), exist_ok=True)
        subprocess.run(["cc", "-O2", "-Wall", "-pthread", "-o", FLOOR, os.path.join(ROOT, "bench/http_floor.c")],
                       check=True)
    for name, s in servers_json().items():
        if "http" in s and name in labels and "build" in s:
            print(f"# build {name}: {' '.join(s['build'])}", file=sys.stderr)
            subprocess.run(s["build"], cwd=ROOT, check=True, stdout=sys.stderr)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --pin: CPUs of the server and of the load client (None: the scheduler's choice).
PIN = {"none": (None, None), "same": ({0}, {0}), "split": ({0}, {1})}
pin = PIN["none"]


def affinity(cpus):
    return (lambda: os.sched_setaffinity(0, cpus)) if cpus else None


class Server:
    def __init__(self, label, argv, env, cwd):
        self.port = free_port()
        self.argv = [a.replace("{port}", str(self.port)) for a in argv]
        self.log = open(os.path.join(ROOT, "target/bench-http", f"{label}.log"), "ab")
        self.p = subprocess.Popen(self.argv, cwd=cwd, env={**os.environ, **env},
                                  stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                  preexec_fn=affinity(pin[0]))
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        deadline = time.time() + 60
        while True:
            if self.p.poll() is not None:
                raise RuntimeError(f"{label}: exited with {self.p.returncode} (see target/bench-http/{label}.log)")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline:
                    self.stop()
                    raise RuntimeError(f"{label}: not listening on {self.port} after 60 s")
                time.sleep(0.05)

    def status(self):
        d = {}
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM"):
                    d[k] = int(v.split()[0])
        return d

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(5)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.log.close()


def post(conn, body, sid=None):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if sid:
        h["Mcp-Session-Id"] = sid
        h["MCP-Protocol-Version"] = PV
    conn.request("POST", "/mcp", body=json.dumps(body), headers=h)
    r = conn.getresponse()
    data = r.read()
    return r.status, r.getheader("Content-Type") or "", r.getheader("Mcp-Session-Id"), data


INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": PV, "capabilities": {}, "clientInfo": {"name": "bench-http", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def probe(port):
    """The content type a 1 KiB echo is answered with, checking the echo comes back."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    st, _, sid, body = post(c, INIT)
    if st != 200:
        raise RuntimeError(f"initialize: HTTP {st} {body[:200]!r}")
    post(c, INITIALIZED, sid)
    text = "x" * 1024
    st, ctype, _, body = post(c, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                  "params": {"name": "echo", "arguments": {"text": text}}}, sid)
    if st != 200 or text.encode() not in body:
        raise RuntimeError(f"echo: HTTP {st} {ctype} {body[:200]!r}")
    c.close()
    return "sse" if ctype.startswith("text/event-stream") else "json" if ctype.startswith("application/json") else ctype


def load(srv, conns, secs, warmup):
    out = subprocess.run([LOAD, srv.url, "-c", str(conns), "-d", str(secs), "-w", str(warmup),
                          "--bytes", "1024", "--pid", str(srv.p.pid)],
                         capture_output=True, text=True, timeout=secs + warmup + 60,
                         preexec_fn=affinity(pin[1]))
    if out.returncode != 0:
        raise RuntimeError(f"mcp-http-load: {out.stderr.strip()}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def idle_sessions(label, argv, env, cwd, n, cap_s):
    srv = Server(label + "-idle", argv, env, cwd)
    try:
        before = srv.status()
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        codes, first, opened = {}, None, 0
        t0 = time.time()
        for i in range(n):
            if time.time() - t0 > cap_s:
                break
            try:
                st, _, sid, _ = post(c, INIT)
                if st == 200 and sid:
                    post(c, INITIALIZED, sid)
                    opened += 1
                    first = first or sid
            except (OSError, http.client.HTTPException):
                c.close()
                c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
                st = "error"
            codes[str(st)] = codes.get(str(st), 0) + 1
        secs = time.time() - t0
        time.sleep(1)
        after = srv.status()
        # Does the first session still answer? (ping: 200 when alive, 404 once evicted)
        alive = None
        if first:
            try:
                c2 = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
                st, _, _, _ = post(c2, {"jsonrpc": "2.0", "id": 7, "method": "ping"}, first)
                alive = st
                c2.close()
            except (OSError, http.client.HTTPException) as e:
                alive = str(e)
        c.close()
        return {"server": label, "asked": n, "tried": sum(codes.values()), "opened": opened, "codes": codes,
                "secs": round(secs, 1), "rss_before_kib": before.get("VmRSS"),
                "rss_after_kib": after.get("VmRSS"), "hwm_kib": after.get("VmHWM"),
                "first_session_ping_status": alive}
    finally:
        srv.stop()


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def main():
    ap = argparse.ArgumentParser(prog="bench/run.sh --http")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--secs", type=float, default=None)
    ap.add_argument("--conns", default="1,64")
    ap.add_argument("--only", default=None)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--idle-sessions", type=int, default=10000)
    ap.add_argument("--idle-only", action="store_true")
    ap.add_argument("--idle-cap-s", type=float, default=180)
    ap.add_argument("--no-netns", action="store_true")
    ap.add_argument("--server", action="append", default=[],
                    help="LABEL=CMD with {port}: one more server of ours (compared with the reference "
                         "of LABEL's first dash-separated word)")
    ap.add_argument("--pin", choices=sorted(PIN), default="none",
                    help="same: server and load client on CPU 0; split: server on 0, client on 1")
    ap.add_argument("--table", metavar="SUMMARY_JSON", help="print the table of an earlier summary.json")
    a = ap.parse_args()
    global pin
    pin = PIN[a.pin]
    table = server_table(a.server)
    if a.table:
        with open(a.table) as f:
            s = json.load(f)
        s["ratios"] = ratios(s, table)
        print("\n".join(table_md(s)))
        return
    labels = [l for l in table if not a.only or l in a.only.split(",")]
    if not a.no_build:
        build(labels)
    # Measure in a private network namespace with loopback only (root), as the shared README
    # suggests: nothing else's traffic on that loopback. The builds above needed the network.
    if (not a.no_netns and os.environ.get("BENCH_HTTP_NETNS") != "1" and os.geteuid() == 0
            and subprocess.run(["unshare", "-n", "sh", "-c", "ip link set lo up"],
                               stderr=subprocess.DEVNULL).returncode == 0):
        args = [x for x in sys.argv[1:] if x != "--no-build"] + ["--no-build"]
        r = subprocess.run(["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh",
                            sys.executable, os.path.abspath(__file__), *args],
                           env={**os.environ, "BENCH_HTTP_NETNS": "1"})
        sys.exit(r.returncode)
    reps = 1 if a.quick else a.reps
    secs = a.secs or (1.0 if a.quick else 5.0)
    warm = 0.5 if a.quick else 1.0
    conns = [int(c) for c in a.conns.split(",")]
    out_dir = os.path.join(ROOT, "target/bench-http")
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        if f.endswith(".log"):
            os.remove(os.path.join(out_dir, f))
    netns = os.environ.get("BENCH_HTTP_NETNS") == "1"
    print(f"# HTTP bench: {', '.join(labels)}; conns {conns}; {reps} rep(s) x {secs} s (+{warm} s warm-up); pin {a.pin}; "
          f"{'private network namespace' if netns else 'host loopback'}; load: {os.getloadavg()[0]:.1f}",
          file=sys.stderr)
    raw, answered, failed = [], {}, {}
    if not a.idle_only:
        for rep in range(reps):  # interleaved: every server once per repetition
            for label in labels:
                argv, modes, cwd, _ = table[label]
                for mode, env in modes.items():
                    key = f"{label}/{mode}"
                    if key in failed:
                        continue
                    try:
                        srv = Server(label, argv, env, cwd)
                    except RuntimeError as e:
                        failed[key] = str(e)
                        print(f"! {e}", file=sys.stderr)
                        continue
                    try:
                        answered[key] = probe(srv.port)
                        for c in conns:
                            r = load(srv, c, secs, warm)
                            r.update(server=label, mode=mode, rep=rep)
                            raw.append(r)
                            print(f"  rep {rep} {key:14} c={c:<3} {r['rps']:9.0f} req/s p50 {r['p50_us']} us"
                                  f" errors {r['errors']}+{r['bad']}", file=sys.stderr)
                    except (RuntimeError, subprocess.TimeoutExpired, OSError, http.client.HTTPException) as e:
                        failed[key] = str(e)
                        print(f"! {key}: {e}", file=sys.stderr)
                    finally:
                        srv.stop()
    cells = {}
    for r in raw:
        cells.setdefault((r["server"], r["mode"], r["conns"]), []).append(r)
    summary = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "reps": reps, "secs": secs,
               "pin": a.pin,
               "warmup_s": warm, "netns": netns, "loadavg_at_start": os.getloadavg(),
               "workload": "tools/call echo, 1 KiB text, one shared legacy session, keep-alive (mcp-http-load)",
               "answered_as": answered, "failed": failed, "cells": [], "ratios": [], "idle": [], "raw": raw}
    for (label, mode, c), rs in cells.items():
        rps = med([r["rps"] for r in rs])
        cpu_us = med([r["server_cpu_s"] / r["requests"] * 1e6 if r["requests"] and r["server_cpu_s"] is not None
                      else None for r in rs])
        summary["cells"].append({"server": label, "mode": mode, "answered_as": answered.get(f"{label}/{mode}"),
                                 "conns": c, "rps": rps, "p50_us": med([r["p50_us"] for r in rs]),
                                 "p99_us": med([r["p99_us"] for r in rs]), "server_cpu_us_per_req": cpu_us,
                                 "peak_rss_kib": max(r["server_hwm_kib"] or 0 for r in rs),
                                 "client_cpu_pct": med([100 * r["client_cpu_s"] / r["secs"] for r in rs]),
                                 "errors": sum(r["errors"] + r["bad"] for r in rs), "runs": len(rs)})
    summary["ratios"] = ratios(summary, table)
    if a.idle_sessions > 0:
        for label in labels:
            argv, modes, cwd, kind = table[label]
            if kind == "floor":  # no sessions to keep
                continue
            mode, env = next(iter(modes.items()))
            try:
                r = idle_sessions(label, argv, env, cwd, a.idle_sessions, a.idle_cap_s)
                r["mode"] = mode
                summary["idle"].append(r)
                print(f"  idle {label}: {r}", file=sys.stderr)
            except RuntimeError as e:
                summary["idle"].append({"server": label, "error": str(e)})
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    lines = table_md(summary)
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"\nsummary: {os.path.relpath(out_dir, ROOT)}/summary.json, table.md; server logs beside them")


def ratios(s, table):
    """ours / its reference for each mode of the reference and each connection count: the ratio of
    the medians, and the median of the per-repetition ratios (each taken minutes apart at most, so
    less moved by a load that drifts during the run)."""
    get = {(x["server"], x["mode"], x["conns"]): x for x in s["cells"]}
    by_rep = {(r["server"], r["mode"], r["conns"], r["rep"]): r["rps"] for r in s["raw"]}
    out = []
    for (label, mode, c), x in sorted(get.items()):
        if label not in table or table[label][3] not in ("ours", "floor"):
            continue
        for ref, rmode in [(r, m) for r in REF_OF.get(label.split("-")[0], ()) if r in table for m in table[r][1]]:
            y = get.get((ref, rmode, c))
            if y and x["rps"] and y["rps"]:
                per = [by_rep[(label, mode, c, k)] / by_rep[(ref, rmode, c, k)] for k in range(s["reps"])
                       if by_rep.get((label, mode, c, k)) and by_rep.get((ref, rmode, c, k))]
                # Server CPU per request, reference / ours: the fair figure at one connection,
                # where req/s is bound by the round trip (both sides wake each other) rather
                # than by either server's work.
                cx, cy = x.get("server_cpu_us_per_req"), y.get("server_cpu_us_per_req")
                out.append({"ours": f"{label}/{mode}", "ref": f"{ref}/{rmode}", "conns": c,
                            "rps_ratio": round(x["rps"] / y["rps"], 2),
                            "rps_ratio_median_of_reps": round(med(per), 2) if per else None,
                            "cpu_ratio": round(cy / cx, 2) if cx and cy else None})
    return out


def table_md(s):
    L = [f"HTTP, 1 KiB echo, medians of {s['reps']} x {s['secs']} s, same run "
         f"({'private netns' if s['netns'] else 'host loopback'}, pin {s.get('pin', 'none')}, load average at start "
         f"{s['loadavg_at_start'][0]:.1f}; a shared 2-core machine: read the ratios, not the absolutes)", "",
         "| server | mode (answered as) | conns | req/s | p50 ms | p99 ms | server CPU µs/req | peak RSS MiB "
         "| load client CPU % | errors |",
         "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for x in s["cells"]:
        cpu = f"{x['server_cpu_us_per_req']:.0f}" if x["server_cpu_us_per_req"] is not None else "n/a"
        L.append(f"| {x['server']} | {x['mode']} ({x['answered_as']}) | {x['conns']} | {x['rps']:,.0f} | "
                 f"{x['p50_us'] / 1000:.2f} | {x['p99_us'] / 1000:.2f} | {cpu} | {x['peak_rss_kib'] / 1024:.1f} | "
                 f"{x['client_cpu_pct']:.0f} | {x['errors']} |")
    if s["ratios"]:
        L += ["", "| ours / reference (req/s, same run) | conns | ratio of medians | median of per-rep ratios "
              "| server CPU per request, reference / ours |",
              "|---|---:|---:|---:|---:|"]
        L += [f"| {r['ours']} / {r['ref']} | {r['conns']} | {r['rps_ratio']:.2f}x | "
              f"{r['rps_ratio_median_of_reps']:.2f}x | "
              f"{'%.2fx' % r['cpu_ratio'] if r.get('cpu_ratio') else 'n/a'} |" for r in s["ratios"]]
    for k, v in s["failed"].items():
        L.append(f"\nfailed: {k}: {v}")
    if s["idle"]:
        L += ["", "| idle sessions: server | asked | opened | status codes | secs | RSS before MiB | RSS after MiB "
              "| peak RSS MiB | first session's ping |", "|---|---:|---:|---|---:|---:|---:|---:|---|"]
        for r in s["idle"]:
            if "error" in r:
                L.append(f"| {r['server']} | error: {r['error']} |||||||")
                continue
            mib = lambda v: f"{v / 1024:.1f}" if v else "n/a"
            L.append(f"| {r['server']} | {r['asked']} | {r['opened']} | "
                     f"{', '.join(f'{k}: {v}' for k, v in sorted(r['codes'].items()))} | {r['secs']} | "
                     f"{mib(r['rss_before_kib'])} | {mib(r['rss_after_kib'])} | {mib(r['hwm_kib'])} | "
                     f"{r['first_session_ping_status']} |")
    return L


if __name__ == "__main__":
    main()
