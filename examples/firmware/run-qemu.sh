#!/usr/bin/env bash
# The picomcp firmware as a stdio MCP server: boots the firmware in QEMU (mps2-an386,
# Cortex-M4F) with UART0 on this process's stdin/stdout.
#
#   examples/firmware/run-qemu.sh [--max-line BYTES] [--log-level LEVEL] [--elf PATH]
#
# --max-line BYTES   longest accepted line. The firmware's receive buffer is 2048 bytes
#                    (a RAM budget decision); 512..2048 is applied as given, larger
#                    values are clamped to 2048 (with a warning on stderr).
# --log-level LEVEL  error | warn (default) | info | debug: the firmware's diagnostics,
#                    written to stderr through semihosting. `info` adds the start-up line
#                    and, at exit, the stack high-water mark (check-budget.sh reads it).
# --elf PATH         another firmware image (default: the release build). `cargo run`
#                    passes the image this way.
# PICOMCP_FW_ARGS    extra words for the firmware's command line (tests: --test-panic).
# PICOMCP_QEMU_ARGS  extra words for QEMU (cycles.sh: -icount shift=3).
#
# stdout carries only protocol messages (the UART); stderr carries QEMU's and the
# firmware's diagnostics. QEMU does not pass end of input to the guest, so stdin goes
# through relay.py, which byte-stuffs it and turns EOF into the byte 0x04; the firmware
# then flushes and exits, and so does this script, with status 0. QEMU replaces this
# shell (exec), so a client that kills the server process kills QEMU itself.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ELF="$HERE/target/thumbv7em-none-eabihf/release/picomcp-fw"
max_line=2048
level=warn

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    arg="$1"; shift
    case "$arg" in
        --*=*) set -- "${arg#*=}" "$@"; arg="${arg%%=*}" ;;
    esac
    case "$arg" in
        --max-line)  [ $# -gt 0 ] || usage; max_line="$1"; shift ;;
        --log-level) [ $# -gt 0 ] || usage; level="$1"; shift ;;
        --elf)       [ $# -gt 0 ] || usage; ELF="$1"; shift ;;
        -h|--help)   usage ;;
        *) echo "run-qemu.sh: unknown argument $arg" >&2; usage ;;
    esac
done
case "$max_line" in ''|*[!0-9]*) echo "run-qemu.sh: --max-line needs a number of bytes" >&2; exit 2 ;; esac
case "$level" in error|warn|info|debug) ;; *) echo "run-qemu.sh: --log-level: error, warn, info or debug" >&2; exit 2 ;; esac
if [ ! -f "$ELF" ]; then
    echo "run-qemu.sh: $ELF not found; build it with examples/firmware/build.sh" >&2
    exit 1
fi
command -v qemu-system-arm >/dev/null || { echo "run-qemu.sh: qemu-system-arm not found; run examples/firmware/build.sh" >&2; exit 1; }

# The firmware reads these with SYS_GET_CMDLINE (semihosting).
semi="enable=on,target=native,arg=picomcp-fw,arg=--max-line,arg=$max_line,arg=--log-level,arg=$level"
for w in ${PICOMCP_FW_ARGS:-}; do
    case "$w" in *,*) echo "run-qemu.sh: no commas in PICOMCP_FW_ARGS" >&2; exit 2 ;; esac
    semi="$semi,arg=$w"
done

# shellcheck disable=SC2086  # PICOMCP_QEMU_ARGS is a list of words
exec qemu-system-arm -M mps2-an386 -cpu cortex-m4 -display none -monitor none \
    -serial stdio -semihosting-config "$semi" ${PICOMCP_QEMU_ARGS:-} -kernel "$ELF" \
    < <(exec python3 "$HERE/relay.py")
