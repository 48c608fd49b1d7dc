"""The README's examples run as written (a stale example is a bug)."""

import json
import os
import re
import subprocess
import sys
import threading

README = os.path.join(os.path.dirname(__file__), "..", "README.md")


def blocks():
    with open(README, encoding="utf-8") as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


def test_session_example_runs():
    out = subprocess.run([sys.executable, "-c", blocks()[2]], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "client: negotiated 2026-07-28" in out.stdout
    assert "'tools': []" in out.stdout


NOTES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "python",
                     "notes_server.py")


def test_notes_example_is_the_readme_example():
    with open(NOTES, encoding="utf-8") as f:
        assert blocks()[0] == f.read()


def test_notes_example_serves_stdio():
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "add_note", "arguments": {"title": "a", "body": "b"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "note://1"}},
    ]
    stdin = "".join(json.dumps(m) + "\n" for m in lines)
    out = subprocess.run([sys.executable, NOTES], input=stdin, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    by_id = {m["id"]: m for m in map(json.loads, out.stdout.splitlines()) if "id" in m}
    assert by_id[2]["result"]["structuredContent"] == {"id": 1, "title": "a", "body": "b"}
    assert by_id[3]["result"]["contents"][0]["text"] == "# a\n\nb"


def test_older_style_server_example_serves_stdio(tmp_path):
    script = tmp_path / "server.py"
    script.write_text(blocks()[1], encoding="utf-8")
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "echo", "arguments": {"text": "hi"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "wait", "arguments": {"ms": 30}, "_meta": {"progressToken": "t"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "resources/read",
         "params": {"uri": "file:///readme"}},
        {"jsonrpc": "2.0", "id": 5, "method": "prompts/get",
         "params": {"name": "greet", "arguments": {"who": "bob"}}},
    ]
    stdin = "".join(json.dumps(m) + "\n" for m in lines)
    out = subprocess.run([sys.executable, str(script)], input=stdin, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    msgs = [json.loads(line) for line in out.stdout.splitlines()]
    by_id = {m["id"]: m for m in msgs if "id" in m}
    assert by_id[1]["result"]["protocolVersion"] == "2025-06-18"
    assert by_id[2]["result"]["content"] == [{"type": "text", "text": "hi"}]
    assert by_id[3]["result"]["content"][0]["text"] == "done"
    assert by_id[4]["result"]["contents"][0]["text"] == "hello"
    assert by_id[5]["result"]["messages"][0]["content"]["text"] == "Hello bob"
    progress = [m for m in msgs if m.get("method") == "notifications/progress"]
    assert [p["params"]["progress"] for p in progress] == [1, 2, 3]
    # Progress comes before the answer it belongs to.
    assert msgs.index(progress[-1]) < msgs.index(by_id[3])


def test_http_example_serves_under_uvicorn(tmp_path):
    """The HTTP section's server.py under `uvicorn server:asgi` answers initialize."""
    import pytest
    pytest.importorskip("uvicorn")
    import socket
    import time
    import urllib.request
    (tmp_path / "server.py").write_text(blocks()[3], encoding="utf-8")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "server:asgi", "--host",
                             "127.0.0.1", "--port", str(port), "--log-level", "warning"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "greet", "arguments": {"name": "web"}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()
        req = urllib.request.Request(
            "http://127.0.0.1:%d/mcp" % port, data=body, method="POST", headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
                "Mcp-Name": "greet"})
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(req, timeout=5) as r:
                    answer = json.loads(r.read())
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.1)
        assert answer["result"]["content"][0]["text"] == "Hello, web!"
    finally:
        proc.terminate()
        proc.wait(10)


def test_ask_example_asks_in_one_round_then_answers():
    """The "Asking the client" example over stdio, 2026-07-28: ``book`` asks both
    questions at once with a sealed state, then answers the retry; ``letter`` answers
    at once to a request that declared no elicitation."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    first = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "book", "arguments": {"city": "Oslo"}, "_meta": meta}}
    letter = {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {
        "name": "letter", "_meta": dict(meta, **{
            "io.modelcontextprotocol/clientCapabilities": {}})}}
    proc = subprocess.Popen([sys.executable, "-c", blocks()[4]], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    guard = threading.Timer(30, proc.kill)  # a hang ends the reads (and fails the test)
    guard.start()
    try:
        proc.stdin.write(json.dumps(first) + "\n" + json.dumps(letter) + "\n")
        proc.stdin.flush()
        got = {}
        while len(got) < 2:
            m = json.loads(proc.stdout.readline())
            got[m["id"]] = m
        asked = got[1]["result"]
        assert asked["resultType"] == "input_required"
        assert set(asked["inputRequests"]) == {"traveller", "date"}
        assert got[2]["result"]["messages"][0]["content"]["text"] == "Write a letter."
        retry = dict(first, id=3, params=dict(first["params"], requestState=asked[
            "requestState"], inputResponses={
                "traveller": {"action": "accept", "content": {"name": "Ann"}},
                "date": {"action": "accept", "content": {"day": "Monday"}}}))
        proc.stdin.write(json.dumps(retry) + "\n")
        proc.stdin.close()
        done = json.loads(proc.stdout.readline())
        assert done["result"]["content"][0]["text"] == "Booked Ann to Oslo on Monday"
        assert proc.wait(timeout=30) == 0
    finally:
        guard.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
