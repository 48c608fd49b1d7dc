#!/usr/bin/env bash
# Our CLIENT role against servers on the three official MCP SDKs: runs picomcp-probe
# against a stdio server on each of
#   python  mcp 2.3.0 (MCPServer)                    sdk_servers/python_server.py
#   ts      @modelcontextprotocol/sdk 1.32.2 (McpServer)  sdk_servers/ts_server.mjs
#   rmcp    rmcp 3.11.0                               rmcp-client/src/server.rs
# once with no --protocol (auto: the probe offers server/discover, then initialize) and
# once with each of --protocol 2024-11-05, 2025-06-18, 2025-11-25; then twice with
# `--pin FILE` (tool pins: the first run saves them, the second must find every tool
# unchanged) and neither may give a lint warning (check_pins.py). The pin runs use
# --protocol 2025-11-25: pins do not depend on the era, and a server that starts in more
# than the 3 s the server/discover probe waits would fail the auto runs twice over.
#
#   tests/interop/sdk_servers/run.sh [python|ts|rmcp ...]    # default: all three
#
# Installs and builds what it needs: tests/interop/setup.sh (the Python venv and the
# Node packages), picomcp-probe (cargo build --release), and the rmcp server
# (cargo build --release --locked into $REPO/target/rmcp-interop; a cold build takes a
# few minutes, the first one needs crates.io). $PROBE overrides the probe binary.
#
# Each run must exit 0 (every check passed, no violation) and its --json report must
# show that the features were exercised (check_report.py). One line per run, then
# `N passed, M failed`. Exit status 0 if every run passed, 1 if one failed, 2 if the
# setup or a build failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
RMCP_TARGET="$REPO/target/rmcp-interop"
PROBE="${PROBE:-$REPO/target/release/picomcp-probe}"
OUT="$REPO/target/interop/sdk_servers"
LEGACY=(2024-11-05 2025-06-18 2025-11-25)

# name | command (relative to the repo root) | what auto negotiates | legacy revisions
server_cmd() {
    case "$1" in
        python) echo "target/interop/venv/bin/python tests/interop/sdk_servers/python_server.py" ;;
        ts) echo "node tests/interop/sdk_servers/ts_server.mjs" ;;
        # listChanged + subscriptions/listen on (see tests/interop/README.md)
        rmcp) echo "env RMCP_INTEROP_LISTEN=1 target/rmcp-interop/release/rmcp-interop-server" ;;
    esac
}
auto_protocol() {
    case "$1" in
        python|rmcp) echo 2026-07-28 ;;
        ts) echo 2025-11-25 ;; # the TS SDK 1.32.2 has no server/discover
    esac
}

names=("$@")
[ ${#names[@]} -gt 0 ] || names=(python ts rmcp)
for n in "${names[@]}"; do
    case "$n" in
        python|ts|rmcp) ;;
        *) echo "usage: $0 [python|ts|rmcp ...]" >&2; exit 2 ;;
    esac
done
want() { local n; for n in "${names[@]}"; do [ "$n" = "$1" ] && return 0; done; return 1; }

elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
t_start=$(date +%s.%N)

# --- setup and builds ------------------------------------------------------------
cd "$REPO"
if want python || want ts; then
    bash "$REPO/tests/interop/setup.sh" 2>/dev/null || { echo "sdk_servers: tests/interop/setup.sh failed" >&2; exit 2; }
fi
if [ "$PROBE" = "$REPO/target/release/picomcp-probe" ]; then
    cargo build --release --quiet -p picomcp-probe --bin picomcp-probe \
        || { echo "sdk_servers: building picomcp-probe failed" >&2; exit 2; }
fi
[ -x "$PROBE" ] || { echo "sdk_servers: no probe at $PROBE" >&2; exit 2; }
if want rmcp; then
    t0=$(date +%s.%N)
    CARGO_TARGET_DIR="$RMCP_TARGET" cargo build --release --locked --quiet \
        --manifest-path "$REPO/tests/interop/rmcp-client/Cargo.toml" --bin rmcp-interop-server \
        || { echo "sdk_servers: building rmcp-interop-server failed" >&2; exit 2; }
    echo "# rmcp-interop-server build: $(elapsed "$t0") s (CARGO_TARGET_DIR=$RMCP_TARGET)"
fi
echo "# setup and builds: $(elapsed "$t_start") s"

# --- the runs ----------------------------------------------------------------------
mkdir -p "$OUT"
passed=0
failed=0
for name in "${names[@]}"; do
    read -r -a cmd <<<"$(server_cmd "$name")"
    for protocol in auto "${LEGACY[@]}"; do
        if [ "$protocol" = auto ]; then
            args=()
            expect="$(auto_protocol "$name")"
        else
            args=(--protocol "$protocol")
            expect="$protocol"
        fi
        report="$OUT/$name-$protocol.json"
        t0=$(date +%s.%N)
        "$PROBE" --json ${args[@]+"${args[@]}"} -- "${cmd[@]}" >"$report" 2>"$OUT/$name-$protocol.stderr"
        rc=$?
        secs=$(elapsed "$t0")
        note="$(python3 "$HERE/check_report.py" "$report" "$expect")"
        check_rc=$?
        label=$(printf '%-6s %-10s -> %-10s' "$name" "$protocol" "$expect")
        if [ $rc -eq 0 ] && [ $check_rc -eq 0 ]; then
            passed=$((passed + 1))
            echo "ok     $label  $note  ($secs s)"
        else
            failed=$((failed + 1))
            echo "FAILED $label  probe exit $rc ($secs s); report: ${report#"$REPO"/}"
            [ -n "$note" ] && echo "$note"
            [ -s "$OUT/$name-$protocol.stderr" ] && sed 's/^/  probe stderr: /' "$OUT/$name-$protocol.stderr" | tail -5
        fi
    done
done
# --- tool pins and the poisoning lint -------------------------------------------
for name in "${names[@]}"; do
    read -r -a cmd <<<"$(server_cmd "$name")"
    pins="$OUT/$name-pins.json"
    rm -f "$pins"
    for run in save check; do
        report="$OUT/$name-pins-$run.json"
        t0=$(date +%s.%N)
        "$PROBE" --json --protocol 2025-11-25 --pin "$pins" -- "${cmd[@]}" >"$report" 2>"$OUT/$name-pins-$run.stderr"
        rc=$?
        secs=$(elapsed "$t0")
        note="$(python3 "$HERE/check_pins.py" "$report" "$run")"
        check_rc=$?
        label=$(printf '%-6s %-10s    %-10s' "$name" "--pin" "$run")
        if [ $rc -eq 0 ] && [ $check_rc -eq 0 ]; then
            passed=$((passed + 1))
            echo "ok     $label  $note  ($secs s)"
        else
            failed=$((failed + 1))
            echo "FAILED $label  probe exit $rc ($secs s); report: ${report#"$REPO"/}"
            [ -n "$note" ] && echo "$note"
        fi
    done
done
echo "sdk_servers: $passed passed, $failed failed ($(elapsed "$t_start") s)"
[ $failed -eq 0 ]
