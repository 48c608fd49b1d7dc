#!/usr/bin/env bash
# The firmware's cost per input byte and per request, in instructions, for one fixed
# transcript (issue 17: a change that slows the device shows up here; check-budget.sh
# prints it too).
#
# It builds the image with `--features cycles` (into target/cycles, so the release image
# that check-budget.sh measures is untouched): the main loop then adds up the SysTick
# cycles of every step that did work and reports the total at exit. QEMU runs with
# `-icount shift=3`: each instruction takes exactly 8 ns of virtual time, and SysTick
# counts the 25 MHz core clock in virtual time, so instructions = cycles × 40 / 8. Time
# spent waiting for input (idle steps, WFI) is left out, which is what makes the figure
# the same from run to run whatever the host's load.
#
#   examples/firmware/cycles.sh            # prints the figures
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SHIFT=3
ELF="$HERE/target/cycles/thumbv7em-none-eabihf/release/picomcp-fw"

(cd "$HERE" && cargo build --release --quiet --features cycles --target-dir "$HERE/target/cycles")

transcript=$(mktemp)
trap 'rm -f "$transcript"' EXIT
python3 - "$transcript" <<'PY'
import json, sys

def req(i, method, params=None):
    m = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        m["params"] = params
    return m

lines = [
    req(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "cycles", "version": "1"}}),
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    req(2, "tools/list"),
    req(3, "ping"),
    req(4, "tools/call", {"name": "echo", "arguments": {"text": "x" * 1000}}),
    req(5, "tools/call", {"name": "add", "arguments": {"a": 1.5, "b": 2.25}}),
    req(6, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 40}}),
    req(7, "resources/read", {"uri": "test://static-text"}),
    req(8, "prompts/get", {"name": "test_simple_prompt"}),
] + [req(9 + i, "ping") for i in range(8)]
with open(sys.argv[1], "w") as f:
    for m in lines:
        f.write(json.dumps(m, separators=(",", ":")) + "\n")
PY
bytes=$(wc -c < "$transcript")
requests=$(grep -c '"id"' "$transcript")

# The median of three runs (the UART's chunking moves a run by a few percent).
runs=()
for _ in 1 2 3; do
    err=$(PICOMCP_QEMU_ARGS="-icount shift=$SHIFT" bash "$HERE/run-qemu.sh" --elf "$ELF" \
              < "$transcript" 2>&1 >/dev/null) || { echo "cycles: the firmware run failed: $err" >&2; exit 1; }
    c=$(printf '%s\n' "$err" | sed -n 's/.*busy cycles \([0-9]*\).*/\1/p' | tail -n 1)
    case "$c" in ''|*[!0-9]*) echo "cycles: no figure in the firmware's output: $err" >&2; exit 1 ;; esac
    runs+=("$c")
done
cycles=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p)

python3 - "$cycles" "$bytes" "$requests" "$SHIFT" <<'PY'
import sys
cycles, nbytes, requests, shift = map(int, sys.argv[1:])
insns = cycles * 40 // (1 << shift)  # 25 MHz core clock: 40 ns per cycle, 2^shift ns per insn
print("picomcp-fw cost (QEMU mps2-an386, -icount shift=%d; %d requests, %d input bytes; median of 3):"
      % (shift, requests, nbytes))
print("  %d instructions in working steps: %.1f per input byte, %d per request"
      % (insns, insns / nbytes, insns // requests))
PY
