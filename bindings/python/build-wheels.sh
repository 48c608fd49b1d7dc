#!/usr/bin/env bash
# Builds what a user installs without Rust: the abi3 wheel (one file for CPython >= 3.9,
# tagged manylinux by maturin's audit of the glibc symbols it needs) and an sdist, into
# target/wheels/. Needs Rust and Python; maturin is installed into target/python/venv.
#
#   bindings/python/build-wheels.sh           # manylinux tag of this machine's glibc
#   bindings/python/build-wheels.sh --zig     # manylinux2014 (glibc 2.17) through zig
#                                             #   (pip installs ziglang into the venv)
# Then, anywhere:  pip install target/wheels/picomcp-*-abi3-*.whl
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="$root/target/python/venv"
out="$root/target/wheels"
[ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv" >&2
"$venv/bin/python" -c "import maturin" 2>/dev/null ||
  "$venv/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.16,<2" >&2
extra=()
if [ "${1:-}" = "--zig" ]; then
  "$venv/bin/python" -c "import ziglang" 2>/dev/null ||
    "$venv/bin/pip" install --quiet --disable-pip-version-check ziglang >&2
  extra=(--zig --compatibility manylinux2014)
fi
mkdir -p "$out"
rm -f "$out"/picomcp-*
PATH="$venv/bin:$PATH" "$venv/bin/maturin" build --quiet --release --strip -m "$root/bindings/python/Cargo.toml" \
  -o "$out" "${extra[@]}" >&2
"$venv/bin/maturin" sdist -m "$root/bindings/python/Cargo.toml" -o "$out" >&2
ls "$out"/picomcp-*
