#!/usr/bin/env bash
# Builds and runs every fuzz target for a bounded time, then prints executions and
# coverage per target. See docs/RELIABILITY.md.
#
#   fuzz/run.sh                 20 s per target (the default)
#   fuzz/run.sh 15              what the test command runs
#   fuzz/run.sh 3600            the long run (an hour per target)
#   fuzz/run.sh 60 framing      only the named targets
#
# Environment: FUZZ_JOBS=N runs N targets at a time (default 1; libFuzzer uses one core
# per target). Needs the nightly toolchain (AddressSanitizer); cargo-fuzz is installed
# on first use. Corpora grow in fuzz/corpus/<target>/ (not checked in) on top of the
# checked-in seeds in fuzz/seeds/<target>/; a crashing input is saved under
# fuzz/artifacts/<target>/ and the script exits with status 1.
set -euo pipefail
cd "$(dirname "$0")"

SECS=${1:-20}
shift || true
ALL_TARGETS=(framing float json_scanner jsonrpc_parse schema_validate server_session client_session server_layer uri_template roots canonical http_codec http_endpoint http_auth)
if [ $# -gt 0 ]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi
JOBS=${FUZZ_JOBS:-1}
case "$SECS" in '' | *[!0-9]*) echo "usage: fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]" >&2; exit 2 ;; esac

t_start=$SECONDS
# ---- tools
if ! rustup toolchain list | grep -q '^nightly'; then
  echo "fuzz/run.sh: installing the nightly toolchain" >&2
  rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz/run.sh: installing cargo-fuzz" >&2
  cargo install --locked cargo-fuzz
fi
HOST=$(rustc +nightly -vV | sed -n 's/^host: //p')
BIN=target/$HOST/release

# ---- build (release, debug assertions, AddressSanitizer: cargo-fuzz defaults)
t_build=$SECONDS
if [ "${#TARGETS[@]}" -eq "${#ALL_TARGETS[@]}" ]; then
  cargo +nightly fuzz build 2>&1 | grep -Ev '^\s+(Compiling|Checking|Downloaded|Downloading)' || true
else
  for t in "${TARGETS[@]}"; do
    cargo +nightly fuzz build "$t" 2>&1 | grep -Ev '^\s+(Compiling|Checking|Downloaded|Downloading)' || true
  done
fi
for t in "${TARGETS[@]}"; do
  [ -x "$BIN/$t" ] || { echo "fuzz/run.sh: build failed ($BIN/$t missing)" >&2; exit 2; }
done
build_secs=$((SECONDS - t_build))

# ---- run
mkdir -p logs
run_one() {
  local t=$1
  mkdir -p "corpus/$t" "artifacts/$t"
  "$BIN/$t" "corpus/$t" "seeds/$t" \
    -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="artifacts/$t/" >"logs/$t.log" 2>&1
  echo $? >"logs/$t.status"
}
running=0
for t in "${TARGETS[@]}"; do
  echo "fuzz/run.sh: $t for ${SECS}s" >&2
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

# ---- report
crashed=0
total_execs=0
printf '%-16s %12s %8s %8s %8s  %s\n' target execs exec/s cov ft result
for t in "${TARGETS[@]}"; do
  log=logs/$t.log
  status=$(cat "logs/$t.status" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  # The last status line (DONE, or the one before a crash) has the coverage figures.
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  rate=$(sed -n 's/.* exec\/s: \([0-9]*\).*/\1/p' <<<"$last")
  if [ -z "$execs" ]; then execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last"); fi
  result=ok
  if [ "$status" != 0 ]; then
    crashed=1
    artifact=$(sed -n 's/.*Test unit written to \(.*\)/\1/p' "$log" | tail -n 1)
    result="CRASH (exit $status) ${artifact:-see fuzz/$log}"
  fi
  total_execs=$((total_execs + ${execs:-0}))
  printf '%-16s %12s %8s %8s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$result"
done
echo "total executions: $total_execs; build ${build_secs}s, whole run $((SECONDS - t_start))s"
if [ "$crashed" != 0 ]; then
  echo "fuzz/run.sh: a target failed; reproduce with: cd fuzz && cargo +nightly fuzz run TARGET ARTIFACT" >&2
  for t in "${TARGETS[@]}"; do
    if [ "$(cat "logs/$t.status" 2>/dev/null || echo 1)" != 0 ]; then
      echo "---- $t (full log: fuzz/logs/$t.log)" >&2
      if grep -q 'panicked at' "logs/$t.log"; then
        grep -E -A8 'panicked at' "logs/$t.log" | grep -Ev '^stack backtrace|^ +[0-9]+: |^ +at ' | head -n 8 >&2
      else
        grep -E 'ERROR: |SUMMARY: |Test unit written' "logs/$t.log" | head -n 6 >&2
      fi
    fi
  done
  exit 1
fi
