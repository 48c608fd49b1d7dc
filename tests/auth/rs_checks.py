"""The resource-server checks: one MCP server over Streamable HTTP with authorization on,
driven with raw HTTP and tokens minted by the test authorization server (/test/mint).

Standard library only (urllib), so that no client library's leniency hides a fault. Every
refusal is also checked not to have been served: its body carries no JSON-RPC result (a
JSON-RPC error is allowed).

What is checked (`check_server`):
* the protected resource metadata (RFC 9728) at the path-suffixed and the root well-known
  URL: `resource` is the server's URL, `authorization_servers` names our issuer;
* no token: 401, `WWW-Authenticate: Bearer` with `resource_metadata` naming that document;
* a token for another audience, an expired token, a token signed by a key that is not in
  the JWKS (same `kid`), a token without `aud`, a token from another issuer: each 401 with
  `error="invalid_token"`, nothing served;
* a token with the challenge's scopes: initialize and tools/list succeed; the session id
  is not a credential (the same session without the token: 401), nor is it anyone else's
  (the same session with a valid token of another subject: 404; picomcp servers);
* scopes per tool (when `all_tools`, the server's list without authorization, is given):
  the base list is a strict subset, a tool outside it is refused with 403
  `error="insufficient_scope"` and the scope it needs; with that scope added (step-up) the
  tool is listed and its call succeeds.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field

PROTOCOL = "2025-11-25"


@dataclass
class Reply:
    status: int
    headers: dict
    body: bytes
    messages: list = field(default_factory=list)  # JSON-RPC messages in the body

    def header(self, name: str) -> str:
        return self.headers.get(name.lower(), "")

    def served(self) -> bool:
        """Whether the body carries a JSON-RPC result (a refusal may carry an error)."""
        return any(isinstance(m, dict) and "result" in m for m in self.messages)

    def result(self):
        for m in self.messages:
            if isinstance(m, dict) and m.get("jsonrpc") == "2.0" and ("result" in m or "error" in m):
                return m
        return None


def http(method: str, url: str, body=None, headers=None, timeout=30) -> Reply:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, hdrs, raw = r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        status, hdrs, raw = e.code, e.headers, e.read()
    headers = {}
    for k, v in hdrs.items():
        k = k.lower()
        headers[k] = headers[k] + ", " + v if k in headers else v
    reply = Reply(status, headers, raw)
    ctype = headers.get("content-type", "")
    try:
        if ctype.startswith("application/json") and raw:
            msg = json.loads(raw)
            reply.messages = msg if isinstance(msg, list) else [msg]
        elif ctype.startswith("text/event-stream"):
            for line in raw.decode().splitlines():
                if line.startswith("data:") and line[5:].strip():
                    reply.messages.append(json.loads(line[5:]))
    except (ValueError, UnicodeDecodeError):
        pass
    return reply


def parse_challenge(value: str) -> dict | None:
    """The auth-params of the Bearer challenge (names lower-cased, quoted strings unescaped)."""
    m = re.search(r"(?i)\bbearer\b", value)
    if not m:
        return None
    params = {}
    for name, quoted, token in re.findall(
        r'([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))', value[m.end():]
    ):
        params[name.lower()] = re.sub(r"\\(.)", r"\1", quoted) if quoted or not token else token
    return params


class Session:
    """A legacy-era (initialize) session over Streamable HTTP with one bearer token."""

    def __init__(self, url: str, token: str | None):
        self.url, self.token, self.sid, self.next_id = url, token, None, 1

    def headers(self, with_token=True) -> dict:
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.token and with_token:
            h["Authorization"] = f"Bearer {self.token}"
        if self.sid:
            h["Mcp-Session-Id"] = self.sid
            h["MCP-Protocol-Version"] = PROTOCOL
        return h

    def request(self, method: str, params=None, with_token=True) -> Reply:
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        self.next_id += 1
        if params is not None:
            msg["params"] = params
        return http("POST", self.url, msg, self.headers(with_token))

    def initialize(self) -> Reply:
        r = self.request("initialize", {
            "protocolVersion": PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "picomcp-auth-tests", "version": "0"},
        })
        if r.status == 200 and r.result() and "result" in r.result():
            self.sid = r.header("mcp-session-id") or None
            http("POST", self.url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, self.headers())
        return r

    def tools(self) -> tuple[Reply, list]:
        r = self.request("tools/list")
        res = (r.result() or {}).get("result") or {}
        return r, res.get("tools", [])


class Modern:
    """Stateless 2026-07-28 requests (no initialize; `_meta` and headers on each POST)."""

    VERSION = "2026-07-28"

    def __init__(self, url: str, token: str | None):
        self.url, self.token, self.next_id = url, token, 1

    def request(self, method: str, params=None) -> Reply:
        params = dict(params or {})
        params["_meta"] = {"io.modelcontextprotocol/protocolVersion": self.VERSION,
                           "io.modelcontextprotocol/clientCapabilities": {},
                           "io.modelcontextprotocol/clientInfo": {"name": "picomcp-auth-tests", "version": "0"}}
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
             "MCP-Protocol-Version": self.VERSION, "Mcp-Method": method}
        if "name" in params:
            h["Mcp-Name"] = params["name"]
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        self.next_id += 1
        return http("POST", self.url, {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}, h)

    def tools(self) -> tuple[Reply, list]:
        r = self.request("tools/list")
        return r, ((r.result() or {}).get("result") or {}).get("tools", [])


def sample_args(schema: dict) -> dict:
    """Arguments that satisfy the required properties of a tool's inputSchema."""
    out = {}
    props = schema.get("properties") or {}
    for name in schema.get("required") or []:
        p = props.get(name) or {}
        if "enum" in p:
            out[name] = p["enum"][0]
            continue
        t = p.get("type")
        t = t[0] if isinstance(t, list) else t
        out[name] = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {},
                     "null": None}.get(t, "x")
    return out


class Checks:
    def __init__(self, prefix: str):
        self.prefix, self.passed, self.failed = prefix, 0, 0
        self.base_scope = ""  # the scopes a client starts with (set by check_server)
        self.step_up_scope = ""  # the 403's scopes for the first hidden tool (set by check_server)

    def __call__(self, name: str, ok: bool, why: str = "") -> bool:
        label = f"{self.prefix} {name}" if self.prefix else name
        if ok:
            self.passed += 1
            why = why if len(why) <= 120 else why[:117] + "..."
            print(f"ok - {label}" + (f" ({why})" if why else ""), flush=True)
        else:
            self.failed += 1
            print(f"not ok - {label}: {why}", flush=True)
        return ok


def mint(issuer: str, **claims) -> str:
    return http("POST", issuer + "/test/mint", claims, {"Content-Type": "application/json"}).messages[0]["access_token"]


def check_modern(check: Checks, url: str, issuer: str, base: str, wider: str, names0: list, t: dict, args: dict):
    """The same rules in the stateless 2026-07-28 era: no token and an expired token get
    401, the base list is the same, the hidden tool gets 403, the wider token calls it."""
    label = f"{Modern.VERSION}:"
    for name, token in (("no token", None), ("expired token", mint(issuer, aud=url, scope=base, exp_in=-3600))):
        r = Modern(url, token).tools()[0]
        check(f"{label} {name}: 401", r.status == 401 and not r.served()
              and parse_challenge(r.header("www-authenticate")) is not None, f"{r.status} {r.body[:120]!r}")
    m = Modern(url, mint(issuer, aud=url, scope=base, sub="alice", client_id="test-client"))
    r, tools = m.tools()
    check(f"{label} base token: the same filtered list", r.status == 200 and sorted(x["name"] for x in tools) == sorted(names0),
          f"{r.status} {[x['name'] for x in tools]} {r.body[:120]!r}")
    r = m.request("tools/call", {"name": t["name"], "arguments": args})
    ch = parse_challenge(r.header("www-authenticate")) or {}
    check(f"{label} call {t['name']} outside the scopes: 403 insufficient_scope",
          r.status == 403 and ch.get("error") == "insufficient_scope" and not r.served(), f"{r.status}")
    r = Modern(url, mint(issuer, aud=url, scope=wider)).request("tools/call", {"name": t["name"], "arguments": args})
    res = (r.result() or {}).get("result")
    check(f"{label} stepped-up token: call {t['name']}", r.status == 200 and res is not None and not res.get("isError"),
          f"{r.status} {r.body[:160]!r}")


def check_server(check: Checks, url: str, issuer: str, all_tools: list | None,
                 picomcp: bool = True, modern: bool = True) -> tuple[list, list]:
    """Every check of the module docstring against the MCP endpoint `url`; returns the
    tools a token with the challenged scopes sees, and those it does not see. `picomcp`:
    also what picomcp promises beyond the spec's MUSTs (the official SDK's server, the
    reference, does not): the metadata at the root well-known URL too, and `scope` in
    the 403 for the endpoint's required scopes."""
    root_prm = picomcp
    origin = url.split("/", 3)
    origin, path = "/".join(origin[:3]), "/" + (origin[3] if len(origin) > 3 else "")

    # Protected resource metadata, both well-known forms.
    prm = {}
    for prm_url in (origin + "/.well-known/oauth-protected-resource" + path.rstrip("/"),
                    origin + "/.well-known/oauth-protected-resource")[: 2 if root_prm else 1]:
        r = http("GET", prm_url)
        doc = r.messages[0] if r.messages else {}
        prm = prm or doc
        check(f"PRM {prm_url[len(origin):]}",
              r.status == 200 and doc.get("resource") == url and issuer in (doc.get("authorization_servers") or []),
              f"{r.status} {r.body[:200]!r}")

    # No token.
    r = Session(url, None).initialize()
    ch = parse_challenge(r.header("www-authenticate")) or {}
    metadata = ch.get("resource_metadata", "")
    check("no token: 401 with resource_metadata",
          r.status == 401 and metadata.startswith(origin + "/.well-known/oauth-protected-resource") and not r.served(),
          f"{r.status} WWW-Authenticate: {r.header('www-authenticate')!r}")
    if metadata:
        doc = http("GET", metadata)
        check("resource_metadata URL serves the document",
              doc.status == 200 and doc.messages and doc.messages[0].get("resource") == url, f"{doc.status}")
    # The client's initial scopes (AUTH §3.9): the challenge's, else scopes_supported.
    base = ch.get("scope") or " ".join(prm.get("scopes_supported") or [])
    check.base_scope = base

    # Tokens that must be refused: 401 invalid_token, nothing served.
    bad = {
        "another audience": dict(aud="http://127.0.0.1:1/other-mcp", scope=base),
        "expired token": dict(aud=url, scope=base, exp_in=-3600),
        "forged signature": dict(aud=url, scope=base, forge=True),
        "no audience": dict(aud=url, scope=base, drop=["aud"]),
        "another issuer": dict(aud=url, scope=base, iss="http://127.0.0.1:1"),
    }
    for name, claims in bad.items():
        r = Session(url, mint(issuer, **claims)).initialize()
        ch = parse_challenge(r.header("www-authenticate")) or {}
        check(f"{name}: 401 invalid_token",
              r.status == 401 and ch.get("error") == "invalid_token" and not r.served()
              and ch.get("resource_metadata", "").startswith(origin),
              f"{r.status} WWW-Authenticate: {r.header('www-authenticate')!r}")

    # A valid token without the scopes every request needs: 403 naming them.
    if base:
        r = Session(url, mint(issuer, aud=url, scope="")).initialize()
        ch = parse_challenge(r.header("www-authenticate")) or {}
        check("token without the required scopes: 403 insufficient_scope",
              r.status == 403 and ch.get("error") == "insufficient_scope"
              and (not picomcp or set(base.split()) <= set(ch.get("scope", "").split())) and not r.served(),
              f"{r.status} WWW-Authenticate: {r.header('www-authenticate')!r}")

    # A good token with the challenged scopes.
    s = Session(url, mint(issuer, aud=url, scope=base, sub="alice", client_id="test-client"))
    r = s.initialize()
    if not check("base token: initialize", r.status == 200 and r.result() and "result" in r.result(),
                 f"{r.status} {r.body[:200]!r}"):
        return [], []
    r, base_tools = s.tools()
    names0 = [t["name"] for t in base_tools]
    check("base token: tools/list", r.status == 200 and bool(base_tools), f"scope {base!r}: {names0}")
    if s.sid:
        r = s.request("tools/list", with_token=False)
        check("session id is not a credential: 401 without the token", r.status == 401 and not r.served(),
              f"{r.status}")
        if picomcp:
            # The session is bound to its principal (docs/DESIGN.md, "Authorization"): a
            # valid token of another subject naming it gets 404, as an unknown session.
            other = Session(url, mint(issuer, aud=url, scope=base, sub="mallory", client_id="test-client"))
            other.sid = s.sid
            r = other.request("tools/list")
            check("the session belongs to its principal: another subject gets 404",
                  r.status == 404 and not r.served(), f"{r.status} {r.body[:160]!r}")
    if base_tools:
        t = base_tools[0]
        r = s.request("tools/call", {"name": t["name"], "arguments": sample_args(t.get("inputSchema") or {})})
        res = (r.result() or {}).get("result")
        check(f"base token: call {t['name']}", r.status == 200 and res is not None, f"{r.status} {r.body[:160]!r}")

    if all_tools is None:
        return base_tools, []
    names_all = [t["name"] for t in all_tools]
    hidden = [t for t in all_tools if t["name"] not in names0]
    check("the list is filtered by scope", set(names0) < set(names_all),
          f"base {sorted(names0)} of {sorted(names_all)}")
    if not hidden:
        return base_tools, hidden
    t = hidden[0]
    args = sample_args(t.get("inputSchema") or {})
    r = s.request("tools/call", {"name": t["name"], "arguments": args})
    ch = parse_challenge(r.header("www-authenticate")) or {}
    need = ch.get("scope", "")
    check.step_up_scope = need
    check(f"call {t['name']} outside the scopes: 403 insufficient_scope",
          r.status == 403 and ch.get("error") == "insufficient_scope" and bool(need) and not r.served()
          and ch.get("resource_metadata", "").startswith(origin),
          f"{r.status} WWW-Authenticate: {r.header('www-authenticate')!r}")
    wider = " ".join(dict.fromkeys((base + " " + need).split()))
    if modern:
        check_modern(check, url, issuer, base, wider, names0, t, args)
    s2 = Session(url, mint(issuer, aud=url, scope=wider, sub="alice", client_id="test-client"))
    s2.initialize()
    r, tools2 = s2.tools()
    check(f"stepped-up token ({wider}): {t['name']} listed", t["name"] in [x["name"] for x in tools2],
          f"{[x['name'] for x in tools2]}")
    r = s2.request("tools/call", {"name": t["name"], "arguments": args})
    res = (r.result() or {}).get("result")
    check(f"stepped-up token: call {t['name']}", r.status == 200 and res is not None and not res.get("isError"),
          f"{r.status} {r.body[:160]!r}")
    return base_tools, hidden
