"""The documented schema-vs-spec discrepancies: where the official schema of a revision
rejects what the specification's text requires or allows, each with the digest section
that documents it. A check passes through an allowance ("allowed") only when the instance,
patched as the schema would have it, validates, so nothing else is masked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Allowance:
    key: str
    revisions: frozenset
    types: frozenset
    applies: Callable[[Any], bool]
    # The instance as the schema would accept it; the check passes (as "allowed") only
    # when this patched copy validates, so nothing else is masked.
    patch: Callable[[Any], Any]
    cite: str


def _error_without_id(m: Any) -> bool:
    return isinstance(m, dict) and "error" in m and "result" not in m and "id" not in m


def _with_placeholder_id(m: Any) -> Any:
    return {**m, "id": 0}


def _elicit_contents(m: Any):
    """Every elicitation answer's `content` object inside `m` (an ElicitResult, or a
    2026-07-28 request carrying one in `inputResponses`)."""
    if isinstance(m, dict):
        if "action" in m and isinstance(m.get("content"), dict):
            yield m["content"]
        for v in m.values():
            yield from _elicit_contents(v)
    elif isinstance(m, list):
        for v in m:
            yield from _elicit_contents(v)


def _fractional(v: Any) -> bool:
    return isinstance(v, float) and not v.is_integer()


def _has_fractional_elicit_number(m: Any) -> bool:
    return any(_fractional(v) for c in _elicit_contents(m) for v in c.values())


def _elicit_numbers_as_integers(m: Any) -> Any:
    import copy
    m = copy.deepcopy(m)
    for c in _elicit_contents(m):
        for k, v in c.items():
            if _fractional(v):
                c[k] = int(v)
    return m


ALLOWLIST: tuple[Allowance, ...] = (
    # DIGEST.md §15 ("Error responses without an id are invalid per the <=2025-06-18
    # schema, yet the transport text allows them"). JSON-RPC 2.0 §5: when the request id
    # cannot be read (parse error, invalid request) the error still has to be sent; the
    # 2024-11-05..2025-06-18 schemas make `id` required on JSONRPCError (2025-11-25 made it
    # optional). The server leaves `id` out, as 2025-11-25+ prescribe.
    Allowance(
        key="error-without-id",
        revisions=frozenset({"2024-11-05", "2025-03-26", "2025-06-18"}),
        types=frozenset({"JSONRPCMessage", "JSONRPCError"}),
        applies=_error_without_id,
        patch=_with_placeholder_id,
        cite="DIGEST.md §15: error responses without an id (unreadable request id) are "
             "invalid per the <=2025-06-18 schema, yet the transport text allows them",
    ),
    # DIGEST.md "Post-release errata": the generated schemas map untagged TS `number`
    # fields to JSON `integer`. ElicitResult.content is `string | number | boolean |
    # string[]` in schema.ts, and a form's number field (NumberSchema, `type: "number"`,
    # whose `default` the errata made a `number`) is answered with a number: the probe
    # applies a default of 95.5 (SEP-1034, the conformance suite's
    # elicitation-sep1034-client-defaults). Allowed only when the value with its
    # fractions cut validates.
    Allowance(
        key="elicit-fractional-number",
        revisions=frozenset({"2025-06-18", "2025-11-25", "2026-07-28"}),
        types=frozenset({"ElicitResult", "ClientResult", "ClientRequest", "CallToolRequest",
                         "GetPromptRequest", "ReadResourceRequest", "JSONRPCMessage",
                         "JSONRPCResponse", "JSONRPCResultResponse", "JSONRPCRequest"}),
        applies=_has_fractional_elicit_number,
        patch=_elicit_numbers_as_integers,
        cite="DIGEST.md errata: the generated schema types ElicitResult.content numbers as "
             "integer (TS `number` untagged); a form's number field is answered with a number",
    ),
)

