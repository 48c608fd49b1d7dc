#!/usr/bin/env bash
# Fails when ffi/src/generated.rs or include/picomcp.h differ from what the code
# generates (regenerate with ffi/gen-header.sh). Writes nothing in the source tree.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
. ffi/cbindgen-env.sh
check_version_string
if ! cargo test --quiet -p picomcp-ffi --lib generated_tables_in_sync >/dev/null 2>&1; then
  echo "ffi/src/generated.rs is out of date with the core's method table: run ffi/gen-header.sh" >&2
  exit 1
fi
find_cbindgen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$CBINDGEN" --quiet --config ffi/cbindgen.toml --crate picomcp-ffi --output "$tmp/picomcp.h" ffi
if ! diff -u include/picomcp.h "$tmp/picomcp.h"; then
  echo "include/picomcp.h differs from the code (diff above): run ffi/gen-header.sh" >&2
  exit 1
fi
echo "include/picomcp.h and ffi/src/generated.rs are up to date"
