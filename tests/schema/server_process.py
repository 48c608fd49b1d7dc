"""The server under test: one process per revision, its stdout read line by line on a
thread (a queue of lines, then EOF), the tail of its stderr kept for diagnostics."""

from __future__ import annotations

import os
import queue
import subprocess
import threading

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

EOF = object()
TIMEOUT = object()


class Process:
    def __init__(self, argv: list[str]) -> None:
        self.p = subprocess.Popen(argv, cwd=REPO, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue = queue.Queue()
        self.stderr_tail: list[str] = []
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self) -> None:
        assert self.p.stdout is not None
        for raw in self.p.stdout:
            self.lines.put(raw)
        self.lines.put(EOF)

    def _read_err(self) -> None:
        assert self.p.stderr is not None
        for raw in self.p.stderr:
            self.stderr_tail.append(raw.decode("utf-8", "replace").rstrip("\n"))
            del self.stderr_tail[:-20]

    def send(self, line: str) -> bool:
        try:
            assert self.p.stdin is not None
            self.p.stdin.write(line.encode("utf-8") + b"\n")
            self.p.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def get(self, timeout: float):
        try:
            return self.lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return TIMEOUT

    def close_stdin(self) -> None:
        try:
            assert self.p.stdin is not None
            self.p.stdin.close()
        except OSError:
            pass

    def kill(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
        try:
            self.p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass

