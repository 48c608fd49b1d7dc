"""stdout protection: while a server runs on stdio, only the protocol writes to the real
stdout.

``protect_stdout()`` moves the protocol stream to a private duplicate of fd 1 and points
fd 1 at stderr, and ``sys.stdout`` with it, so ``print``, C extensions writing to fd 1
and child processes that inherit it cannot corrupt the stream; text a handler printed
without a newline cannot be glued to the next message either. ``restore()`` undoes it.
"""

from __future__ import annotations

import os
import sys
from typing import Any


class StdoutGuard:
    """The saved state of fd 1 and ``sys.stdout`` while the protocol owns the real stdout."""

    def __init__(self) -> None:
        self.protocol_fd = -1
        self._saved_fd = -1
        self._saved_stdout: Any = None

    def protect(self) -> int:
        """Returns the fd the protocol writes to (a non-inheritable duplicate of fd 1)."""
        for stream in (sys.stdout, sys.__stdout__):
            try:
                if stream is not None:
                    stream.flush()  # what was printed before serving goes out first
            except (OSError, ValueError):
                pass
        self.protocol_fd = os.dup(1)  # non-inheritable: child processes never get it
        self._saved_fd = os.dup(1)
        os.dup2(2, 1)  # fd 1 (print from C, children) now reaches stderr
        self._saved_stdout = sys.stdout
        sys.stdout = sys.stderr
        return self.protocol_fd

    def restore(self) -> None:
        if self._saved_fd < 0:
            return
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        sys.stdout = self._saved_stdout
        os.dup2(self._saved_fd, 1)
        os.close(self._saved_fd)
        os.close(self.protocol_fd)
        self._saved_fd = self.protocol_fd = -1
