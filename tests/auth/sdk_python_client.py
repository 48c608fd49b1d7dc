"""The official Python SDK's OAuth client (`OAuthClientProvider`) against one server.

The SDK does everything itself: the 401, protected resource metadata, authorization
server metadata, dynamic client registration, PKCE, the `resource` parameter, the token
request, step-up on 403 `insufficient_scope`, refresh. This script only plays the browser:
the authorization server consents at once (tests/auth/authz_server.py), so the redirect
handler GETs the authorization URL without following redirects and hands the `code`,
`state` and `iss` of its `Location` back to the SDK (the conformance suite's way).

    python sdk_python_client.py --url URL --call TOOL [--args JSON]
        [--step-up TOOL --step-up-args JSON] [--refresh]

Checks (`ok - NAME` / `not ok - NAME: why`, then `N passed, M failed`):
* `connect`: the client connects through the whole flow;
* `call TOOL`: a tool within the first grant answers without isError;
* `step-up TOOL` (with --step-up): TOOL is absent from the first list, then the call
  succeeds after the SDK re-authorizes (a second authorization), and TOOL is listed;
* `refresh` (with --refresh): with the access token marked expired, the next request goes
  through after the SDK's refresh grant.
The authorization server's log (/test/log) is checked by the caller (tests/auth/run.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

REDIRECT = "http://127.0.0.1:9/callback"  # nothing listens: the browser is simulated


class MemoryStorage:
    def __init__(self):
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


class Browser:
    """Follows the authorization URL to the AS, which redirects at once; keeps the result."""

    def __init__(self):
        self.result: AuthorizationCodeResult | None = None
        self.urls: list[str] = []

    async def redirect(self, url: str) -> None:
        self.urls.append(url)
        async with httpx2.AsyncClient(follow_redirects=False) as http:
            r = await http.get(url)
        if r.status_code != 302:
            raise RuntimeError(f"authorization endpoint answered {r.status_code}: {r.text[:200]}")
        q = parse_qs(urlsplit(r.headers["location"]).query)
        if "code" not in q:
            raise RuntimeError(f"authorization refused: {r.headers['location']}")
        self.result = AuthorizationCodeResult(
            code=q["code"][0], state=q.get("state", [None])[0], iss=q.get("iss", [None])[0]
        )

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None
        result, self.result = self.result, None
        return result


def text_of(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def run(args) -> int:
    passed = failed = 0

    def check(name: str, ok: bool, why: str = "") -> None:
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"ok - {name}" + (f" ({why})" if why else ""), flush=True)
        else:
            failed += 1
            print(f"not ok - {name}: {why}", flush=True)

    browser = Browser()
    storage = MemoryStorage()
    provider = OAuthClientProvider(
        server_url=args.url,
        client_metadata=OAuthClientMetadata(
            client_name="picomcp auth test (Python SDK)",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=browser.redirect,
        callback_handler=browser.callback,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=30) as http:
        try:
            async with Client(streamable_http_client(args.url, http_client=http), mode=args.mode) as client:
                check("connect", True, f"{client.protocol_version}, {len(browser.urls)} authorization(s)")
                first = {t.name for t in (await client.list_tools()).tools}
                r = await client.call_tool(args.call, json.loads(args.args))
                check(f"call {args.call}", not r.is_error, text_of(r)[:80])
                if args.step_up:
                    before = len(browser.urls)
                    check(f"{args.step_up} hidden before step-up", args.step_up not in first, f"first list: {sorted(first)}")
                    r = await client.call_tool(args.step_up, json.loads(args.step_up_args))
                    check(f"step-up {args.step_up}", not r.is_error and len(browser.urls) == before + 1,
                          f"{len(browser.urls) - before} more authorization(s); {text_of(r)[:80]}")
                    after = {t.name for t in (await client.list_tools()).tools}
                    check(f"{args.step_up} listed after step-up", args.step_up in after, f"{sorted(after)}")
                if args.refresh:
                    old = storage.tokens.access_token if storage.tokens else None
                    has_refresh = bool(storage.tokens and storage.tokens.refresh_token)
                    check("refresh token issued", has_refresh)
                    provider.context.token_expiry_time = 1.0  # as if expired: the SDK refreshes
                    r = await client.call_tool(args.call, json.loads(args.args))
                    new = storage.tokens.access_token if storage.tokens else None
                    check("refresh", not r.is_error and new != old and len(browser.urls) == len(set(browser.urls)),
                          "new access token through the refresh grant")
        except Exception as e:  # noqa: BLE001 - any failure of the flow is a failed check
            while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
                e = e.exceptions[0]
            check("flow", False, f"{type(e).__name__}: {e}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--mode", default="legacy", help="mcp Client mode (legacy, auto)")
    p.add_argument("--call", required=True)
    p.add_argument("--args", default="{}")
    p.add_argument("--step-up")
    p.add_argument("--step-up-args", default="{}")
    p.add_argument("--refresh", action="store_true")
    args = p.parse_args()
    return anyio.run(run, args)


if __name__ == "__main__":
    sys.exit(main())
