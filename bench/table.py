#!/usr/bin/env python3
"""Prints the tables of a bench/run.sh run from run_all.py's summary.json (stdlib only).

    python3 bench/table.py SUMMARY.json [--baseline-label rust-prev]

Rows are the scenarios of issue 17; columns the four demos and the three no-library
floors. Ratios are taken between servers measured in the same run: each demo against its
language's floor (the C demo also against the Rust demo, which runs the same core), the
Rust demo against rmcp, and, with --baseline-label, the Rust demo against an earlier
build of itself. Servers missing from the run show as "—".
"""
import argparse
import json

DEMOS = [("rust", "Rust demo"), ("c", "C demo"), ("python", "Python demo"), ("node", "Node demo")]
FLOORS = ["floor-rust", "floor-python", "floor-node"]
FLOOR_OF = {"rust": "floor-rust", "c": "floor-rust", "python": "floor-python", "node": "floor-node"}


def fmt(v, kind):
    if v is None:
        return "—"
    if kind == "rate":
        return f"{v:,.0f}"
    if kind == "us":
        return f"{v:.1f}"
    if kind == "ms":
        return f"{v:.1f}" if v < 10 else f"{v:.0f}"
    if kind == "mib":
        lo, hi = v
        return f"{lo:.1f}" if abs(hi - lo) < 0.05 else f"{lo:.1f}–{hi:.1f}"
    return str(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("summary")
    ap.add_argument("--baseline-label", default="")
    a = ap.parse_args()
    d = json.load(open(a.summary))
    cells, cold = d["cells"], d.get("cold", {})
    scens = sorted({k.split("|")[1] for k in cells}, key=lambda s: ["ping-w1", "ping-w64", "echo1k-w64"].index(s)
                   if s in ("ping-w1", "ping-w64", "echo1k-w64") else 99)

    def cell(label, scen, key):
        c = cells.get(f"{label}|{scen}")
        return c.get(key) if c else None

    def rss(label):
        vals = [c["server_tree_vmhwm_kb"] / 1024 for k, c in cells.items()
                if k.split("|")[0] == label and c.get("server_tree_vmhwm_kb")]
        return (min(vals), max(vals)) if vals else None

    def cold_ms(label):
        c = cold.get(label)
        return c.get("init_ms_median") if c else None

    # (row title, getter, kind, higher is better)
    rows = []
    for scen, title in (("ping-w1", "ping, 1 in flight (req/s)"), ("ping-w64", "ping, 64 in flight (req/s)"),
                        ("echo1k-w64", "1 KiB echo, 64 in flight (req/s)")):
        if scen in scens:
            rows.append((title, lambda l, s=scen: cell(l, s, "req_per_s"), "rate", True))
    if "echo1k-w64" in scens:
        rows.append(("server CPU per 1 KiB echo (µs)",
                     lambda l: cell(l, "echo1k-w64", "server_cpu_us_per_req"), "us", False))
    rows.append(("peak RSS (MiB)", rss, "mib", False))
    if cold:
        rows.append(("cold start (ms)", cold_ms, "ms", False))

    print("\n| scenario | " + " | ".join(t for _, t in DEMOS) + " | floor Rust / Python / Node |")
    print("|---|" + "---:|" * (len(DEMOS) + 1))
    for title, get, kind, _ in rows:
        vals = [fmt(get(l), kind) for l, _ in DEMOS]
        floors = " / ".join(fmt(get(f), kind) for f in FLOORS)
        print(f"| {title} | " + " | ".join(vals) + f" | {floors} |")

    def ratio(x, y):
        if x is None or y is None:
            return "—"
        if isinstance(x, tuple):
            x, y = x[1], y[1]  # peak RSS: the largest of the run
        return f"{x / y:.2f}×" if y else "—"

    print("\nRatios in the same run (req/s: higher is better; CPU, RSS, cold start: lower is better):\n")
    print("| scenario | Rust / floor | C / Rust demo | C / floor | Python / floor | Node / floor | Rust / rmcp |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for title, get, kind, _ in rows:
        r = [ratio(get("rust"), get("floor-rust")), ratio(get("c"), get("rust")),
             ratio(get("c"), get("floor-rust")), ratio(get("python"), get("floor-python")),
             ratio(get("node"), get("floor-node")), ratio(get("rust"), get("rmcp-pipes"))]
        print(f"| {title} | " + " | ".join(r) + " |")

    if a.baseline_label:
        b = a.baseline_label
        print(f"\nRust demo against the baseline binary ({b}), same run:\n")
        print("| scenario | new | baseline | new / baseline |")
        print("|---|---:|---:|---:|")
        for title, get, kind, _ in rows:
            print(f"| {title} | {fmt(get('rust'), kind)} | {fmt(get(b), kind)} | {ratio(get('rust'), get(b))} |")
        print("\nserver CPU per request (µs), new / baseline:\n")
        print("| scenario | new | baseline | new / baseline |")
        print("|---|---:|---:|---:|")
        for scen in scens:
            n, o = cell("rust", scen, "server_cpu_us_per_req"), cell(b, scen, "server_cpu_us_per_req")
            print(f"| {scen} | {fmt(n, 'us')} | {fmt(o, 'us')} | {ratio(n, o)} |")

    if any(cell("rmcp-pipes", s, "req_per_s") for s in scens):
        print("\nscenario      ours req/s   rmcp req/s   ratio   ours CPU us/req")
        for scen in scens:
            o, r = cells.get(f"rust|{scen}"), cells.get(f"rmcp-pipes|{scen}")
            if o and r and o.get("req_per_s") and r.get("req_per_s"):
                print(f"{scen:12} {o['req_per_s']:12.0f} {r['req_per_s']:12.0f} "
                      f"{o['req_per_s'] / r['req_per_s']:7.2f}   {o['server_cpu_us_per_req']:.2f}")


if __name__ == "__main__":
    main()
