#!/usr/bin/env bash
# Regenerates what the C API derives from code:
#   ffi/src/generated.rs  picomcp_method / picomcp_version, from the core's tables
#   include/picomcp.h     from ffi/src with cbindgen 0.29.4 (installed on demand)
# Run it after changing ffi/src or the core's method table, and check in both files.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
. ffi/cbindgen-env.sh
check_version_string
PICOMCP_REGENERATE=1 cargo test --quiet -p picomcp-ffi --lib generated_tables_in_sync >/dev/null
find_cbindgen
"$CBINDGEN" --quiet --config ffi/cbindgen.toml --crate picomcp-ffi --output include/picomcp.h ffi
echo "wrote ffi/src/generated.rs and include/picomcp.h ($($CBINDGEN --version))"
