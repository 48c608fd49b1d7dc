#!/usr/bin/env bash
# Installs what the authorization tests run on. Idempotent: a stamp file records what
# was installed, and nothing is redone while it matches.
#
#   tests/auth/setup.sh            # from anywhere; paths are relative to the repo
#
# Python: a venv at $REPO/target/auth/venv (from `python3` on PATH, or $PYTHON) with the
#         authorization server's stack (Authlib on Flask, pinned below) and the official
#         Python SDK at the version tests/interop/setup.sh pins (its OAuth client,
#         OAuthClientProvider, and its auth-enabled server for the self-test), plus PyJWT
#         for the reference resource server's token verifier.
# Node:   the TypeScript SDK from tests/interop (tests/interop/setup.sh; reused, not
#         installed twice).
# Needs the package registries the first time. Progress goes to stderr; the last line
# on stdout is the venv's python.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
PYTHON="${PYTHON:-python3}"
VENV="$REPO/target/auth/venv"
# The official Python SDK: the same pin as the interop tests.
MCP_PY_REQ="$(sed -n 's/^MCP_PY_REQ="\(.*\)"$/\1/p' "$REPO/tests/interop/setup.sh")"
[ -n "$MCP_PY_REQ" ] || { echo "auth setup: no MCP_PY_REQ in tests/interop/setup.sh" >&2; exit 1; }
PY_REQS=("authlib==1.9.6" "flask==3.1.3" "werkzeug==3.1.9" "joserfc==1.8.0" "pyjwt[crypto]==2.15.1" "$MCP_PY_REQ")

say() { printf 'auth setup: %s\n' "$*" >&2; }

bash "$REPO/tests/interop/setup.sh" >/dev/null 2>&1 || { bash "$REPO/tests/interop/setup.sh"; exit 1; }

stamp="$VENV/.picomcp-auth-stamp"
want="${PY_REQS[*]} $("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
    && "$VENV/bin/python" -c 'import authlib, flask, jwt, mcp' >/dev/null 2>&1; then
    say "python: ${PY_REQS[*]} already in $VENV"
else
    if ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
        say "python: creating venv $VENV with $("$PYTHON" --version 2>&1)"
        rm -rf "$VENV"
        mkdir -p "$(dirname "$VENV")"
        "$PYTHON" -m venv "$VENV"
    fi
    say "python: pip install ${PY_REQS[*]}"
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q "${PY_REQS[@]}" >&2
    "$VENV/bin/python" -c 'import authlib, flask, jwt, mcp'
    printf '%s\n' "$want" >"$stamp"
fi
echo "$VENV/bin/python"
