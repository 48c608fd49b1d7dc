#!/usr/bin/env python3
"""stdin relay for run-qemu.sh (Python standard library only).

Copies this process's stdin to stdout (a pipe into QEMU's stdin, which QEMU feeds to the
emulated UART) with byte stuffing, so that the end of the client's input can travel over
the serial line, which has no end-of-file of its own:

    0x10 (DLE) -> 0x10 0x10        0x04 (EOT) -> 0x10 0x04        end of input -> 0x04

The firmware undoes the stuffing (uart.rs, `Unstuff`) and treats a lone 0x04 as end of
input: it finishes, flushes and exits QEMU with status 0 through semihosting. The relay
exits after sending that byte, when QEMU stops reading (broken pipe), or when QEMU is
gone (its parent changed).
"""

import os
import select
import sys


def stuff(data: bytes) -> bytes:
    return data.replace(b"\x10", b"\x10\x10").replace(b"\x04", b"\x10\x04")


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def main() -> int:
    parent = os.getppid()
    try:
        while True:
            ready, _, _ = select.select([0], [], [], 1.0)
            if not ready:
                if os.getppid() != parent:  # QEMU exited (e.g. the firmware panicked)
                    return 0
                continue
            data = os.read(0, 65536)
            if not data:
                write_all(1, b"\x04")
                return 0
            write_all(1, stuff(data))
    except (BrokenPipeError, OSError):
        return 0


if __name__ == "__main__":
    sys.exit(main())
