"""Checks one `picomcp-probe --json` report against what the SDK servers here offer.

    python3 check_report.py REPORT.json EXPECTED_PROTOCOL

The probe's own verdict (exit status, `summary.passed`) only says that nothing the server
declared misbehaved. This makes sure the features were really exercised, so a server
that silently loses one (an empty list, a skipped call) fails: the negotiated revision,
the handshake, tools/call echo and add (with 2 progress notifications and a log
message), resources/read test://static-text, the template list, prompts/get greet,
ping and logging/setLevel (legacy revisions), subscriptions/listen (2026-07-28, when the
server declares listChanged) and the exit after stdin EOF.

Prints a one-line note on success; on failure every problem, then exits 1.
"""

import json
import sys

MODERN = "2026-07-28"


def main() -> int:
    path, want_protocol = sys.argv[1], sys.argv[2]
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print(f"no JSON report: {e}")
        return 1
    problems = []
    not_run = []
    server = report.get("server") or {}
    checks = {c["name"]: c for c in report.get("checks", [])}
    summary = report.get("summary") or {}
    modern = want_protocol == MODERN

    def need(name, contains=()):
        c = checks.get(name)
        if c is None:
            not_run.append(name)
        elif c["status"] != "ok":
            problems.append(f"`{name}` {c['status']}: {c.get('detail', '')}")
        else:
            for part in contains:
                if part not in c.get("detail", ""):
                    problems.append(f"`{name}`: {part!r} not in {c.get('detail', '')!r}")

    if not summary.get("passed") or summary.get("failed") or summary.get("violations"):
        problems.append(f"the probe did not pass: {summary}")
    closed = report.get("closed")
    if closed:
        problems.append(f"connection closed: {closed}")
    for v in report.get("violations", []):
        problems.append(f"violation: {v}")
    if server.get("protocol") != want_protocol:
        problems.append(f"negotiated {server.get('protocol')!r}, expected {want_protocol}")
    wanted = (("tools", ["echo", "add"]), ("resources", ["test://static-text"]), ("prompts", ["greet"]))
    missing = [w for kind, names in wanted for w in names if w not in server.get(kind, [])]
    if missing:
        problems.append(f"not listed by the server: {', '.join(missing)}")

    need("server/discover" if modern else "initialize", [want_protocol])
    need("tools/list", ["2 tools"])
    need("tools/call echo", ['→ text "hello"'])
    need("tools/call add", ["structuredContent", "(2 progress notifications)"])
    need("resources/list", ["1 resource"])
    need("resources/read test://static-text", ["text/plain", "32 bytes of text"])
    need("resources/templates/list", ["1 template"])
    need("prompts/list", ["1 prompt"])
    need("prompts/get greet", ["user text", "greeting to hello"])
    need("exit after stdin EOF", ["exit status: 0"])
    if modern:
        caps = server.get("capabilities") or {}
        if any((caps.get(k) or {}).get("listChanged") for k in ("tools", "resources", "prompts")):
            need("subscriptions/listen", ["acknowledged"])
    else:
        need("ping", ["round trip"])
        need("logging/setLevel")
    traffic = report.get("traffic", [])
    if "tools/call add" in checks and (
        sum("progress" in t for t in traffic) != 2 or not any("log [info]" in t for t in traffic)
    ):
        problems.append(f"expected 2 progress notifications and an info log from `add`, saw {traffic}")

    if not_run:
        problems.append("did not run: " + ", ".join(not_run))
    needed = set(not_run) | {p.split("`")[1] for p in problems if p.startswith("`")}
    for c in report.get("checks", []):
        if c["status"] == "failed" and c["name"] not in needed:
            problems.append(f"`{c['name']}` failed: {c.get('detail', '')}")
    if problems:
        for p in problems:
            print(f"  - {p}")
        for line in report.get("stderr", [])[-5:]:
            print(f"  server stderr: {line}")
        return 1
    ok = sum(c["status"] == "ok" for c in checks.values())
    skipped = sum(c["status"] == "skipped" for c in checks.values())
    print(f"{ok} checks ok, {skipped} skipped, 0 violations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
