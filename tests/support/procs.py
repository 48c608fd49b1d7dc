"""Process helpers shared by the test scripts that start servers on TCP ports
(tests/conformance/run.py, tests/interop/http_probe.py, tests/interop/nginx_scale.py)."""

from __future__ import annotations

import socket
import subprocess
import time


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, proc: subprocess.Popen | None = None, timeout: float = 30) -> bool:
    """True once something accepts connections on 127.0.0.1:port; False when `proc`
    exits first or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def stop(proc: subprocess.Popen, grace: float = 5) -> None:
    """SIGTERM, then SIGKILL after `grace` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
