#!/usr/bin/env bash
# Fuzzes the C ABI with libFuzzer: ffi/fuzz/fuzz_c_api.c linked against libpicomcp.a built
# with sanitizer-coverage instrumentation (nightly rustc), so the fuzzer is guided by
# coverage inside the Rust library, and the harness under AddressSanitizer.
#
#   ffi/fuzz/run.sh [SECONDS]     default 15; `ffi/fuzz/run.sh 3600` for a long run
#
# Installs clang (Debian) and the nightly toolchain if missing. Prints the executions and
# coverage; exits non-zero on a crash (the input is kept in target/ffi-fuzz/artifacts/).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
SECS=${1:-15}
OUT=$ROOT/target/ffi-fuzz
mkdir -p "$OUT/corpus" "$OUT/artifacts"
if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "ffi fuzz: installing clang" >&2
  (apt-get update -q >/dev/null 2>&1 || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends clang libclang-rt-14-dev >/dev/null
fi
rustup toolchain list | grep -q '^nightly' >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal >/dev/null
SANCOV="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# --target keeps the flags off build scripts (they run on the host, uninstrumented).
RUSTFLAGS="$SANCOV" cargo +nightly build --quiet --release -p picomcp-ffi --lib --target x86_64-unknown-linux-gnu --target-dir "$OUT/build"
clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude ffi/fuzz/fuzz_c_api.c \
  "$OUT/build/x86_64-unknown-linux-gnu/release/libpicomcp.a" -lpthread -ldl -lm -o "$OUT/fuzz_c_api"
# Seeds: the bad-input corpus and the vectors' lines, behind a configuration byte.
python3 - "$OUT/corpus" <<'PY'
import json, os, sys
out = sys.argv[1]
lines = []
for l in open("tests/malformed/cases.jsonl"):
    if l.strip() and not l.startswith("#"):
        c = json.loads(l)
        if "send" in c:
            lines.append(c["send"].replace("@PAD(", "").encode()[:2000])
init = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
for i, body in enumerate(lines[:200]):
    prog = bytearray()
    for chunk in (init, body):
        for k in range(0, len(chunk), 63):
            part = chunk[k:k + 63]
            prog.append(((len(part) - 1) // 2) << 3 & 0xF8)  # op 0: feed
            prog += part
    prog += bytes([4, 5 | 0x40, 3 | 0x80])
    for cfg in (1, 3):
        open(os.path.join(out, f"seed-{cfg}-{i}"), "wb").write(bytes([cfg]) + prog)
PY
"$OUT/fuzz_c_api" -max_total_time="$SECS" -print_final_stats=1 -artifact_prefix="$OUT/artifacts/" \
  "$OUT/corpus" 2> "$OUT/log.txt" || { tail -n 40 "$OUT/log.txt"; exit 1; }
grep -E "stat::number_of_executed_units|cov:" "$OUT/log.txt" | tail -n 2
