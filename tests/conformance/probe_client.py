#!/usr/bin/env python3
"""The conformance suite's client command for the auth scenarios: starts the probe with
what the scenario hands its client in MCP_CONFORMANCE_CONTEXT (pre-registered
credentials, a client key), as the suite's own example client reads it.

    probe_client.py PROBE [PROBE ARGS...] --url SERVER_URL   (the suite appends the URL)

Context keys: client_id and client_secret become --client-id/--client-secret;
private_key_pem is written to a temporary file for --client-key (with
--client-key-alg signing_algorithm); idp_id_token (with idp_token_endpoint and
idp_client_id) becomes the --idp-* flags of enterprise-managed authorization; the
client-credentials scenarios add --grant client-credentials. The probe itself reads no environment.
"""

import json
import os
import sys
import tempfile


def main() -> int:
    probe, args = sys.argv[1], sys.argv[2:]
    ctx = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    extra = []
    if ctx.get("client_id"):
        extra += ["--client-id", ctx["client_id"]]
    if ctx.get("client_secret"):
        extra += ["--client-secret", ctx["client_secret"]]
    if ctx.get("private_key_pem"):
        key = tempfile.NamedTemporaryFile("w", suffix=".pem", delete=False)
        key.write(ctx["private_key_pem"])
        key.close()
        extra += ["--client-key", key.name, "--client-key-alg", ctx.get("signing_algorithm") or "ES256"]
    if ctx.get("idp_id_token"):
        token = tempfile.NamedTemporaryFile("w", suffix=".jwt", delete=False)
        token.write(ctx["idp_id_token"])
        token.close()
        extra += ["--idp-token-endpoint", ctx["idp_token_endpoint"],
                  "--idp-client-id", ctx["idp_client_id"], "--idp-id-token-file", token.name]
    if scenario.startswith("auth/client-credentials"):
        extra += ["--grant", "client-credentials"]
    # Flags before --url (the last two arguments: --url and the server URL).
    argv = [probe] + args[:-2] + extra + args[-2:]
    os.execv(probe, argv)
    return 2


if __name__ == "__main__":
    sys.exit(main())
