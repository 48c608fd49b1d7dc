"""The typed helper under the official Python client (mcp 2.3.0, installed in
target/interop/venv by tests/interop/setup.sh): the notes example, and a server whose
tools misbehave on purpose. Skipped when that venv is missing."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import picomcp
import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CLIENT_PY = ROOT / "target" / "interop" / "venv" / "bin" / "python"
NOTES = ROOT / "examples" / "python" / "notes_server.py"
FAULTS = HERE / "official" / "fault_server.py"
# The picomcp package under test, for a server run by the interop venv's Python.
PICOMCP_DIR = os.path.dirname(os.path.abspath(picomcp.__file__))

pytestmark = pytest.mark.skipif(not CLIENT_PY.exists(),
                                reason="run tests/interop/setup.sh for the official client")


def drive(scenario: str, mode: str, server: list, stderr_file=None) -> dict:
    argv = server
    if stderr_file is not None:
        argv = ["sh", "-c", 'exec "$@" 2>"$0"', str(stderr_file)] + server
    out = subprocess.run([str(CLIENT_PY), str(HERE / "official" / "drive.py"), scenario, mode]
                         + argv, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


def ok(answer: dict) -> dict:
    assert "ok" in answer, answer
    return answer["ok"]


def text(result: dict) -> str:
    return "".join(b.get("text", "") for b in result["content"])


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_notes_example_under_the_official_client(mode):
    d = drive("notes", mode, [sys.executable, str(NOTES)])
    assert d["version"] == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    tools = {t["name"]: t for t in d["tools"]}
    assert tools["add_note"]["inputSchema"] == {
        "type": "object", "properties": {"title": {"type": "string"},
                                         "body": {"type": "string"}},
        "required": ["title", "body"]}
    assert tools["search_notes"]["inputSchema"]["properties"]["limit"] == {
        "type": "integer", "default": 10}
    assert tools["search_notes"]["outputSchema"]["properties"]["notes"]["type"] == "array"
    assert d["templates"][0]["uriTemplate"] == "note://{id}"
    assert d["prompts"][0]["arguments"] == [{"name": "topic", "required": True}]
    assert ok(d["add1"])["structuredContent"] == {"id": 1, "title": "Milk", "body": "2 l"}
    found = ok(d["search"])
    assert found["structuredContent"] == {"notes": [{"id": 2, "title": "Call", "body": "Ada"}]}
    assert json.loads(text(found)) == found["structuredContent"]
    assert len(ok(d["search_limit"])["structuredContent"]["notes"]) == 1
    bad = ok(d["bad_limit"])
    assert bad["isError"] and "limit" in text(bad)
    assert d["unknown_tool"]["error"]["code"] == -32602
    assert ok(d["read1"])["contents"] == [
        {"uri": "note://1", "mimeType": "text/markdown", "text": "# Milk\n\n2 l"}]
    # Resource not found: -32002 before 2026-07-28, -32602 from then on (the core decides).
    assert d["read99"]["error"]["code"] == (-32002 if mode == "legacy" else -32602)
    assert "shopping" in ok(d["prompt"])["messages"][0]["content"]["text"]


def _code_lines(path: pathlib.Path) -> int:
    """Lines that are neither blank, comments nor the module docstring."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if lines and lines[0].startswith('"""'):
        end = next(i for i, l in enumerate(lines) if l.rstrip().endswith('"""')
                   and (i > 0 or l.count('"""') == 2))
        lines = lines[end + 1:]
    return sum(1 for l in lines if l.strip() and not l.strip().startswith("#"))


def test_notes_example_is_no_longer_than_on_the_official_sdk():
    ours = _code_lines(NOTES)
    theirs = _code_lines(HERE / "official" / "notes_mcpserver.py")
    assert ours <= theirs, (ours, theirs)


def _check_faults(d: dict, stderr: str, pydantic: bool) -> None:
    boom = ok(d["boom"][0])
    assert boom["isError"] and text(boom) == "the flux capacitor is empty"
    assert "Traceback (most recent call last)" in stderr
    assert "ValueError: the flux capacitor is empty" in stderr
    assert text(ok(d["bare"][0])) == "bare 2"
    # print, print(end=""), a write to fd 1 and a child process: all on stderr.
    assert text(ok(d["noisy"][0])) == "still intact"
    for s in ("debug from print", "glued", "raw fd 1 write", "child on fd 1",
              "no newline at the end"):
        assert s in stderr
    r = ok(d["returns_dict"][0])
    assert r["structuredContent"] == {"k": [1, 2]} and json.loads(text(r)) == {"k": [1, 2]}
    assert [b["text"] for b in ok(d["returns_list"][0])["content"]] == [
        "one", '{"two":2}', "3"]
    assert ok(d["returns_none"][0])["content"] == []
    model = ok(d["returns_model"][0])["structuredContent"]
    assert model == ({"name": "m", "size": 3} if pydantic else {"x": 1, "y": 2})
    assert ok(d["returns_image"][0])["content"][0]["type"] == "image"
    wrong, missing, right = (ok(a) for a in d["add"])
    assert wrong["isError"] and "/b" in text(wrong)
    assert missing["isError"] and '"b"' in text(missing)
    assert text(right) == "3"
    assert text(ok(d["point"][0])) == "Point x=1"
    # The blocking tool sleeps 2 s on the loop's thread; the rescue thread answers ping and
    # another call meanwhile (picomcp._rescue; generous bounds: only "long before the sleep
    # ends" matters).
    assert d["ping_s"] < 1.0 and d["add_during_block_s"] < 1.0
    assert not d["block_done_before_ping"]
    assert text(ok(d["block"])) == "woke" and d["block_s"] >= 1.9


def test_faults_under_the_official_client(tmp_path):
    err = tmp_path / "server.err"
    d = drive("faults", "legacy", [sys.executable, str(FAULTS)], stderr_file=err)
    _check_faults(d, err.read_text(), pydantic=False)


def _client_has_pydantic() -> bool:
    return subprocess.run([str(CLIENT_PY), "-c", "import pydantic"]).returncode == 0


def test_faults_with_pydantic(tmp_path):
    """The same server run by the interop venv, which has pydantic: models as parameters
    and as return values."""
    if not _client_has_pydantic():
        pytest.skip("no pydantic in the interop venv")
    err = tmp_path / "server.err"
    (tmp_path / "path").mkdir()
    os.symlink(PICOMCP_DIR, tmp_path / "path" / "picomcp")  # picomcp alone on the path
    server = ["env", "PYTHONPATH=%s" % (tmp_path / "path"), str(CLIENT_PY), str(FAULTS)]
    d = drive("faults", "legacy", server, stderr_file=err)
    _check_faults(d, err.read_text(), pydantic=True)
