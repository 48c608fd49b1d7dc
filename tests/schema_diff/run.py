#!/usr/bin/env python3
"""Differential test of picomcp::schema against Python's jsonschema (Draft202012Validator).

Generates seeded random schemas over the keywords picomcp supports, derives instances
from each (ones meant to match, then mutations of them, plus random values), asks both
validators, and fails on any disagreement about valid/invalid.

    tests/schema_diff/run.py                 # default: seed 1, 1500 schemas
    tests/schema_diff/run.py --seed 7 --schemas 5000
    tests/schema_diff/run.py --keep pairs.jsonl   # also write the pairs

Sets up target/schema_diff_venv with a pinned jsonschema on first use, builds and runs
`cargo run -p picomcp --example schema_check` (JSON Lines in, one verdict per line out).

What it avoids generating, because the two differ by design (docs/DESIGN.md, "Schema
validation"): `pattern`/`patternProperties` and other unsupported keywords, draft-04
boolean `exclusiveMinimum`, draft-07 array `items`, `multipleOf` with a divisor whose
float quotients are inexact (we allow a 1e-12 relative tolerance, jsonschema none),
numbers beyond f64 precision, duplicate member names, recursive `$ref`s.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import venv

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV = os.path.join(ROOT, "target", "schema_diff_venv")
JSONSCHEMA = "jsonschema==4.25.1"
TYPES = ["null", "boolean", "object", "array", "number", "string", "integer"]
NAMES = ["a", "b", "c", "text", "n", "é", "x/y", "t~1", "k"]
STRINGS = ["", "a", "ab", "abc", "hello", "é", "😀", "a😀b", "line\nbreak", "tab\t", "\"q\"", "phone", "email"]
NUMBERS = [0, 1, -1, 2, 3, 5, 10, 1.0, 2.5, -3.5, 0.5, 0.25, 100, 7, 1e1, 4.0, -0.0]
DIVISORS = [1, 2, 3, 5, 0.5, 0.25, 1.5, 4]


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    stamp = os.path.join(VENV, "jsonschema.version")
    if not (os.path.exists(stamp) and open(stamp).read() == JSONSCHEMA):
        print(f"schema_diff: installing {JSONSCHEMA} into {VENV}", file=sys.stderr)
        venv.create(VENV, with_pip=True, clear=True)
        subprocess.run([py, "-m", "pip", "install", "-q", JSONSCHEMA], check=True)
        with open(stamp, "w") as f:
            f.write(JSONSCHEMA)
    return py


class Gen:
    def __init__(self, rng):
        self.r = rng

    def value(self, depth=0):
        r = self.r
        k = r.randrange(7 if depth < 2 else 5)
        if k == 0:
            return None
        if k == 1:
            return r.choice([True, False])
        if k == 2:
            return r.choice(NUMBERS)
        if k == 3:
            return r.choice(STRINGS)
        if k == 4:
            return r.randint(-5, 20)
        if k == 5:
            return [self.value(depth + 1) for _ in range(r.randrange(4))]
        return {n: self.value(depth + 1) for n in r.sample(NAMES, r.randrange(4))}

    def schema(self, depth, defs):
        r = self.r
        if depth > 3 or r.random() < 0.08:
            return r.choice([True, False, {}, {"type": r.choice(TYPES)}])
        s = {}
        kind = r.choice(["object", "array", "string", "number", "integer", "mixed", "combo"])
        if kind == "object":
            s["type"] = "object" if r.random() < 0.8 else ["object", "null"]
            names = r.sample(NAMES, r.randrange(4))
            if names or r.random() < 0.5:
                s["properties"] = {n: self.schema(depth + 1, defs) for n in names}
            if r.random() < 0.5:
                s["required"] = r.sample(NAMES[:5], r.randrange(3))
            if r.random() < 0.4:
                s["additionalProperties"] = r.choice([False, True, self.schema(depth + 1, defs)])
            if r.random() < 0.2:
                s["minProperties"] = r.randrange(3)
            if r.random() < 0.2:
                s["maxProperties"] = r.randrange(4)
            if r.random() < 0.15:
                s["dependentRequired"] = {r.choice(NAMES): r.sample(NAMES, 1)}
            if r.random() < 0.1:
                s["dependentSchemas"] = {r.choice(NAMES): self.schema(depth + 1, defs)}
            if r.random() < 0.15:
                s["propertyNames"] = r.choice([{"maxLength": 1}, {"enum": NAMES[:4]}, {"not": {"const": "a"}}, {"minLength": 2}])
        elif kind == "array":
            s["type"] = "array"
            if r.random() < 0.4:
                s["prefixItems"] = [self.schema(depth + 1, defs) for _ in range(r.randint(1, 3))]
            if r.random() < 0.6:
                s["items"] = r.choice([False, self.schema(depth + 1, defs)])
            if r.random() < 0.3:
                s["minItems"] = r.randrange(3)
            if r.random() < 0.3:
                s["maxItems"] = r.randrange(4)
            if r.random() < 0.3:
                s["uniqueItems"] = r.choice([True, False])
            if r.random() < 0.25:
                s["contains"] = self.schema(depth + 1, defs)
                if r.random() < 0.5:
                    s["minContains"] = r.randrange(3)
                if r.random() < 0.5:
                    s["maxContains"] = r.randrange(3)
        elif kind == "string":
            s["type"] = "string" if r.random() < 0.8 else ["string", "integer"]
            if r.random() < 0.5:
                s["minLength"] = r.randrange(4)
            if r.random() < 0.5:
                s["maxLength"] = r.randrange(5)
            if r.random() < 0.2:
                s["format"] = "email"
        elif kind in ("number", "integer"):
            s["type"] = kind
            for kw in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]:
                if r.random() < 0.3:
                    s[kw] = r.choice(NUMBERS)
            if r.random() < 0.3:
                s["multipleOf"] = r.choice(DIVISORS)
        elif kind == "mixed":
            c = r.randrange(4)
            if c == 0:
                s["enum"] = [self.value(1) for _ in range(r.randint(1, 4))]
            elif c == 1:
                s["const"] = self.value(1)
            elif c == 2:
                s["type"] = r.sample(TYPES, r.randint(1, 3))
            else:
                if defs:
                    s["$ref"] = "#/$defs/" + r.choice(list(defs))
                else:
                    s["type"] = r.choice(TYPES)
        else:
            c = r.randrange(5)
            subs = [self.schema(depth + 1, defs) for _ in range(r.randint(1, 3))]
            if c == 0:
                s["anyOf"] = subs
            elif c == 1:
                s["oneOf"] = subs
            elif c == 2:
                s["allOf"] = subs
            elif c == 3:
                s["not"] = subs[0]
            else:
                s["if"] = subs[0]
                if r.random() < 0.7:
                    s["then"] = self.schema(depth + 1, defs)
                if r.random() < 0.7:
                    s["else"] = self.schema(depth + 1, defs)
        if r.random() < 0.1:
            s["description"] = "noise"
        if r.random() < 0.05:
            s["default"] = self.value(1)
        return s

    def root(self):
        r = self.r
        defs = {}
        for name in r.sample(["addr", "num", "str", "x~y", "p%q"], r.randrange(3)):
            defs[name] = self.schema(2, {})
        s = self.schema(0, defs)
        if defs and isinstance(s, dict):
            s["$defs"] = defs
            if r.random() < 0.3:
                s = {"$ref": "#/$defs/" + r.choice(list(defs)).replace("~", "~0").replace("%", "%25"), "$defs": defs}
        return s

    def instance_for(self, s, depth=0):
        """Something that tries to match `s` (often does; mutations do the rest)."""
        r = self.r
        if not isinstance(s, dict) or depth > 5:
            return self.value(2)
        if "const" in s:
            return s["const"]
        if "enum" in s:
            return r.choice(s["enum"])
        t = s.get("type")
        if isinstance(t, list):
            t = r.choice(t)
        if t is None and "properties" in s:
            t = "object"
        if t == "object":
            out = {}
            props = s.get("properties", {})
            for n in list(props) + list(s.get("required", [])):
                if n in out:
                    continue
                if r.random() < 0.85:
                    out[n] = self.instance_for(props.get(n, {}), depth + 1)
            return out
        if t == "array":
            items = [self.instance_for(p, depth + 1) for p in s.get("prefixItems", [])]
            for _ in range(r.randrange(3)):
                items.append(self.instance_for(s.get("items", {}), depth + 1))
            return items
        if t == "string":
            return r.choice(STRINGS)
        if t in ("number", "integer"):
            lo = s.get("minimum", s.get("exclusiveMinimum", 0))
            v = r.choice([lo, lo + 1, lo + 0.5, r.choice(NUMBERS), s.get("multipleOf", 1) * r.randint(-3, 6)])
            return int(v) if t == "integer" and r.random() < 0.8 else v
        if t in ("null", "boolean"):
            return None if t == "null" else r.choice([True, False])
        return self.value(1)

    def mutate(self, v):
        r = self.r
        c = r.randrange(6)
        if isinstance(v, dict) and v and c < 2:
            v = dict(v)
            k = r.choice(list(v))
            if c == 0:
                del v[k]
            else:
                v[k] = self.mutate(v[k])
            return v
        if isinstance(v, dict) and c == 2:
            v = dict(v)
            v[r.choice(NAMES)] = self.value(1)
            return v
        if isinstance(v, list) and v and c < 3:
            v = list(v)
            if c == 0:
                v.append(v[0])
            elif c == 1:
                i = r.randrange(len(v))
                v[i] = self.mutate(v[i])
            else:
                v.pop()
            return v
        if isinstance(v, (int, float)) and not isinstance(v, bool) and c < 4:
            return r.choice([v + 1, v - 1, v + 0.5, float(v), -v])
        if isinstance(v, str) and c < 4:
            return r.choice([v + "x", v[:-1], v + "😀", str(len(v))])
        return self.value(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--schemas", type=int, default=1500)
    ap.add_argument("--keep")
    args = ap.parse_args()

    py = ensure_venv()
    if os.environ.get("SCHEMA_DIFF_CHILD") != "1":
        # Re-run inside the venv, where jsonschema is importable.
        env = dict(os.environ, SCHEMA_DIFF_CHILD="1")
        sys.exit(subprocess.run([py, os.path.abspath(__file__)] + sys.argv[1:], env=env).returncode)

    from jsonschema import Draft202012Validator

    rng = random.Random(args.seed)
    g = Gen(rng)
    pairs = []
    for _ in range(args.schemas):
        s = g.root()
        base = g.instance_for(s)
        insts = [base, g.mutate(base), g.mutate(g.mutate(base)), g.instance_for(s), g.value()]
        for i in insts:
            pairs.append((s, i))
    lines = []
    for s, i in pairs:
        ascii_ = rng.random() < 0.5
        lines.append(json.dumps({"schema": s, "instance": i}, ensure_ascii=ascii_))
    if args.keep:
        with open(args.keep, "w") as f:
            f.write("\n".join(lines) + "\n")

    build = subprocess.run(
        ["cargo", "build", "-q", "-p", "picomcp", "--example", "schema_check"], cwd=ROOT
    )
    if build.returncode != 0:
        sys.exit("schema_diff: build failed")
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    exe = os.path.join(target, "debug", "examples", "schema_check")
    res = subprocess.run([exe], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    verdicts = res.stdout.splitlines()
    assert len(verdicts) == len(lines), (len(verdicts), len(lines))

    bad = 0
    valid = 0
    validators = {}
    for (s, i), line, v in zip(pairs, lines, verdicts):
        key = json.dumps(s, sort_keys=True)
        if key not in validators:
            validators[key] = Draft202012Validator(s)
        want = validators[key].is_valid(i)
        valid += want
        got = v == "valid"
        if want != got or not (v == "valid" or v.startswith("invalid")):
            bad += 1
            if bad <= 20:
                print(f"DISAGREE jsonschema={'valid' if want else 'invalid'} picomcp={v}\n  {line}")
    print(f"schema_diff: {len(pairs)} pairs ({valid} valid per jsonschema), {len(validators)} schemas, seed {args.seed}: {bad} disagreements")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
