"""``picomcp.roots_contain``: the core's roots containment, as Python sees it."""

import pytest

import picomcp

ROOTS = ["file:///home/ann/project", "file:///tmp/scratch/"]


@pytest.mark.parametrize(
    "target, expected",
    [
        ("/home/ann/project/src/main.rs", 0),
        ("file:///tmp/scratch/a%20b.txt", 1),
        ("/home/ann/project", 0),
        ("/home/ann/project/../secrets", None),
        ("file:///home/ann/project/%2e%2e/x", None),
        ("/home/ann/projectile", None),
        ("/HOME/ann/project/x", None),
    ],
)
def test_contains(target, expected):
    assert picomcp.roots_contain(ROOTS, target) == expected


def test_case_and_windows_rules():
    assert picomcp.roots_contain(ROOTS, "/HOME/Ann/project/x", case_insensitive=True) == 0
    win = ["file:///C:/Users/ann"]
    assert picomcp.roots_contain(win, "c:\\users\\ann\\x", case_insensitive=True, windows=True) == 0
    assert picomcp.roots_contain(win, "C:\\Users\\ann\\..\\bob", windows=True) is None


@pytest.mark.parametrize(
    "target",
    [
        "file://evil.com/home/ann/project/x",
        "file:///home/ann/project/..%2F..%2Fetc",
        "file:///home/ann/project/a%00",
        "file:///home/ann/project/x?y=1",
        "relative/path",
    ],
)
def test_errors_raise_value_error(target):
    with pytest.raises(ValueError):
        picomcp.roots_contain(ROOTS, target)


def test_empty_roots_and_bad_root():
    assert picomcp.roots_contain([], "/x") is None
    assert picomcp.roots_contain(["file://evil.com/x", "file:///x"], "/x/y") == 1
    with pytest.raises(ValueError, match="root 0"):
        picomcp.roots_contain(["file://evil.com/x"], "/x/y")
