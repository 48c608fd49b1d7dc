#!/usr/bin/env bash
# Install the official MCP SDKs that the interop clients run on. Idempotent: a stamp
# file records what was installed, and nothing is redone while it matches.
#
#   tests/interop/setup.sh            # from anywhere; paths are relative to the repo
#
# Python: a venv at $REPO/target/interop/venv (made with `python3` from PATH, or
#         $PYTHON) with mcp==2.3.0 and jsonschema==4.26.0 (for tests/schema/validate.py)
#         from the package index.
# Node:   `npm ci` in tests/interop/node from the committed package-lock.json
#         (@modelcontextprotocol/sdk 1.32.2 + zod).
# Needs network access to the registries the first time. Progress goes to stderr.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
PYTHON="${PYTHON:-python3}"
VENV="$REPO/target/interop/venv"
MCP_PY_REQ="mcp==2.3.0"
PY_REQS=("$MCP_PY_REQ" "jsonschema==4.26.0")
NODE_DIR="$HERE/node"

say() { printf 'interop setup: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# --- Python SDK ------------------------------------------------------------------
command -v "$PYTHON" >/dev/null || die "$PYTHON not found on PATH"
py_stamp="$VENV/.picomcp-interop-stamp"
py_want="${PY_REQS[*]} $("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
if [ -f "$py_stamp" ] && [ "$(cat "$py_stamp")" = "$py_want" ] \
    && "$VENV/bin/python" -c 'import mcp, jsonschema' >/dev/null 2>&1; then
    say "python: ${PY_REQS[*]} already in $VENV"
else
    if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1 \
        && [ "$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" = "${py_want##* }" ]; then
        say "python: reusing venv $VENV"
    else
        say "python: creating venv $VENV with $("$PYTHON" --version 2>&1)"
        rm -rf "$VENV"
        mkdir -p "$(dirname "$VENV")"
        "$PYTHON" -m venv "$VENV" \
            || die "'$PYTHON -m venv' failed (on Debian: apt-get install python3-venv)"
    fi
    say "python: pip install ${PY_REQS[*]}"
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q "${PY_REQS[@]}" >&2
    "$VENV/bin/python" -c 'import mcp, jsonschema' || die "mcp or jsonschema does not import after install"
    printf '%s\n' "$py_want" >"$py_stamp"
    say "python: installed ${PY_REQS[*]}"
fi

# --- TypeScript SDK -------------------------------------------------------------
command -v node >/dev/null || die "node not found on PATH (Node >= 20 is needed)"
command -v npm >/dev/null || die "npm not found on PATH"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 18 ] || die "Node $(node --version) is too old (>= 20 recommended, SDK needs >= 18)"
[ -f "$NODE_DIR/package-lock.json" ] || die "$NODE_DIR/package-lock.json is missing"
node_stamp="$NODE_DIR/node_modules/.picomcp-interop-stamp"
node_want="$(cksum <"$NODE_DIR/package-lock.json" | cut -d' ' -f1) node$node_major"
if [ -f "$node_stamp" ] && [ "$(cat "$node_stamp")" = "$node_want" ] \
    && [ -f "$NODE_DIR/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
    say "node: @modelcontextprotocol/sdk already in $NODE_DIR/node_modules"
else
    say "node: npm ci in $NODE_DIR"
    (cd "$NODE_DIR" && npm ci --no-audit --no-fund >&2)
    printf '%s\n' "$node_want" >"$node_stamp"
    say "node: installed @modelcontextprotocol/sdk $(cd "$NODE_DIR" && node -p 'require("./node_modules/@modelcontextprotocol/sdk/package.json").version' 2>/dev/null || echo '?')"
fi

say "ready: $VENV/bin/python tests/interop/python_client.py [--mode legacy|auto] SERVER_CMD..."
say "       node tests/interop/ts_client.mjs SERVER_CMD..."
