#!/usr/bin/env bash
# Benchmarks the demo servers against the official-SDK reference servers with the shared
# load driver (../shared/bench): requests per second and server CPU per request, measured
# in the same run as the rmcp reference, plus heap allocations per request under valgrind.
# A benchmark, not a test: nothing here fails on timing.
#
#   bench/run.sh                 ours (Rust demo) vs rmcp-pipes: ping-w1, ping-w64, echo1k-w64
#   bench/run.sh --reps 5        more repetitions
#   bench/run.sh --allocs-only   only the allocation count
#   bench/run.sh --bindings      the Python and Node demos (on the bindings) vs the official
#                                Python and TypeScript SDK servers, plus cold start
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SHARED=${PICOMCP_SHARED:-$ROOT/../shared}
BENCH_HOME=${BENCH_HOME:-$HOME/.cache/picomcp-bench}
REPS=3
ALLOCS_ONLY=0
BINDINGS=0
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) REPS=$2; shift 2 ;;
    --allocs-only) ALLOCS_ONLY=1; shift ;;
    --bindings) BINDINGS=1; shift ;;
    *) echo "usage: bench/run.sh [--reps N] [--allocs-only | --bindings]" >&2; exit 2 ;;
  esac
done
cargo build --release --quiet -p picomcp-examples --bin picomcp-demo
[ -x "$BENCH_HOME/mcpload/target/release/mcpload" ] || (cd "$SHARED/bench" && ./setup.sh)
M=$BENCH_HOME/mcpload/target/release/mcpload

if [ $BINDINGS = 1 ]; then
  PY=$(bindings/python/build.sh | tail -n 1)
  bash bindings/node/build.sh
  (cd "$BENCH_HOME" && python3 run_all.py \
     --server ours-py="$PY $ROOT/examples/python/demo_server.py" \
     --server ours-node="node $ROOT/examples/node/demo_server.mjs" \
     --only ours-py,py-mcpserver,py-lowlevel,ours-node,ts-mcpserver,ts-lowlevel \
     --scenarios ping-w1,ping-w64,echo1k-w64 --reps "$REPS" --target-s 2 --cold 5 \
     --out "$ROOT/target/bench-bindings")
  python3 - "$ROOT/target/bench-bindings/summary.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cells = d["cells"]
print("\nscenario      ours-py/py-lowlevel   ours-node/ts-lowlevel   (req/s ratios, same run)")
for scen in ["ping-w1", "ping-w64", "echo1k-w64"]:
    r = []
    for ours, ref in (("ours-py", "py-lowlevel"), ("ours-node", "ts-lowlevel")):
        o, b = cells.get(f"{ours}|{scen}"), cells.get(f"{ref}|{scen}")
        r.append(f"{o['req_per_s'] / b['req_per_s']:8.1f}" if o and b else "     n/a")
    print(f"{scen:12} {r[0]:>20} {r[1]:>23}")
PY
  exit 0
fi
DEMO=$ROOT/target/release/picomcp-demo

if [ $ALLOCS_ONLY = 0 ]; then
  (cd "$BENCH_HOME" && python3 run_all.py --server ours="$DEMO" --only ours,rmcp-pipes \
     --scenarios ping-w1,ping-w64,echo1k-w64 --reps "$REPS" --cold 0 --out "$ROOT/target/bench")
  python3 - "$ROOT/target/bench/summary.json" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
print("\nscenario      ours req/s   rmcp req/s   ratio   ours CPU us/req")
for scen in ["ping-w1", "ping-w64", "echo1k-w64"]:
    o, r = cells.get(f"ours|{scen}"), cells.get(f"rmcp-pipes|{scen}")
    if o and r:
        print(f"{scen:12} {o['req_per_s']:12.0f} {r['req_per_s']:12.0f} {o['req_per_s']/r['req_per_s']:7.2f}   {o['server_cpu_us_per_req']:.2f}")
PY
fi

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
