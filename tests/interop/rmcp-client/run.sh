#!/usr/bin/env bash
# Build the rmcp (official Rust SDK) interop client and run it in both modes against a
# stdio server, or over Streamable HTTP with --url.
#
#   tests/interop/rmcp-client/run.sh [--timeout-scale N] [--url URL] [--] SERVER_CMD [ARGS...]
#   e.g. tests/interop/rmcp-client/run.sh target/release/picomcp-demo
#        tests/interop/rmcp-client/run.sh --url 'http://127.0.0.1:{port}/mcp' -- \
#            target/release/picomcp-demo --http '127.0.0.1:{port}'
#
# --timeout-scale N is passed on to the client (it multiplies its timeouts; slow servers).
# --url URL: rmcp's streamable HTTP client; the client picks a free port for {port} (in
# the URL and the server's arguments) and starts the server itself.
#
# The client is built in release mode into $REPO/target/rmcp-interop (cached between
# runs; a cold build of rmcp + tokio takes a few minutes, a warm one about a second),
# with --locked against the committed Cargo.lock. The first build needs crates.io.
# The server command runs with the repository root as its working directory.
# Exit status: 0 if both modes pass, 1 if a check failed, 2 on a usage or build error.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
export CARGO_TARGET_DIR="$REPO/target/rmcp-interop"
BIN="$CARGO_TARGET_DIR/release/rmcp-interop"

opts=()
while [ $# -gt 0 ]; do
    case "$1" in
        --timeout-scale|--url) [ $# -ge 2 ] || { echo "$0: $1 needs a value" >&2; exit 2; }
                         opts+=("$1" "$2"); shift 2 ;;
        --) shift; break ;;
        *) break ;;
    esac
done
if [ $# -eq 0 ]; then
    echo "usage: $0 [--timeout-scale N] [--url URL] [--] SERVER_CMD [ARGS...]" >&2
    exit 2
fi

t0=$(date +%s.%N)
if ! cargo build --release --locked --quiet --manifest-path "$HERE/Cargo.toml"; then
    echo "rmcp-interop: build failed" >&2
    exit 2
fi
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v d="$CARGO_TARGET_DIR" 'BEGIN { printf "# rmcp-interop build: %.1f s (CARGO_TARGET_DIR=%s)\n", b - a, d }'

cd "$REPO"
status=0
for mode in default auto; do
    echo "# rmcp-interop --mode $mode -- $*"
    "$BIN" --mode "$mode" ${opts[@]+"${opts[@]}"} -- "$@"
    rc=$?
    [ $rc -gt $status ] && status=$rc
done
exit $status
