#!/usr/bin/env python3
"""Authorization end to end, with a real authorization server (tests/auth/README.md).

    tests/auth/run.py [--only reference,rust,c,python,node] [--verbose]

1. Installs what it needs (tests/auth/setup.sh: Authlib, Flask, the official Python SDK in
   target/auth/venv; the TypeScript SDK through tests/interop/setup.sh) and starts the
   authorization server (tests/auth/authz_server.py) on a free port of 127.0.0.1.
2. `reference`: proves that server with no picomcp code involved. A resource server on the
   official Python SDK (tests/auth/reference_server.py, verifying the JWTs with PyJWT and
   the JWKS) is driven by the resource-server checks (tests/auth/rs_checks.py) and by the
   official Python and TypeScript SDK clients with their OAuth support, the Python one
   also through a refresh.
3. Each demo of examples/servers.json with an "http" command and an "auth" list (the
   extra arguments that turn authorization on; `{issuer}` and `{port}` are replaced):
   - its tool list without authorization (the same command without "auth") is the full
     list; then, with authorization on, the resource-server checks: metadata, 401 with
     `WWW-Authenticate` for no token, a token for another audience, an expired token, a
     forged signature (and no audience, another issuer), the filtered list, 403
     insufficient_scope outside the scopes, step-up, nothing served on a refusal;
   - the probe (target/release/picomcp-probe --url URL with its OAuth client) registers,
     authorizes with PKCE and the `resource` parameter, and passes; this script plays the
     browser (it GETs each authorization URL the probe prints; the server redirects to
     the probe's loopback listener). What the probe sent is read back from the
     authorization server's log;
   - against the first such demo (rust when it has "auth"): the official Python and
     TypeScript SDK clients with their OAuth support, through step-up.
   A demo without "auth" uses the demos' `--auth-issuer {issuer}`; one that does not start
   with it, or serves without a token, and a probe without an OAuth client (`--oauth`, or
   the first of $PICOMCP_AUTH_PROBE_ARGS, absent from its --help) are reported as SKIP.

Output: `ok - NAME`, `ok - NAME # SKIP why`, `not ok - NAME: why`; the last line is
`N passed, M failed, K skipped`. Exit status 1 when a check failed. Logs of every process
go to target/test-logs/auth-*.log.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(HERE))
from procs import free_port, stop, wait_listening  # noqa: E402
import rs_checks  # noqa: E402
from rs_checks import Session  # noqa: E402

LOGS = ROOT / "target" / "test-logs"
PROBE = Path(os.environ.get("PICOMCP_AUTH_PROBE", ROOT / "target" / "release" / "picomcp-probe"))
SDK_DEMO_ORDER = ["rust", "c", "python", "node"]


class Run:
    def __init__(self, verbose: bool):
        self.verbose = verbose
        self.check = rs_checks.Checks("")
        self.check.prefix = ""
        self.skipped = 0
        self.procs: list[subprocess.Popen] = []

    def ok(self, name, ok, why=""):
        return self.check(name, ok, why)

    def absorb(self, c: rs_checks.Checks) -> None:
        self.check.passed += c.passed
        self.check.failed += c.failed

    def skip(self, name, why):
        self.skipped += 1
        print(f"ok - {name} # SKIP {why}", flush=True)

    def start(self, name: str, argv: list[str], **kw) -> subprocess.Popen:
        LOGS.mkdir(parents=True, exist_ok=True)
        log = open(LOGS / f"auth-{name}.log", "wb")
        proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=kw.pop("stdout", log),
                                stderr=log, **kw)
        self.procs.append(proc)
        return proc

    def stop_all(self):
        for p in self.procs:
            if p.poll() is None:
                stop(p)

    def sub(self, label: str, argv: list[str], timeout=180) -> bool:
        """Runs a checking script; its `ok`/`not ok` lines are counted under `label`."""
        t0 = time.monotonic()
        try:
            r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
            out, code = r.stdout, r.returncode
            err = r.stderr
        except subprocess.TimeoutExpired as e:
            out, code, err = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), -1, "timeout"
        for line in out.splitlines():
            m = re.match(r"(not ok|ok) - (.*)", line)
            if m:
                good = m.group(1) == "ok"
                rest = m.group(2)
                name, _, why = rest.partition(": ") if not good else (rest, "", "")
                self.ok(f"{label} {name}", good, why)
        summary = (out.strip().splitlines() or ["(no output)"])[-1]
        self.ok(f"{label}: exit 0", code == 0, f"{summary}; {time.monotonic() - t0:.1f} s")
        if code != 0 or self.verbose:
            print(err[-3000:], flush=True)
        return code == 0


def as_log(issuer: str, since: int = 0) -> list[dict]:
    with urllib.request.urlopen(f"{issuer}/test/log?since={since}", timeout=10) as r:
        return json.load(r)


def start_as(run: Run, py: str) -> str:
    proc = run.start("authz-server", [py, str(HERE / "authz_server.py"), "--test-endpoints", "--port", "0"],
                     stdout=subprocess.PIPE)
    line = proc.stdout.readline().decode().strip()
    if not line.startswith("READY "):
        raise SystemExit(f"the authorization server did not start: {line!r} (log: {LOGS}/auth-authz-server.log)")
    return line.split()[1]


def check_flow(run: Run, label: str, issuer: str, since: int, url: str, authorizations: int | None = None) -> list:
    """What a client sent to the authorization server since log entry `since`: one
    dynamic registration; every authorization request with PKCE S256 and `resource` = the
    server's URL; every token request successful, with `resource`, and the code verifier
    on the code exchange. Returns the authorization requests' parameters."""
    log = as_log(issuer, since)
    regs = [e for e in log if e["type"] == "register"]
    auths = [e["params"] for e in log if e["type"] == "authorize"]
    tokens = [e for e in log if e["type"] == "token"]
    run.ok(f"{label} registered once (RFC 7591)", len(regs) == 1, f"{len(regs)} registration(s)")
    run.ok(f"{label} authorization requests: PKCE S256, resource",
           bool(auths) and all(a.get("code_challenge_method") == "S256" and a.get("code_challenge")
                               and a.get("resource") == url for a in auths)
           and (authorizations is None or len(auths) == authorizations),
           f"{len(auths)}: " + json.dumps([{k: a.get(k) for k in ("scope", "resource", "code_challenge_method")} for a in auths]))
    run.ok(f"{label} token requests: resource, code verifier",
           bool(tokens) and all(e["status"] == 200 and e["form"].get("resource") == url
                                and (e["form"].get("grant_type") != "authorization_code" or e["form"]["code_verifier_sent"])
                                for e in tokens),
           json.dumps([{k: e["form"].get(k) for k in ("grant_type", "resource")} | {"status": e["status"]} for e in tokens]))
    return auths


def tool_plan(base: list, hidden: list) -> list[str]:
    """The SDK clients' arguments: a tool of the base list, and one to step up to."""
    call = base[0]
    out = ["--call", call["name"], "--args", json.dumps(rs_checks.sample_args(call.get("inputSchema") or {}))]
    if hidden:
        t = hidden[0]
        out += ["--step-up", t["name"], "--step-up-args", json.dumps(rs_checks.sample_args(t.get("inputSchema") or {}))]
    return out


def sdk_clients(run: Run, py: str, label: str, issuer: str, url: str, plan: list[str], refresh: bool) -> None:
    step_up = 2 if "--step-up" in plan else 1
    # Legacy mode (initialize, 2025-11-25), then auto mode (server/discover first: the
    # stateless 2026-07-28 era with a dual-era server).
    for mode in ("legacy", "auto"):
        since = len(as_log(issuer))
        run.sub(f"{label} Python SDK OAuthClientProvider ({mode})",
                [py, str(HERE / "sdk_python_client.py"), "--url", url, "--mode", mode, *plan,
                 *(["--refresh"] if refresh else [])])
        check_flow(run, f"{label} Python SDK ({mode})", issuer, since, url, step_up)
    since = len(as_log(issuer))
    run.sub(f"{label} TypeScript SDK authProvider", ["node", str(HERE / "sdk_ts_client.mjs"), "--url", url, *plan])
    check_flow(run, f"{label} TypeScript SDK", issuer, since, url, step_up)


def as_checks(run: Run, issuer: str) -> None:
    """The authorization server is strict, so a client that passes did the flow right: it
    refuses an authorization request without PKCE, with `plain`, without `resource`, with
    an unregistered redirect URI; a token request with another `resource`, a wrong
    verifier, a reused code. Raw HTTP, no client library."""
    import base64
    import hashlib
    import secrets
    import urllib.error
    import urllib.parse

    meta = rs_checks.http("GET", issuer + "/.well-known/oauth-authorization-server").messages[0]
    oidc = rs_checks.http("GET", issuer + "/.well-known/openid-configuration").messages[0]
    run.ok("authorization server: RFC 8414 and OpenID discovery",
           meta.get("issuer") == issuer and oidc.get("issuer") == issuer
           and meta.get("code_challenge_methods_supported") == ["S256"], json.dumps(meta)[:100])
    redirect, resource = "http://127.0.0.1:9/cb", "http://127.0.0.1:9/mcp"
    client = rs_checks.http("POST", issuer + "/register", {
        "redirect_uris": [redirect], "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"]}, {"Content-Type": "application/json"})
    cid = client.messages[0]["client_id"]

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **k):
            return None

    opener = urllib.request.build_opener(NoRedirect)

    def authorize(**over):
        verifier = secrets.token_urlsafe(48)
        q = {"response_type": "code", "client_id": cid, "redirect_uri": redirect, "state": "s",
             "code_challenge": base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode(),
             "code_challenge_method": "S256", "resource": resource, "scope": "mcp:read"}
        q.update(over)
        q = {k: v for k, v in q.items() if v is not None}
        try:
            r = opener.open(issuer + "/authorize?" + urllib.parse.urlencode(q), timeout=10)
            status, location = r.status, r.headers.get("location", "")
        except urllib.error.HTTPError as e:
            status, location = e.code, e.headers.get("location", "")
        got = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
        return status, got, verifier

    def token(code, verifier, **over):
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
                "client_id": cid, "code_verifier": verifier, "resource": resource}
        form.update(over)
        req = urllib.request.Request(issuer + "/token", data=urllib.parse.urlencode(form).encode())
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as e:
            return e.code, json.load(e)

    for name, over, error in [
        ("no PKCE", {"code_challenge": None, "code_challenge_method": None}, "invalid_request"),
        ("PKCE plain", {"code_challenge_method": "plain"}, "invalid_request"),
        ("no resource", {"resource": None}, "invalid_target"),
        ("resource with a fragment", {"resource": resource + "#x"}, "invalid_target"),
    ]:
        status, got, _ = authorize(**over)
        run.ok(f"authorization server refuses: {name}", status == 302 and got.get("error") == error
               and got.get("iss") == issuer, f"{status} {got}")
    status, got, _ = authorize(redirect_uri="http://127.0.0.1:9/other")
    run.ok("authorization server refuses: unregistered redirect_uri (no redirect)", status == 400, f"{status}")
    status, got, _ = authorize(redirect_uri="http://127.0.0.1:4711/cb")
    run.ok("authorization server: a loopback redirect URI on another port (RFC 8252 §7.3)",
           status == 302 and "code" in got, f"{status} {got}")
    status, got, verifier = authorize()
    run.ok("authorization server: code and iss in the redirect", status == 302 and "code" in got
           and got.get("iss") == issuer and got.get("state") == "s", f"{status} {got}")
    s1, body = token(got["code"], verifier, resource="http://127.0.0.1:9/other")
    run.ok("authorization server refuses: token request for another resource", s1 == 400
           and body.get("error") == "invalid_target", f"{s1} {body}")
    status, got, verifier = authorize()
    s1, body = token(got["code"], "x" * 43)
    run.ok("authorization server refuses: wrong code_verifier", s1 == 400 and body.get("error") == "invalid_grant",
           f"{s1} {body}")
    status, got, verifier = authorize()
    s1, body = token(got["code"], verifier)
    claims = json.loads(base64.urlsafe_b64decode(body.get("access_token", "..").split(".")[1] + "=="))
    run.ok("authorization server: JWT access token claims", s1 == 200 and claims.get("aud") == resource
           and claims.get("iss") == issuer and claims.get("scope") == "mcp:read" and claims.get("sub")
           and claims.get("client_id") == cid and claims.get("exp", 0) > time.time()
           and body.get("refresh_token"), json.dumps(claims)[:160])
    s2, body2 = token(got["code"], verifier)
    run.ok("authorization server refuses: a reused code", s2 == 400 and body2.get("error") == "invalid_grant",
           f"{s2} {body2}")
    form = {"grant_type": "refresh_token", "refresh_token": body.get("refresh_token", ""), "client_id": cid,
            "resource": resource}
    req = urllib.request.Request(issuer + "/token", data=urllib.parse.urlencode(form).encode())
    with urllib.request.urlopen(req, timeout=10) as r:
        refreshed = json.load(r)
    run.ok("authorization server: refresh rotates the refresh token",
           refreshed.get("access_token") and refreshed.get("refresh_token") not in (None, body.get("refresh_token")))
    try:
        urllib.request.urlopen(urllib.request.Request(issuer + "/token", data=urllib.parse.urlencode(form).encode()),
                               timeout=10)
        reused = 200
    except urllib.error.HTTPError as e:
        reused = e.code
    run.ok("authorization server refuses: a used refresh token", reused == 400, f"{reused}")


def reference_entry(py: str) -> dict:
    """The reference resource server on the official Python SDK, as a servers.json entry."""
    return {"http": [py, str(HERE / "reference_server.py"), "--port", "{port}"],
            "auth": ["--issuer", "{issuer}", "--scopes", "mcp:read"]}


def list_tools(url: str) -> list | None:
    s = rs_checks.Session(url, None)
    if s.initialize().status != 200:
        return None
    return s.tools()[1]


def probe_token(run: Run, name: str, url: str, issuer: str, base: str) -> None:
    """The probe with a token it was given (`--token` when it has it, else an
    `Authorization` header): with the challenged scopes it passes against the filtered
    server; with an expired token it fails (the server answers 401 and nothing else)."""
    if not PROBE.exists():
        run.skip(f"{name}: probe with a token", f"{PROBE} is not built (tests/run release)")
        return
    help_text = subprocess.run([str(PROBE), "--help"], capture_output=True, text=True).stdout
    for label, claims, want in (("base scopes", dict(aud=url, scope=base), 0),
                                ("expired", dict(aud=url, scope=base, exp_in=-3600), None)):
        token = rs_checks.mint(issuer, **claims)
        cred = ["--token", token] if "--token" in help_text else ["--header", f"Authorization: Bearer {token}"]
        t0 = time.monotonic()
        r = subprocess.run([str(PROBE), "--url", url, *cred], cwd=ROOT, capture_output=True, text=True, timeout=120)
        (LOGS / f"auth-probe-token-{name}-{label.replace(' ', '-')}.log").write_text(r.stdout + r.stderr)
        tail = (r.stdout.strip().splitlines() or ["(no output)"])[-1][:100]
        ok = r.returncode == 0 if want == 0 else r.returncode != 0
        run.ok(f"{name}: probe {cred[0]} ({label}) {'passes' if want == 0 else 'fails'}", ok,
               f"exit {r.returncode}, {time.monotonic() - t0:.1f} s: {tail}")


def probe_oauth(run: Run, name: str, url: str, issuer: str, c: rs_checks.Checks, hidden: list,
                step_up: bool = True) -> None:
    """The probe's OAuth client (`--oauth`) against the demo, twice.

    1. The spec's scope choice (the challenge's): one registration, one authorization
       (PKCE S256, `resource`), the filtered list (the hidden tool absent), exit 0.
    2. `--scope` = the hidden tool's extra scopes only, without the scopes every request
       needs: the first request is refused with 403 insufficient_scope, the probe steps up
       (a second authorization asking for the union), then sees and exercises the hidden
       tool, exit 0. (The probe exercises what it lists; it has no option to call one
       unlisted tool, so this is how its step-up is driven.)

    The authorization server redirects at once, so the probe completes unattended (it
    fetches the authorization URL without following redirects); should it print the URL
    for a browser instead, this function GETs it, which follows the redirect to the
    probe's loopback listener."""
    if not PROBE.exists():
        run.skip(f"{name}: probe with OAuth", f"{PROBE} is not built (tests/run release)")
        return
    help_text = subprocess.run([str(PROBE), "--help"], capture_output=True, text=True).stdout
    flags = shlex.split(os.environ.get("PICOMCP_AUTH_PROBE_ARGS", "--oauth"))
    if flags and flags[0] not in help_text:
        run.skip(f"{name}: probe with OAuth", f"the probe has no OAuth client on this branch (no {flags[0]} in --help)")
        return
    extra = set(c.step_up_scope.split()) - set(c.base_scope.split())
    runs = [("challenge scopes", [], 1)]
    if not step_up:
        run.skip(f"{name}: probe --oauth step-up", "the SDK's 403 for the required scopes names no scope to add")
    elif hidden and extra and "--scope" in help_text:
        runs.append((f"--scope {' '.join(sorted(extra))}", ["--scope", " ".join(sorted(extra))], 2))
    for label, more, authorizations in runs:
        argv = [str(PROBE), "--url", url, "--json", *flags, *more]
        since = len(as_log(issuer))
        t0 = time.monotonic()
        proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        err: list[str] = []
        visited: list[str] = []

        def browser(stream=proc.stderr, err=err, visited=visited):
            for line in stream:
                err.append(line)
                for u in re.findall(re.escape(issuer) + r"/authorize\?\S+", line):
                    visited.append(u)
                    try:  # follows the 302 to the probe's loopback redirect URI
                        urllib.request.urlopen(u, timeout=30).read()
                    except Exception as e:  # noqa: BLE001 - the probe's verdict decides
                        err.append(f"[browser] {u}: {e}\n")

        t = threading.Thread(target=browser, daemon=True)
        t.start()
        try:
            out, _ = proc.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
        t.join(5)
        log = LOGS / f"auth-probe-oauth-{name}-{len(more)}.log"
        log.write_text(out + "\n--- stderr\n" + "".join(err))
        try:
            report = json.loads(out)
        except ValueError:
            report = {}
        server = report.get("server") or {}
        tools = server.get("tools") or report.get("tools") or []
        run.ok(f"{name}: probe --oauth ({label}) exits 0", proc.returncode == 0,
               f"exit {proc.returncode}, {time.monotonic() - t0:.1f} s, log {log}")
        auths = check_flow(run, f"{name}: probe ({label})", issuer, since, url, authorizations)
        if not hidden:
            continue
        h = hidden[0]["name"]
        if authorizations == 1:
            run.ok(f"{name}: probe ({label}) sees the filtered list", bool(tools) and h not in tools,
                   f"{h} not in {len(tools)} tools")
        else:
            first = set((auths[0].get("scope") or "").split()) if auths else set()
            last = set((auths[-1].get("scope") or "").split()) if auths else set()
            run.ok(f"{name}: probe ({label}) refused with 403, steps up to the union, sees {h}",
                   len(auths) == 2 and first == extra and last >= first | set(c.base_scope.split()) and h in tools,
                   f"scopes {[a.get('scope') for a in auths]}; {h} {'in' if h in tools else 'not in'} the list")


# The demos' flag that turns authorization on (examples/src/bin/picomcp-demo/auth.rs and
# its siblings), used when a servers.json entry has no "auth" list of its own.
DEFAULT_AUTH = ["--auth-issuer", "{issuer}"]


def demo(run: Run, py: str, name: str, entry: dict, issuer: str, sdk: bool, picomcp: bool = True) -> bool:
    """Everything against one server; False when it was skipped (no authorization support)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    fill = lambda a: a.replace("{port}", str(port)).replace("{issuer}", issuer).replace("{resource}", url)  # noqa: E731
    plain = [fill(a) for a in entry["http"]]
    try:
        proc = run.start(f"{name}-plain", plain)
    except OSError as e:
        run.ok(f"{name}: starts", False, f"{e} (built by tests/run release)")
        return True
    if not run.ok(f"{name}: listens without authorization", wait_listening(port, proc, 30), shlex.join(plain)):
        return True
    all_tools = list_tools(url)
    stop(proc)
    run.ok(f"{name}: full tool list without authorization", bool(all_tools), f"{[t['name'] for t in all_tools or []]}")
    declared = "auth" in entry
    argv = plain + [fill(a) for a in entry.get("auth", DEFAULT_AUTH)]
    proc = run.start(f"{name}-auth", argv)
    listening = wait_listening(port, proc, 30)
    if not declared:
        # No "auth" in servers.json: the default flag, and a SKIP while the demo lacks it.
        if not listening:
            run.skip(name, f"does not start with {shlex.join(DEFAULT_AUTH)} (log: {LOGS}/auth-{name}-auth.log)")
            stop(proc)
            return False
        if Session(url, None).initialize().status != 401:
            run.skip(name, f"serves without a token under {shlex.join(DEFAULT_AUTH)}: no authorization support")
            stop(proc)
            return False
    if not run.ok(f"{name}: listens with authorization", listening, shlex.join(argv)):
        return True
    c = rs_checks.Checks(f"{name}:")
    base, hidden = rs_checks.check_server(c, url, issuer, all_tools or [], picomcp)
    run.absorb(c)
    probe_token(run, name, url, issuer, c.base_scope)
    probe_oauth(run, name, url, issuer, c, hidden or [], step_up=picomcp)
    if sdk and base:
        sdk_clients(run, py, f"{name}:", issuer, url, tool_plan(base, hidden or []), refresh=True)
    stop(proc)
    return True


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="", help="comma-separated: reference and/or demo names")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args()
    only = set(filter(None, args.only.split(",")))
    t0 = time.monotonic()
    py = subprocess.run(["bash", str(HERE / "setup.sh")], capture_output=True, text=True)
    if py.returncode != 0:
        print(py.stderr)
        print("0 passed, 1 failed")
        return 1
    py = py.stdout.strip().splitlines()[-1]
    run = Run(args.verbose)
    try:
        issuer = start_as(run, py)
        print(f"# authorization server: {issuer}", flush=True)
        if not only or "reference" in only:
            as_checks(run, issuer)
            # The official SDK's server serves the metadata only at the path-suffixed URL and
            # names no scope in its 403 (rs_checks.check_server, `picomcp`).
            demo(run, py, "reference", reference_entry(py), issuer, sdk=True, picomcp=False)
        servers = json.loads((ROOT / "examples" / "servers.json").read_text())
        http = {k: v for k, v in servers.items() if "http" in v and (not only or k in only)}
        # The SDK clients run against the first demo (in SDK_DEMO_ORDER) that has authorization.
        sdk_done = False
        for name in sorted(http, key=lambda n: SDK_DEMO_ORDER.index(n) if n in SDK_DEMO_ORDER else 99):
            if demo(run, py, name, http[name], issuer, sdk=not sdk_done):
                sdk_done = True
    finally:
        run.stop_all()
    print(f"# {time.monotonic() - t0:.0f} s")
    print(f"{run.check.passed} passed, {run.check.failed} failed, {run.skipped} skipped")
    return 1 if run.check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
