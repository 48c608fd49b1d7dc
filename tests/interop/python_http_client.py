#!/usr/bin/env python3
"""The official Python SDK's client over Streamable HTTP against every HTTP demo.

    tests/interop/python_http_client.py [NAME ...]     (default: every demo with "http")

Each demo of examples/servers.json that has an "http" command is started on a free port
of 127.0.0.1 and driven by tests/interop/python_client.py --url (mcp 2.3.0,
`Client(URL)`, the SDK's streamable HTTP transport) in legacy mode (initialize,
2025-11-25) and auto mode (server/discover first: 2026-07-28 for a dual-era demo, checked
with --expect-version). Every run must pass all its checks. Installs the SDK with
tests/interop/setup.sh.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from procs import free_port, stop, wait_listening  # noqa: E402
VENV_PY = str(ROOT / "target" / "interop" / "venv" / "bin" / "python")
CLIENT = str(ROOT / "tests" / "interop" / "python_client.py")
LOGS = ROOT / "target" / "test-logs"
MODES = [("legacy", []), ("auto", ["--expect-version", "2026-07-28"])]


def run_one(name: str, argv: list[str]) -> list[bool]:
    port = free_port()
    argv = [a.replace("{port}", str(port)) for a in argv]
    LOGS.mkdir(parents=True, exist_ok=True)
    log = open(LOGS / f"python-http-client-{name}.server.log", "wb")
    proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    results = []
    try:
        if not wait_listening(port, proc, 30):
            print(f"not ok {name}: the server did not listen ({shlex.join(argv)})")
            return [False]
        url = f"http://127.0.0.1:{port}/mcp"
        for mode, extra in MODES:
            cmd = [VENV_PY, CLIENT, "--mode", mode, *extra, "--url", url]
            t0 = time.monotonic()
            r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
            summary = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
            ok = r.returncode == 0
            print(f"{'ok' if ok else 'not ok'} {name} {mode}: {summary} "
                  f"({time.monotonic() - t0:.1f} s)", flush=True)
            if not ok or os.environ.get("VERBOSE"):
                print(r.stdout[-6000:] + r.stderr[-3000:])
            results.append(ok)
    finally:
        stop(proc)
        log.close()
    return results


def main() -> int:
    subprocess.run(["bash", str(ROOT / "tests" / "interop" / "setup.sh")], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    demos = json.loads((ROOT / "examples" / "servers.json").read_text())
    table = {n: e["http"] for n, e in demos.items() if "http" in e}
    names = sys.argv[1:] or list(table)
    unknown = [n for n in names if n not in table]
    if unknown:
        print(f"unknown demo(s): {', '.join(unknown)}; with http: {', '.join(table)}")
        return 2
    results = [ok for n in names for ok in run_one(n, table[n])]
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
