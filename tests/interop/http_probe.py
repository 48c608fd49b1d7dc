#!/usr/bin/env python3
"""Our client role over Streamable HTTP: picomcp-probe --url against real HTTP servers.

    tests/interop/http_probe.py [NAME ...]

Servers (each started on a free port of 127.0.0.1, probed, stopped):

  python, python-json, python-stateless
            the official Python SDK (mcp 2.3.0, MCPServer on uvicorn):
            tests/interop/sdk_servers/python_server.py --http PORT [--json|--stateless]
  ts, ts-json
            the official TypeScript SDK 1.32.2 (McpServer, StreamableHTTPServerTransport
            on node:http): tests/interop/sdk_servers/ts_server.mjs --http PORT [--json]
  everything
            the official server-everything 2026.8.31 (`streamableHttp`)
  rmcp, rmcp-stateless
            the official Rust SDK (rmcp 3.11.0, StreamableHttpService on axum):
            tests/interop/rmcp-client (rmcp-interop-server --http ADDR [--stateless]),
            built with cargo into target/rmcp-interop
  demo-NAME every demo of examples/servers.json that has an "http" command

Each is probed with no --protocol (auto: server/discover, then initialize where the
server has no 2026-07-28) and with --protocol 2025-11-25 and 2024-11-05 (the stateless
Python server: auto only, since a stateless legacy server forgets the session it never
had; server-everything: auto only, see `servers`). Every run must exit 0: every check passed, no violation. Installs what it needs
with tests/interop/setup.sh; $PROBE overrides the probe binary.
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
PROBE = os.environ.get("PROBE", str(ROOT / "target" / "release" / "picomcp-probe"))
VENV_PY = str(ROOT / "target" / "interop" / "venv" / "bin" / "python")
EVERYTHING = ROOT / "target" / "interop" / "everything"
LOGS = ROOT / "target" / "test-logs"
PINNED = ["2025-11-25", "2024-11-05"]


def everything_js() -> str:
    js = EVERYTHING / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    if not js.exists():
        EVERYTHING.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--silent", "--prefix", str(EVERYTHING),
             "@modelcontextprotocol/server-everything@2026.8.31"],
            check=True, stdout=subprocess.DEVNULL,
        )
    return str(js)


def rmcp_server() -> str:
    """Builds the rmcp interop server (cached in target/rmcp-interop) and returns its path."""
    manifest = ROOT / "tests" / "interop" / "rmcp-client" / "Cargo.toml"
    target = ROOT / "target" / "rmcp-interop"
    subprocess.run(["cargo", "build", "--release", "--locked", "--quiet", "--manifest-path", str(manifest),
                    "--bin", "rmcp-interop-server"],
                   check=True, env=dict(os.environ, CARGO_TARGET_DIR=str(target)))
    return str(target / "release" / "rmcp-interop-server")


def servers() -> dict[str, tuple[list[str], dict[str, str], list[str]]]:
    """name -> (argv with {port}, extra environment, --protocol values besides auto)."""
    sdk = "tests/interop/sdk_servers/"
    out = {
        "python": ([VENV_PY, sdk + "python_server.py", "--http", "{port}"], {}, PINNED),
        "python-json": ([VENV_PY, sdk + "python_server.py", "--http", "{port}", "--json"], {}, PINNED),
        "python-stateless": ([VENV_PY, sdk + "python_server.py", "--http", "{port}", "--stateless"], {}, []),
        "ts": (["node", sdk + "ts_server.mjs", "--http", "{port}"], {}, PINNED),
        "ts-json": (["node", sdk + "ts_server.mjs", "--http", "{port}", "--json"], {}, PINNED),
        # Auto negotiates 2025-11-25; in older revisions it sends elicitation/create, which
        # they do not have (a violation the probe rightly reports; see the stdio step).
        "everything": (["node", "{everything}", "streamableHttp"], {"PORT": "{port}"}, []),
        # listChanged and subscriptions/listen on, as tests/interop/sdk_servers/run.sh has it.
        "rmcp": (["{rmcp}", "--http", "127.0.0.1:{port}"], {"RMCP_INTEROP_LISTEN": "1"}, PINNED),
        "rmcp-stateless": (["{rmcp}", "--http", "127.0.0.1:{port}", "--stateless"], {"RMCP_INTEROP_LISTEN": "1"}, []),
    }
    demos = json.loads((ROOT / "examples" / "servers.json").read_text())
    for name, entry in demos.items():
        if "http" in entry:
            out[f"demo-{name}"] = (entry["http"], {}, PINNED)
    return out


def run_one(name: str, argv: list[str], env: dict[str, str], pinned: list[str]) -> list[bool]:
    port = free_port()
    sub = {"{port}": str(port)}
    if "{everything}" in argv:
        sub["{everything}"] = everything_js()
    if "{rmcp}" in argv:
        sub["{rmcp}"] = rmcp_server()
    fill = lambda a: sub.get(a, a.replace("{port}", str(port)))  # noqa: E731
    argv = [fill(a) for a in argv]
    penv = dict(os.environ, **{k: fill(v) for k, v in env.items()})
    LOGS.mkdir(parents=True, exist_ok=True)
    log = open(LOGS / f"http-probe-{name}.server.log", "wb")
    proc = subprocess.Popen(argv, cwd=ROOT, env=penv, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    results = []
    try:
        if not wait_listening(port, proc, 30):
            print(f"not ok {name}: the server did not listen ({shlex.join(argv)})")
            return [False]
        url = f"http://127.0.0.1:{port}/mcp"
        for pv in [None, *pinned]:
            cmd = [PROBE, "--url", url] + (["--protocol", pv] if pv else [])
            t0 = time.monotonic()
            r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
            summary = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
            ok = r.returncode == 0
            label = f"{name} {pv or 'auto'}"
            print(f"{'ok' if ok else 'not ok'} {label}: {summary} ({time.monotonic() - t0:.1f} s)", flush=True)
            if not ok:
                print(r.stdout[-4000:] + r.stderr[-2000:])
            results.append(ok)
    finally:
        stop(proc)
        log.close()
    return results


def main() -> int:
    subprocess.run(["bash", str(ROOT / "tests" / "interop" / "setup.sh")], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    table = servers()
    names = sys.argv[1:] or list(table)
    unknown = [n for n in names if n not in table]
    if unknown:
        print(f"unknown server(s): {', '.join(unknown)}; known: {', '.join(table)}")
        return 2
    results = [ok for n in names for ok in run_one(n, *table[n])]
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
