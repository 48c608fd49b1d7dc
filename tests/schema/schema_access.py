"""The revisions and their official schemas (tests/schema/<revision>/schema.json): loading
one, validating an instance against one of its definitions, and describing the errors
(the most plausible branch of an anyOf/oneOf, its path and keyword). Shared by validate.py
and validate_client.py."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

try:
    import jsonschema
    from jsonschema import validators
    from jsonschema.exceptions import ValidationError, best_match
except ImportError as e:  # pragma: no cover - setup problem, not a check
    sys.exit(f"validate.py: cannot import jsonschema ({e}); run tests/interop/setup.sh and use "
             "target/interop/venv/bin/python")

HERE = os.path.dirname(os.path.abspath(__file__))

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
MODERN = "2026-07-28"


def ver_ge(rev: str, other: str) -> bool:
    """Revision identifiers are dates, so they compare as strings."""
    return rev >= other


class Schema:
    """One revision's schema.json; validates an instance against one of its definitions,
    resolving `$ref`s with the schema as the root document."""

    def __init__(self, rev: str) -> None:
        path = os.path.join(HERE, rev, "schema.json")
        with open(path, encoding="utf-8") as f:
            self.root = json.load(f)
        self.rev = rev
        self.defs_key = "$defs" if "$defs" in self.root else "definitions"
        self.defs: dict[str, Any] = self.root[self.defs_key]
        self.uri = f"urn:picomcp:mcp-schema:{rev}"
        self.cls = validators.validator_for(self.root)  # draft-07 or 2020-12, from `$schema`
        self.cls.check_schema(self.root)
        try:  # jsonschema >= 4.18: the `referencing` library
            from referencing import Registry
            from referencing.jsonschema import specification_with

            spec = specification_with(self.root.get("$schema", ""))
            registry = Registry().with_resource(self.uri, spec.create_resource(self.root))
            self._make = lambda sub: self.cls(sub, registry=registry)
        except ImportError:  # older jsonschema: RefResolver
            resolver = jsonschema.RefResolver(base_uri=self.uri, referrer=self.root,
                                              store={self.uri: self.root})
            self._make = lambda sub: self.cls(sub, resolver=resolver)
        self._validators: dict[str, Any] = {}

    def has(self, name: str) -> bool:
        return name in self.defs

    def errors(self, name: str, instance: Any) -> list[ValidationError]:
        v = self._validators.get(name)
        if v is None:
            v = self._make({"$ref": f"{self.uri}#/{self.defs_key}/{name}"})
            self._validators[name] = v
        return list(v.iter_errors(instance))

    def undefined_members(self, name: str, instance: Any, path: str = "") -> list[str]:
        """The members of `instance` that definition `name` (or the object schema `name`
        stands for) does not list, as paths: the schemas leave objects open
        (additionalProperties), so validation alone lets an extra member through; this is
        the stricter "only what the revision defines" check for capabilities objects. An
        object schema without `properties` (`experimental`, `extensions`, `logging`) is
        open by design and not looked into."""
        schema = self.defs[name] if isinstance(name, str) else name
        while isinstance(schema, dict) and "$ref" in schema:
            schema = self.defs[schema["$ref"].rsplit("/", 1)[-1]]
        props = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(instance, dict) or not props:
            return []
        out = []
        for k, v in instance.items():
            if k not in props:
                out.append(f"{path}/{k}")
            else:
                out += self.undefined_members(props[k], v, f"{path}/{k}")
        return out

    def is_full_message(self, name: str) -> bool:
        """True when a definition describes a whole JSON-RPC message (it has `jsonrpc`),
        false when it is a bare part (the 2026-07-28 error objects are bare `error`s)."""
        return "jsonrpc" in self.defs.get(name, {}).get("properties", {})


def json_path(parts) -> str:
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def _branch_schema(parent: Any, idx: Any, root: dict | None) -> dict:
    """The subschema of branch `idx` of an anyOf/oneOf, following local `$ref`s."""
    try:
        sub = parent[err_keyword(parent)][idx]
    except (KeyError, IndexError, TypeError):
        return {}
    for _ in range(8):
        ref = sub.get("$ref") if isinstance(sub, dict) else None
        if not (isinstance(ref, str) and root is not None and "#/" in ref):
            break
        node: Any = root
        for part in ref.split("#/", 1)[1].split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        sub = node
    return sub if isinstance(sub, dict) else {}


def err_keyword(schema: Any) -> str:
    return "anyOf" if isinstance(schema, dict) and "anyOf" in schema else "oneOf"


def leaf_error(err: ValidationError, root: dict | None = None) -> ValidationError:
    """Descend through anyOf/oneOf to the error of the most plausible branch: the one
    whose discriminators (`const`, `enum`, `type` at the top) matched, then the one that
    shares the most member names with the instance, then the one with the fewest errors."""
    while err.context:
        branches: dict[Any, list[ValidationError]] = {}
        for c in err.context:
            branches.setdefault(c.schema_path[0] if c.schema_path else 0, []).append(c)
        inst, parent = err.instance, err.schema

        def score(item):
            idx, errs = item
            disc = sum(1 for e in errs if e.validator in ("const", "enum", "type")
                       and len(e.relative_path) <= 1)
            props = _branch_schema(parent, idx, root).get("properties")
            overlap = len(set(inst) & set(props)) \
                if isinstance(inst, dict) and isinstance(props, dict) else 0
            return (disc, -overlap, len(errs), -max(len(e.relative_path) for e in errs))

        err = best_match(min(branches.items(), key=score)[1])
    return err


def shorten(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def describe(name: str, errs: list[ValidationError], base_path: str = "",
             limit: int = 3, root: dict | None = None) -> str:
    """`Type at $.path: message [keyword]` for the first `limit` errors, best first."""
    errs = sorted(errs, key=lambda e: e is not best_match(errs))
    parts = []
    for e in errs[:limit]:
        leaf = leaf_error(e, root)
        path = json_path(leaf.absolute_path)  # context errors carry their parents' path
        if base_path:
            path = base_path + path[1:]
        parts.append(f"at {path}: {shorten(leaf.message, 300)} [{leaf.validator}]")
    more = f" (+{len(errs) - limit} more)" if len(errs) > limit else ""
    return f"{name} " + "; ".join(parts) + more

