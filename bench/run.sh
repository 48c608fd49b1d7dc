#!/usr/bin/env bash
# Benchmarks the demo servers with the shared load driver (../shared/bench, `mcpload`
# through `run_all.py`): the four demos (Rust, C, Python, Node), the three no-library
# "floor" servers (Rust, Python, Node) and the rmcp reference server, all in one run
# (interleaved repetitions, medians), then prints the table of issue 17 with the ratios
# taken in that run, and heap allocations per request of the Rust demo under valgrind.
# A benchmark, not a test: nothing here fails on timing.
#
#   bench/run.sh                  everything: ping-w1, ping-w64, echo1k-w64, cold start, allocations
#   bench/run.sh --reps 5         more repetitions (default 3)
#   bench/run.sh --baseline-demo /work/baseline/picomcp-demo
#                                 also measures that (earlier) Rust demo binary in the same run
#                                 and prints new / baseline for every scenario
#   bench/run.sh --only rust,floor-rust --quick
#                                 a subset of servers (rust c python node floor-rust floor-python
#                                 floor-node rmcp-pipes); --quick is a smoke run (1 short rep)
#   bench/run.sh --scenarios ping-w64,echo1k-w64   other scenarios (see run_all.py)
#   bench/run.sh --no-build       use the binaries as built; --no-allocs skips valgrind
#   bench/run.sh --allocs-only    only the allocation count
#   bench/run.sh --bindings       the Python and Node demos (on the bindings) vs the official
#                                 Python and TypeScript SDK servers, plus cold start and peak RSS;
#                                 also the typed Python echo (examples/python/echo_server.py) vs
#                                 the official MCPServer and the no-library Python floor, and the
#                                 Node echo written with zod (examples/node/echo_server.mjs) vs
#                                 McpServer with zod (--only ours-node,ours-notes,ts-mcpserver,
#                                 ts-lowlevel: Node only)
#   bench/run.sh --http [--quick] [--reps N] [--only rust,rmcp] [--idle-sessions N] [--no-build]
#                                 Streamable HTTP (bench/http_load.py): every demo with an "http" command
#                                 in examples/servers.json against rmcp, the TypeScript SDK and the
#                                 Python SDK reference servers (../shared/bench/http) and the HTTP
#                                 floor (bench/http_floor.c, label floor), 1 KiB echo at
#                                 1 and 64 keep-alive connections, SSE and JSON modes where a server
#                                 can choose, medians, ratios of the same run, then peak RSS after N
#                                 (default 10,000) abandoned idle sessions (--idle-sessions 0: none;
#                                 --idle-only: only that). In a private network namespace when root.
#                                 --server 'LABEL=CMD {port}' adds one more of ours (e.g. the demo
#                                 with --max-line 65536); --table SUMMARY prints an earlier run;
#                                 --pin same|split: server and load client on CPU 0 / on CPUs 0 and 1.
#                                 Results: target/bench-http/{summary.json,table.md}.
#
# The previous demo binary against the new one (ping w64, 1 KiB echo w64), same run:
#   bench/run.sh --baseline-demo /work/baseline/picomcp-demo --only rust,floor-rust \
#                --scenarios ping-w64,echo1k-w64 --no-allocs
# Results: target/bench/{summary.json,summary.md,table.md}, raw runs in target/bench/raw.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
# The HTTP benchmark has its own options and driver.
if [ "${1:-}" = --http ]; then shift; exec python3 bench/http_load.py "$@"; fi
ROOT=$PWD
SHARED=${PICOMCP_SHARED:-$ROOT/../shared}
[ -d "$SHARED/bench" ] || SHARED=/work/shared
BENCH_HOME=${BENCH_HOME:-$HOME/.cache/picomcp-bench}
REPS=3
ALLOCS_ONLY=0
ALLOCS=1
BINDINGS=0
BUILD=1
QUICK=0
ONLY=rust,c,python,node,floor-rust,floor-python,floor-node,rmcp-pipes
SCENARIOS=ping-w1,ping-w64,echo1k-w64
BASELINE=
usage() {
  echo "usage: bench/run.sh [--reps N] [--only LABELS] [--scenarios LIST] [--baseline-demo PATH]" \
       "[--quick] [--no-build] [--no-allocs] [--allocs-only | --bindings]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) REPS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --scenarios) SCENARIOS=$2; shift 2 ;;
    --baseline-demo) BASELINE=$(realpath "$2"); shift 2 ;;
    --quick) QUICK=1; shift ;;
    --no-build) BUILD=0; shift ;;
    --no-allocs) ALLOCS=0; shift ;;
    --allocs-only) ALLOCS_ONLY=1; shift ;;
    --bindings) BINDINGS=1; shift ;;
    *) usage ;;
  esac
done
if [ $BINDINGS = 1 ] && [ "$ONLY" = rust,c,python,node,floor-rust,floor-python,floor-node,rmcp-pipes ]; then
  ONLY=ours-py,ours-py-typed,py-mcpserver,py-lowlevel,floor-python,ours-node,ours-notes,ts-mcpserver,ts-lowlevel
fi
[ -z "$BASELINE" ] || [ -x "$BASELINE" ] || { echo "bench/run.sh: $BASELINE is not an executable" >&2; exit 2; }
has() { [[ ",$ONLY," == *",$1,"* ]]; }
[ $BUILD = 0 ] || [ $BINDINGS = 1 ] || cargo build --release --quiet -p picomcp-examples --bin picomcp-demo
# What the selected servers need (the bindings' Node-only run needs no Rust reference servers).
need_setup=0
[ -x "$BENCH_HOME/mcpload/target/release/mcpload" ] || need_setup=1
if [ $BINDINGS = 1 ]; then
  [ -d "$BENCH_HOME/servers/node/node_modules/@modelcontextprotocol/sdk" ] || need_setup=1
  [[ ",$ONLY," != *",py-"* ]] || [ -x "$BENCH_HOME/venv/bin/python" ] || need_setup=1
else
  [ -x "$BENCH_HOME/target/release/baseline-echo" ] && [ -x "$BENCH_HOME/target/release/rmcp-echo" ] &&
    [ -x "$BENCH_HOME/venv/bin/python" ] || need_setup=1
fi
[ $need_setup = 0 ] || (cd "$SHARED/bench" && BENCH_HOME=$BENCH_HOME ./setup.sh)
M=$BENCH_HOME/mcpload/target/release/mcpload

if [ $BINDINGS = 1 ]; then
  # --only picks among ours-py,ours-py-typed,py-mcpserver,py-lowlevel,floor-python,
  # ours-node,ours-notes,ts-mcpserver,ts-lowlevel (ours-notes: examples/node/echo_server.mjs, a zod-typed tool as a user
  # writes it, against ts-mcpserver, McpServer with zod); --quick: 1 short repetition.
  # Also floor-node and floor-node-zod (bench/node_floor_zod.mjs: the no-library floor with zod
  # loaded), not in the default set: the peak RSS that Node, and Node with zod, take under this load.
  PY=$ROOT/target/python/venv/bin/python
  if [ $BUILD = 1 ] && { has ours-py || has ours-py-typed; }; then PY=$(bindings/python/build.sh | tail -n 1); fi
  [ $BUILD = 0 ] || bash bindings/node/build.sh
  TIMING=(--reps "$REPS" --target-s 2 --cold 5)
  [ $QUICK = 0 ] || TIMING=(--reps 1 --target-s 0.5 --min-s 0.2 --min-n 300 --cold 2)
  rm -rf "$ROOT/target/bench-bindings"
  (cd "$BENCH_HOME" && python3 run_all.py \
     --server ours-py="$PY $ROOT/examples/python/demo_server.py" \
     --server ours-py-typed="$PY $ROOT/examples/python/echo_server.py" \
     --server ours-node="node $ROOT/examples/node/demo_server.mjs" \
     --server ours-notes="node $ROOT/examples/node/echo_server.mjs" \
     --server floor-node-zod="node $ROOT/bench/node_floor_zod.mjs $BENCH_HOME/servers/baseline/baseline_echo.mjs" \
     --only "$ONLY" \
     --scenarios ping-w1,ping-w64,echo1k-w64 "${TIMING[@]}" \
     --out "$ROOT/target/bench-bindings")
  python3 - "$ROOT/target/bench-bindings/summary.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cells = d["cells"]
# The demos against the SDKs' low-level servers; the typed Python echo (written like the
# notes example) against the official decorator API and the no-library Python floor; the
# zod-typed Node echo against McpServer with zod.
pairs = (("ours-py", "py-lowlevel"), ("ours-node", "ts-lowlevel"), ("ours-py-typed", "py-mcpserver"),
         ("ours-py-typed", "floor-python"), ("ours-notes", "ts-mcpserver"))
print("\nscenario     " + "".join(f"{o + '/' + r:>26}" for o, r in pairs) + "   (req/s ratios, same run)")
for scen in ["ping-w1", "ping-w64", "echo1k-w64"]:
    row = []
    for ours, ref in pairs:
        o, b = cells.get(f"{ours}|{scen}"), cells.get(f"{ref}|{scen}")
        row.append(f"{o['req_per_s'] / b['req_per_s']:.2f}x" if o and b else "n/a")
    print(f"{scen:12} " + "".join(f"{x:>26}" for x in row))
print("\nserver        cold start (ms)   peak RSS under load (MiB)")
for name, c in d.get("cold", {}).items():
    rss = max((v.get("server_tree_vmhwm_kb") or 0 for k, v in cells.items() if k.startswith(name + "|")), default=0)
    print(f"{name:14} {c['init_ms_median'] or 0:14.1f} {rss / 1024:22.1f}")
PY
  exit 0
fi
DEMO=$ROOT/target/release/picomcp-demo

if [ $ALLOCS_ONLY = 0 ]; then
  SERVERS=(--server rust="$DEMO")
  if has c; then
    [ $BUILD = 0 ] || make --no-print-directory -s -C examples/c
    SERVERS+=(--server c="$ROOT/examples/c/picomcp-demo-c")
  fi
  if has python; then
    PY=$ROOT/target/python/venv/bin/python
    [ $BUILD = 0 ] || PY=$(bindings/python/build.sh | tail -n 1)
    SERVERS+=(--server python="$PY $ROOT/examples/python/demo_server.py")
  fi
  if has node; then
    [ $BUILD = 0 ] || bash bindings/node/build.sh >/dev/null
    SERVERS+=(--server node="node $ROOT/examples/node/demo_server.mjs")
  fi
  LABELS=$ONLY
  if [ -n "$BASELINE" ]; then
    SERVERS+=(--server rust-prev="$BASELINE")
    LABELS=$LABELS,rust-prev
  fi
  TIMING=(--reps "$REPS" --cold 5)
  [ $QUICK = 0 ] || TIMING=(--reps 1 --target-s 0.5 --min-s 0.2 --min-n 300 --cold 2)
  # A fresh output folder per run, so that the summary holds this run only.
  rm -rf "$ROOT/target/bench"
  (cd "$BENCH_HOME" && python3 run_all.py "${SERVERS[@]}" --only "$LABELS" \
     --scenarios "$SCENARIOS" "${TIMING[@]}" --out "$ROOT/target/bench")
  python3 bench/table.py "$ROOT/target/bench/summary.json" ${BASELINE:+--baseline-label rust-prev} |
    tee "$ROOT/target/bench/table.md"
fi
[ $ALLOCS = 1 ] || [ $ALLOCS_ONLY = 1 ] || exit 0

# Heap allocations per request: total allocations of a run with N requests minus a run
# with none, divided by N (valgrind counts every malloc).
command -v valgrind >/dev/null || apt-get install -y -q valgrind >/dev/null
allocs() {
  local n=$1 kind=$2 log
  log=$(mktemp)
  "$M" -k "$kind" -s 1k -n "$n" --warmup 0 -w 8 -- valgrind --tool=memcheck --log-file="$log" "$DEMO" >/dev/null
  grep -o 'total heap usage: [0-9,]* allocs' "$log" | tr -dc 0-9
  rm -f "$log"
}
for kind in ping echo; do
  a0=$(allocs 0 $kind); a1=$(allocs 2000 $kind)
  echo "allocations ($kind): $a0 with 0 requests, $a1 with 2000 requests -> $(python3 -c "print(($a1-$a0)/2000)") per request"
done
