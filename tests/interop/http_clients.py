#!/usr/bin/env python3
"""The official SDK clients against every demo over Streamable HTTP.

    tests/interop/http_clients.py [DEMO ...]

For each demo of examples/servers.json that has an "http" command (or the ones named),
starts it on a free port of 127.0.0.1 and runs, against http://127.0.0.1:PORT/mcp:

  - the official Python client (mcp 2.3.0), legacy mode, then auto mode (which must
    negotiate 2026-07-28: every demo serves both eras): tests/interop/python_client.py --url
(The official TypeScript client runs over HTTP in the interop_ts step: ts_client.mjs --url.)

Every run must pass. Installs the SDKs with tests/interop/setup.sh.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from procs import free_port, stop, wait_listening  # noqa: E402

PY = str(ROOT / "target" / "interop" / "venv" / "bin" / "python")
LOGS = ROOT / "target" / "test-logs"


def clients(url: str, scale: list[str]) -> list[tuple[str, list[str]]]:
    out = [
        ("python legacy", [PY, "tests/interop/python_client.py", "--mode", "legacy", *scale, "--url", url]),
        ("python auto", [PY, "tests/interop/python_client.py", "--mode", "auto",
                         "--expect-version", "2026-07-28", *scale, "--url", url]),
    ]
    return out


def run_demo(name: str, entry: dict) -> list[bool]:
    port = free_port()
    argv = [a.replace("{port}", str(port)) for a in entry["http"]]
    scale = ["--timeout-scale", str(entry["timeout_scale"])] if "timeout_scale" in entry else []
    LOGS.mkdir(parents=True, exist_ok=True)
    log = open(LOGS / f"http-clients-{name}.server.log", "wb")
    proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    results = []
    try:
        if not wait_listening(port, proc):
            print(f"not ok {name}: the server did not listen ({shlex.join(argv)})")
            return [False]
        for label, cmd in clients(f"http://127.0.0.1:{port}/mcp", scale):
            r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
            tail = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
            ok = r.returncode == 0
            print(f"{'ok' if ok else 'not ok'} {name} over HTTP, {label} client: {tail}", flush=True)
            if not ok:
                print(r.stdout[-3000:] + r.stderr[-2000:])
            results.append(ok)
    finally:
        stop(proc)
        log.close()
    return results


def main() -> int:
    subprocess.run(["bash", str(ROOT / "tests" / "interop" / "setup.sh")], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    demos = {n: s for n, s in json.loads((ROOT / "examples" / "servers.json").read_text()).items() if "http" in s}
    names = sys.argv[1:] or list(demos)
    missing = [n for n in names if n not in demos]
    if missing:
        print(f"no \"http\" command for: {', '.join(missing)}")
        return 2
    results = [ok for n in names for ok in run_demo(n, demos[n])]
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
