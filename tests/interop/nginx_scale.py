#!/usr/bin/env python3
"""2026-07-28 is stateless: N server processes behind any HTTP load balancer serve one
client. This runs two processes of a server behind nginx (round robin, Debian's
package, started here with its own configuration under target/nginx/) and drives one
client across both: picomcp-probe --protocol 2026-07-28 --url http://127.0.0.1:PORT/mcp.

    tests/interop/nginx_scale.py [NAME ...]

NAME: `demo-<name>` for a demo of examples/servers.json that has an "http" command, or
`python` for the official Python SDK's stateless HTTP server (the reference: it must
pass too). Default: every demo with an "http" command, and `python`.

Each run passes when the probe passes (every check, no violation) and nginx's access log
shows that both processes answered requests of that one client session.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from procs import free_port, stop, wait_listening  # noqa: E402
PROBE = os.environ.get("PROBE", str(ROOT / "target" / "release" / "picomcp-probe"))
WORK = ROOT / "target" / "nginx"

CONF = """daemon off;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 256; }}
http {{
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    log_format upstream '$request_method $status $upstream_addr';
    access_log {work}/access.log upstream;
    upstream mcp {{
        server 127.0.0.1:{a};
        server 127.0.0.1:{b};
    }}
    server {{
        listen 127.0.0.1:{port};
        location /mcp {{
            proxy_pass http://mcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            # The servers check Host against their allowlist (DNS rebinding): keep the
            # client's, not the upstream's name.
            proxy_set_header Host $http_host;
            # SSE answers are streamed, not buffered.
            proxy_buffering off;
        }}
    }}
}}
"""


def nginx() -> str:
    """Debian's nginx, installed (nginx-light) when missing; with sudo when not root, and
    after `apt-get update` when the package lists are stale."""
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if found:
        return found
    print("installing nginx (Debian package nginx-light)", flush=True)
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = [*sudo, "apt-get", "install", "-y", "-q", "--no-install-recommends", "nginx-light"]
    if subprocess.run(install, stdout=subprocess.DEVNULL, env=env).returncode != 0:
        subprocess.run([*sudo, "apt-get", "update", "-q"], stdout=subprocess.DEVNULL, env=env)
        subprocess.run(install, check=True, stdout=subprocess.DEVNULL, env=env)
    return shutil.which("nginx") or "/usr/sbin/nginx"


def backends() -> dict[str, list[str]]:
    out = {"python": [str(ROOT / "target/interop/venv/bin/python"),
                      "tests/interop/sdk_servers/python_server.py", "--http", "{port}", "--stateless"]}
    for name, entry in json.loads((ROOT / "examples" / "servers.json").read_text()).items():
        if "http" in entry:
            out[f"demo-{name}"] = entry["http"]
    return out


def run(name: str, argv: list[str], nginx_bin: str) -> bool:
    WORK.mkdir(parents=True, exist_ok=True)
    for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (WORK / d).mkdir(exist_ok=True)
    (WORK / "access.log").unlink(missing_ok=True)
    a, b, port = free_port(), free_port(), free_port()
    procs = []
    # Stateless servers still share what they seal for the client: the Rust demo's
    # requestState key (an input-required result answered by the other process).
    env = dict(os.environ, PICOMCP_STATE_KEY=secrets.token_hex(32))
    try:
        for p in (a, b):
            cmd = [x.replace("{port}", str(p)) for x in argv]
            log = open(WORK / f"{name}-{p}.log", "wb")
            procs.append(subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                          env=env))
        conf = WORK / "nginx.conf"
        conf.write_text(CONF.format(work=WORK, a=a, b=b, port=port))
        procs.append(subprocess.Popen([nginx_bin, "-c", str(conf), "-p", str(WORK)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        if not all(wait_listening(p) for p in (a, b, port)):
            print(f"not ok {name}: a backend or nginx did not listen")
            return False
        r = subprocess.run([PROBE, "--protocol", "2026-07-28", "--url", f"http://127.0.0.1:{port}/mcp"],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
        summary = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
        served = {}
        for line in (WORK / "access.log").read_text().splitlines():
            upstream = line.split()[-1]
            served[upstream] = served.get(upstream, 0) + 1
        both = all(served.get(f"127.0.0.1:{p}", 0) > 0 for p in (a, b))
        ok = r.returncode == 0 and both
        print(f"{'ok' if ok else 'not ok'} {name} behind nginx: {summary}; requests per process: "
              + ", ".join(f"{k} {v}" for k, v in sorted(served.items())), flush=True)
        if not ok:
            print(r.stdout[-4000:] + r.stderr[-1000:])
        return ok
    finally:
        for p in reversed(procs):
            stop(p)


def main() -> int:
    table = backends()
    names = sys.argv[1:] or list(table)
    unknown = [n for n in names if n not in table]
    if unknown:
        print(f"unknown: {', '.join(unknown)}; known: {', '.join(table)}")
        return 2
    if "python" in names:
        subprocess.run(["bash", str(ROOT / "tests/interop/setup.sh")], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    nginx_bin = nginx()
    results = [run(n, table[n], nginx_bin) for n in names]
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
