"""What a cooperative client answers to the server's requests (legacy) and to the input
requests embedded in an `input_required` result (2026-07-28): sampling, elicitation (a
value for every field of the form), roots and ping."""

from __future__ import annotations

from typing import Any

from schema_access import ver_ge


def client_answer(method: Any, params: dict, rev: str) -> dict | None:
    """What a cooperative client answers to a server request / embedded input request."""
    if method == "sampling/createMessage":
        return {"role": "assistant", "content": {"type": "text", "text": "Hi!"},
                "model": "validate-py", "stopReason": "endTurn"}
    if method == "elicitation/create":
        schema = params.get("requestedSchema") or {}
        content = {}
        for k, prop in (schema.get("properties") or {}).items():
            v = elicit_value(k, prop)
            # Multi-select answers (string arrays) exist from 2025-11-25 (SEP-1330).
            if not (isinstance(v, list) and not ver_ge(rev, "2025-11-25")):
                content[k] = v
        return {"action": "accept", "content": content}
    if method == "roots/list":
        return {"roots": [{"uri": "file:///tmp", "name": "tmp"}]}
    if method == "ping":
        return {}
    return None


def elicit_value(key: str, prop: dict) -> Any:
    if "default" in prop:
        d = prop["default"]
        # The generated schema.json types ElicitResult.content values as string | integer |
        # boolean (| string[]): schema.ts says `number`, but the generator maps untagged TS
        # numbers to JSON integer (DIGEST.md §0 errata). Answer an integer so that our own
        # message validates; this concerns what the client sends, not the server.
        return round(d) if isinstance(d, float) else d
    if prop.get("enum"):
        return prop["enum"][0]
    if prop.get("oneOf"):
        return prop["oneOf"][0].get("const")
    t = prop.get("type")
    if t == "array":
        items = prop.get("items") or {}
        if items.get("enum"):
            return [items["enum"][0]]
        alts = items.get("anyOf") or items.get("oneOf") or []
        return [alts[0]["const"]] if alts else []
    if t == "integer":
        return 1
    if t == "number":
        return 1.5
    if t == "boolean":
        return True
    return "user@example.com" if "email" in key else "validate-py"

