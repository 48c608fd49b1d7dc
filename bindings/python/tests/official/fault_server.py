"""A server on picomcp whose tools misbehave on purpose (test_official.py drives it with
the official client): raising, printing to stdout, a child writing to fd 1, blocking,
returning every kind of value, and ``@app.tool`` without parentheses."""
import os
import subprocess
import sys
import time
from dataclasses import dataclass

from picomcp import Image, Server

try:
    from pydantic import BaseModel
except ImportError:  # pydantic is optional
    BaseModel = None

app = Server("faults", "1.0.0")


@dataclass
class Point:
    x: int
    y: int


@app.tool
def bare(n: int) -> str:
    return "bare %d" % n


@app.tool()
def boom() -> str:
    """Raises."""
    raise ValueError("the flux capacitor is empty")


@app.tool
def noisy() -> str:
    print("debug from print")
    print("glued", end="")
    sys.stdout.flush()
    os.write(1, b"raw fd 1 write\n")
    subprocess.run([sys.executable, "-c", "print('child on fd 1')"], check=True)
    print("no newline at the end", end="")
    return "still intact"


@app.tool
def block(seconds: float) -> str:
    time.sleep(seconds)
    return "woke"


@app.tool
def add(a: int, b: int) -> int:
    return a + b


@app.tool
def returns_dict() -> dict:
    return {"k": [1, 2]}


@app.tool
def returns_list() -> list:
    return ["one", {"two": 2}, 3]


@app.tool
def returns_none() -> None:
    return None


@app.tool
def returns_model():
    if BaseModel is None:
        return Point(1, 2)

    class M(BaseModel):
        name: str
        size: int
    return M(name="m", size=3)


@app.tool
def returns_image() -> Image:
    return Image(b"\x89PNG fake", "image/png")


@app.tool
def point(p: Point) -> str:
    return "%s x=%d" % (type(p).__name__, p.x)


if BaseModel is not None:
    class Size(BaseModel):
        w: int
        h: int

    @app.tool
    def area(s: Size) -> int:
        return s.w * s.h


if __name__ == "__main__":
    raise SystemExit(app.run())
