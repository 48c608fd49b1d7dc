"""Checks a `picomcp-probe --json --pin FILE` report against an official SDK server.

    python3 check_pins.py REPORT.json save|check

`save` (FILE did not exist): the run passed and the pins were saved. `check` (the second
run, FILE from the first): the run passed and every pinned tool matched. Both: no lint
warning (the SDK servers' descriptions are plain; a warning here is a false positive of
the lint). Prints a one-line note on success; on failure every problem, then exits 1.
"""

import json
import sys


def main() -> int:
    path, run = sys.argv[1], sys.argv[2]
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print(f"no JSON report: {e}")
        return 1
    problems = []
    checks = {c["name"]: c for c in report.get("checks", [])}
    want = "pin tools" if run == "save" else "pinned tools unchanged"
    c = checks.get(want)
    if c is None or c.get("status") != "ok":
        problems.append(f"check `{want}`: {c and c.get('detail') or 'not run'}")
    for name, other in checks.items():
        if other.get("section") == "pins" and other.get("status") == "failed":
            problems.append(f"{name}: {other.get('detail')}")
    for w in report.get("warnings", []):
        problems.append(f"lint warning: {w}")
    if not (report.get("summary") or {}).get("passed"):
        problems.append("the probe did not pass")
    if problems:
        print("\n".join("  " + p for p in problems))
        return 1
    print(f"{want}: {c.get('detail')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
