#!/usr/bin/env bash
# Builds the picomcp firmware (examples/firmware) and installs what it needs:
#   - the Rust target thumbv7em-none-eabihf (rustup),
#   - Debian's qemu-system-arm and binutils-arm-none-eabi (apt-get), when missing.
# Run from anywhere; idempotent. Output: examples/firmware/target/thumbv7em-none-eabihf/release/picomcp-fw
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
say() { printf 'firmware build: %s\n' "$*" >&2; }

if ! rustup target list --installed 2>/dev/null | grep -qx thumbv7em-none-eabihf; then
    say "rustup target add thumbv7em-none-eabihf"
    rustup target add thumbv7em-none-eabihf >&2
fi

missing=()
command -v qemu-system-arm >/dev/null || missing+=(qemu-system-arm)
command -v arm-none-eabi-size >/dev/null || missing+=(binutils-arm-none-eabi)
if [ ${#missing[@]} -gt 0 ]; then
    command -v apt-get >/dev/null || { say "error: need ${missing[*]} (no apt-get here; install them yourself)"; exit 1; }
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    say "apt-get install ${missing[*]}"
    if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
        say "apt-get update, then retry"
        $SUDO apt-get update >&2
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2
    fi
fi

cd "$HERE"
say "cargo build --release ($(pwd))"
cargo build --release --quiet
