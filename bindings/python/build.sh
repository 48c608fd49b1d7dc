#!/usr/bin/env bash
# Builds the Python package into a venv of its own (target/python/venv) and installs it:
# the one set-up step of everything Python in this repository (the Python demo server, the
# binding's tests). Idempotent and quick when nothing changed.
#
#   bindings/python/build.sh          -> prints the venv's python on its last line
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="$root/target/python/venv"
py="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv" >&2
fi
# uvicorn: the ASGI server of the demo's `--http` (`Server.asgi()` needs no server itself),
# with the parser and loop of `uvicorn[standard]` (httptools, uvloop), which it picks itself.
if ! "$venv/bin/python" -c "import maturin, pytest, uvicorn, httptools, uvloop" 2>/dev/null; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.16,<2" "pytest>=8" \
    "uvicorn==0.54.0" "httptools==0.8.0" "uvloop==0.23.0" >&2
fi
# PyJWT with its crypto extra: the Python demo's token verifier (--auth-issuer).
if ! "$venv/bin/python" -c "import jwt, cryptography" 2>/dev/null; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check "PyJWT[crypto]==2.15.1" >&2
fi
rm -rf "$root/target/python/wheels"
"$venv/bin/maturin" build --quiet --release --strip -m "$root/bindings/python/Cargo.toml" \
  -o "$root/target/python/wheels" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps \
  "$root"/target/python/wheels/picomcp-*.whl >&2
echo "$venv/bin/python"
