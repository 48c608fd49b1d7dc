#!/usr/bin/env python3
"""CPU time and context switches per request of Python stdio servers, figures that hold on
a busy machine better than req/s: each server runs under the shared load driver (`mcpload`,
set up by `bench/run.sh`) twice, with N and 3N requests, and the difference of its own
rusage (every thread: user+sys, voluntary and involuntary switches) is divided by 2N, so
start-up and the handshake cancel out. A measurement, not a test.

  bench/py_counts.py echo1k-w64 typed=target/python/venv/bin/python:examples/python/echo_server.py \\
      floor=$HOME/.cache/picomcp-bench/venv/bin/python:$HOME/.cache/picomcp-bench/servers/baseline/baseline_echo.py
  N=20000 REPS=3 bench/py_counts.py ping-w1 LABEL=PYTHON:SCRIPT ...

Scenarios: ping-w1, ping-w64, echo1k-w64, echo1k-w1. Prints one line per server and repetition.
"""
import json
import os
import subprocess
import sys
import tempfile

MCPLOAD = os.path.join(os.environ.get("BENCH_HOME", os.path.expanduser("~/.cache/picomcp-bench")),
                       "mcpload/target/release/mcpload")
SCENARIOS = {"ping-w1": ["-k", "ping", "-w", "1"], "ping-w64": ["-k", "ping", "-w", "64"],
             "echo1k-w64": ["-k", "echo", "-w", "64", "-s", "1k"],
             "echo1k-w1": ["-k", "echo", "-w", "1", "-s", "1k"]}
# Runs the server script and appends its rusage (all threads) to $RUSAGE_OUT at exit.
WRAP = """import json, os, resource, runpy, sys
script = sys.argv[1]
sys.argv = sys.argv[1:]
try:
    runpy.run_path(script, run_name="__main__")
finally:
    r = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["RUSAGE_OUT"], "a") as f:
        f.write(json.dumps([r.ru_utime + r.ru_stime, r.ru_nvcsw, r.ru_nivcsw]) + "\\n")
"""


def run(scen: str, py: str, script: str, n: int) -> tuple:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rusage")
        p = subprocess.run([MCPLOAD] + SCENARIOS[scen] + [
            "-n", str(n), "--warmup", "500", "--stderr", "null", "--",
            py, "-c", WRAP, os.path.abspath(script)],
            capture_output=True, text=True, env=dict(os.environ, RUSAGE_OUT=out))
        d = json.loads(p.stdout.strip().splitlines()[-1])
        if not d.get("valid"):
            sys.exit("%s: invalid run: %s" % (script, d.get("fatal") or d.get("first_error")))
        return d, json.loads(open(out).read().splitlines()[-1])


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] not in SCENARIOS:
        sys.exit(__doc__)
    scen, n = sys.argv[1], int(os.environ.get("N", "20000"))
    for rep in range(int(os.environ.get("REPS", "1"))):
        for spec in sys.argv[2:]:
            label, _, rest = spec.partition("=")
            py, _, script = rest.partition(":")
            _, (cpu1, v1, i1) = run(scen, py, script, n)
            d, (cpu2, v2, i2) = run(scen, py, script, 3 * n)
            k = 2 * n
            print("%-14s %-10s rep%d  cpu %6.2f us/req  voluntary %.3f  involuntary %.3f "
                  "switches/req  (%.0f req/s)" % (label, scen, rep, (cpu2 - cpu1) / k * 1e6,
                                                 (v2 - v1) / k, (i2 - i1) / k, d["req_per_s"]),
                  flush=True)


if __name__ == "__main__":
    main()
