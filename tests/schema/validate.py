#!/usr/bin/env python3
"""Validate what a stdio MCP server emits against the OFFICIAL JSON schema of each revision.

Usage (after tests/interop/setup.sh, which installs `jsonschema` into the venv):

    target/interop/venv/bin/python tests/schema/validate.py [--revision REV]... [-v] \
        [--timeout-scale N] [--features-off LIST] -- SERVER_CMD [ARGS...]

e.g. `... -- target/release/picomcp-demo`. The server runs with the repository root as its
working directory, one fresh process per revision, all revisions in parallel.

For each revision in tests/schema/<revision>/schema.json (copies of the official
`schema/<revision>/schema.json`; nothing outside the repository is read) the script drives a
scripted conversation over stdio and validates EVERY line the server writes:

  * against the revision's JSON-RPC message union (`JSONRPCMessage`), and against the
    message kind (`JSONRPCResponse` / `JSONRPCResultResponse`, `JSONRPCError` /
    `JSONRPCErrorResponse`, `JSONRPCNotification`, `JSONRPCRequest`,
    `JSONRPCBatchResponse` in 2025-03-26);
  * each result against the result type of the request that it answers
    (`InitializeResult`, `ListToolsResult`, `CallToolResult`, `EmptyResult`,
    `DiscoverResult`, `InputRequiredResult`, ...; in 2026-07-28 also the full
    `<Type>Response` message where the schema has one);
  * each notification against `ServerNotification` and its own type
    (`ProgressNotification`, `LoggingMessageNotification`, `ResourceUpdatedNotification`,
    `SubscriptionsAcknowledgedNotification`, ...);
  * each server-to-client request against `ServerRequest` and its own type
    (`CreateMessageRequest`, `ElicitRequest`, ...);
  * each error against the error type (2026-07-28: `ParseError`, `InvalidParamsError`,
    `MethodNotFoundError`, `UnsupportedProtocolVersionError`,
    `MissingRequiredClientCapabilityError`, ... by code).

The conversation (legacy = 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25): initialize
proposing the revision, notifications/initialized, ping, logging/setLevel debug,
resources/subscribe, tools/list, tools/call of echo, add, sleep (with a progressToken),
the conformance fixture tools (test_simple_text, test_image_content, test_audio_content,
test_embedded_resource, test_multiple_content_types, test_error_handling,
test_tool_with_logging, test_tool_with_progress, test_sampling and the elicitation tools,
answering the server's requests), resources/list, resources/templates/list,
resources/read of every listed resource and of a template instance, prompts/list,
prompts/get of every listed prompt with arguments, completion/complete, a batch
(2025-03-26), error cases (unknown tool, unknown method, malformed JSON, invalid params,
unknown resource), the resources/updated notification, resources/unsubscribe, EOF.
2026-07-28: the same with the `_meta` envelope on every request, plus server/discover,
subscriptions/listen with a filter (acknowledgement, tagged resources/updated, cancel),
per-request logLevel, MRTR (`input_required` then a retry with inputResponses), and the
envelope errors -32602 / -32022 / -32601 / -32021.

Only what the server declares is exercised. Right after the handshake the script reads
the capabilities (initialize / server/discover result) and asks tools/list,
resources/list, resources/templates/list and prompts/list (each only when its capability
is declared); it then calls only listed tools, reads only listed resources and template
instances, gets only listed prompts, and uses logging, subscriptions, completion and
list-changed notifications only when declared. Everything else is reported as
`ok - <revision> <what> # SKIP <reason>`. `tools/list` must hold at least `echo` and
`add`. JSON-RPC batches (2025-03-26) are announced by no capability; `--features-off
batches` skips them for a server that has them off. `--timeout-scale N` multiplies every
timeout (slow servers such as the firmware under QEMU).

A few semantic checks keep the schema checks from passing vacuously (the expected
notifications really arrived, results vs errors as the spec says, exit status 0 on EOF).

Output: `ok - <revision> <what>`, `ok - <revision> <what> # SKIP <reason>` or
`not ok - <revision> <what>: <error>` followed by `#`-prefixed diagnostics (the schema
error path and message, the line sent and the line received), then
`N passed, M failed, K skipped`. Exit status 1 if anything failed, 2 on a usage error.
Known, documented schema-vs-spec discrepancies are in ALLOWLIST below; a check that passes
only through it says so (`# allowed: ...`).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

try:
    import jsonschema
    from jsonschema import validators
    from jsonschema.exceptions import ValidationError, best_match
except ImportError as e:  # pragma: no cover - setup problem, not a check
    sys.exit(f"validate.py: cannot import jsonschema ({e}); run tests/interop/setup.sh and use "
             "target/interop/venv/bin/python")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
MODERN = "2026-07-28"

STEP_TIMEOUT_S = 5.0        # one request's answer
UPDATE_WAIT_S = 6.0         # the demo's watched resource changes every 3 s
DRAIN_TIMEOUT_S = 5.0       # output after EOF, and the exit
REVISION_BUDGET_S = 45.0    # one revision's whole conversation
HARD_LIMIT_S = 58.0         # watchdog for the whole run


def scale_timeouts(n: float) -> None:
    """--timeout-scale: every timeout above times n."""
    global STEP_TIMEOUT_S, UPDATE_WAIT_S, DRAIN_TIMEOUT_S, REVISION_BUDGET_S, HARD_LIMIT_S
    STEP_TIMEOUT_S *= n
    UPDATE_WAIT_S *= n
    DRAIN_TIMEOUT_S *= n
    REVISION_BUDGET_S *= n
    HARD_LIMIT_S *= n

CLIENT_INFO = {"name": "picomcp-schema-validate", "version": "0.1.0"}
ANY_ERROR = frozenset({"any"})  # `errors=ANY_ERROR`: any error code is acceptable


def ver_ge(rev: str, other: str) -> bool:
    """Revision identifiers are dates, so they compare as strings."""
    return rev >= other


# --- Schema access -------------------------------------------------------------------------

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


# --- Allowlist of documented schema-vs-spec discrepancies ----------------------------------

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


# --- Type tables ---------------------------------------------------------------------------

RESULT_TYPE = {
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "logging/setLevel": "EmptyResult",
    "resources/subscribe": "EmptyResult",
    "resources/unsubscribe": "EmptyResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "completion/complete": "CompleteResult",
    "server/discover": "DiscoverResult",
    "subscriptions/listen": "SubscriptionsListenResult",
}
# MODERN.md §8.2: the only methods that may answer `input_required`.
MRTR_METHODS = {"tools/call", "prompts/get", "resources/read"}

REQUEST_TYPE = {  # client -> server, to self-check what we send
    "initialize": "InitializeRequest",
    "ping": "PingRequest",
    "logging/setLevel": "SetLevelRequest",
    "resources/subscribe": "SubscribeRequest",
    "resources/unsubscribe": "UnsubscribeRequest",
    "tools/list": "ListToolsRequest",
    "tools/call": "CallToolRequest",
    "resources/list": "ListResourcesRequest",
    "resources/templates/list": "ListResourceTemplatesRequest",
    "resources/read": "ReadResourceRequest",
    "prompts/list": "ListPromptsRequest",
    "prompts/get": "GetPromptRequest",
    "completion/complete": "CompleteRequest",
    "server/discover": "DiscoverRequest",
    "subscriptions/listen": "SubscriptionsListenRequest",
    "notifications/initialized": "InitializedNotification",
    "notifications/cancelled": "CancelledNotification",
}

NOTIFICATION_TYPE = {  # server -> client
    "notifications/progress": "ProgressNotification",
    "notifications/message": "LoggingMessageNotification",
    "notifications/resources/updated": "ResourceUpdatedNotification",
    "notifications/resources/list_changed": "ResourceListChangedNotification",
    "notifications/tools/list_changed": "ToolListChangedNotification",
    "notifications/prompts/list_changed": "PromptListChangedNotification",
    "notifications/cancelled": "CancelledNotification",
    "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
    "notifications/tasks/status": "TaskStatusNotification",
    "notifications/elicitation/complete": "ElicitationCompleteNotification",
}

SERVER_REQUEST_TYPE = {  # server -> client (legacy only) and embedded input requests
    "sampling/createMessage": "CreateMessageRequest",
    "elicitation/create": "ElicitRequest",
    "roots/list": "ListRootsRequest",
    "ping": "PingRequest",
}
CLIENT_RESULT_TYPE = {
    "sampling/createMessage": "CreateMessageResult",
    "elicitation/create": "ElicitResult",
    "roots/list": "ListRootsResult",
    "ping": "EmptyResult",
}

# 2026-07-28 error types by code (bare `error` objects or full messages; see
# Schema.is_full_message). Older revisions only have the generic error type.
ERROR_TYPE_BY_CODE = {
    -32700: "ParseError",
    -32600: "InvalidRequestError",
    -32601: "MethodNotFoundError",
    -32602: "InvalidParamsError",
    -32603: "InternalError",
    -32020: "HeaderMismatchError",
    -32021: "MissingRequiredClientCapabilityError",
    -32022: "UnsupportedProtocolVersionError",
    -32042: "URLElicitationRequiredError",  # 2025-11-25
}


# --- Report --------------------------------------------------------------------------------

@dataclass
class Check:
    ok: bool
    text: str
    notes: list[str] = field(default_factory=list)
    allowed: bool = False
    skipped: bool = False


# --- The server process --------------------------------------------------------------------

EOF = object()
TIMEOUT = object()


class Process:
    def __init__(self, argv: list[str]) -> None:
        self.p = subprocess.Popen(argv, cwd=REPO, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue = queue.Queue()
        self.stderr_tail: list[str] = []
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self) -> None:
        assert self.p.stdout is not None
        for raw in self.p.stdout:
            self.lines.put(raw)
        self.lines.put(EOF)

    def _read_err(self) -> None:
        assert self.p.stderr is not None
        for raw in self.p.stderr:
            self.stderr_tail.append(raw.decode("utf-8", "replace").rstrip("\n"))
            del self.stderr_tail[:-20]

    def send(self, line: str) -> bool:
        try:
            assert self.p.stdin is not None
            self.p.stdin.write(line.encode("utf-8") + b"\n")
            self.p.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def get(self, timeout: float):
        try:
            return self.lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return TIMEOUT

    def close_stdin(self) -> None:
        try:
            assert self.p.stdin is not None
            self.p.stdin.close()
        except OSError:
            pass

    def kill(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
        try:
            self.p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass


# --- One revision's conversation -----------------------------------------------------------

@dataclass
class Pending:
    name: str
    method: str | None
    sent: str
    result_type: str | None           # expected result type, None = an error is expected
    error_codes: frozenset            # acceptable error codes (empty = no error expected)
    allow_input_required: bool = False
    response: Any = None
    done: bool = False


class Aborted(Exception):
    pass


class Conversation:
    def __init__(self, rev: str, schema: Schema, argv: list[str], verbose: bool,
                 features_off: frozenset = frozenset()) -> None:
        self.rev = rev
        self.features_off = features_off
        # What the server declares (filled in right after the handshake).
        self.caps: dict[str, Any] = {}
        self.tools: list[str] = []
        self.resources: list[str] = []
        self.templates: list[str] = []
        self.prompts: list[dict] = []
        self.s = schema
        self.argv = argv
        self.verbose = verbose
        self.modern = rev == MODERN
        self.checks: list[Check] = []
        self.next_id = 1
        self.pending: dict[str, Pending] = {}     # key: json.dumps(id)
        self.idless: list[Pending] = []           # raw lines whose error cannot carry an id
        self.step = "startup"                     # what notifications are attributed to
        self.step_sent: str | None = None         # the line that started that step
        self.notes_by_step: dict[str, list[dict]] = {}
        self.updates: list[dict] = []             # notifications/resources/updated
        self.start = time.monotonic()
        self.timeouts = 0
        self.proc: Process | None = None

    # -- reporting --

    def note(self, text: str) -> None:
        """Information that is not a check (printed as a `#` line)."""
        self.checks.append(Check(True, "", [text]))

    def ok(self, what: str, note: str = "") -> None:
        self.checks.append(Check(True, f"ok - {self.rev} {what}{f' ({note})' if note else ''}"))

    def fail(self, what: str, reason: str, notes: list[str] | None = None) -> None:
        self.checks.append(Check(False, f"not ok - {self.rev} {what}: {reason}", notes or []))

    def skip(self, what: str, reason: str) -> None:
        self.checks.append(Check(True, f"ok - {self.rev} {what} # SKIP {reason}", skipped=True))

    # -- what the server declares --

    def cap(self, name: str, flag: str | None = None) -> bool:
        """The capability is declared (and, with `flag`, that flag of it is true)."""
        c = self.caps.get(name)
        if flag is None:
            return c is not None
        return isinstance(c, dict) and c.get(flag) is True

    def no_tool(self, tool: str) -> str | None:
        """None when `tool` is listed, else the reason to skip."""
        return None if tool in self.tools else f"no {tool} tool in tools/list"

    def take_caps(self, p: Pending) -> None:
        caps = ((p.response or {}).get("result") or {}).get("capabilities")
        if isinstance(caps, dict):
            self.caps = caps
        else:
            self.fail("capabilities", f"no capabilities object in the {p.method} result")

    def list_names(self, p: Pending, key: str, field_name: str) -> list:
        items = ((p.response or {}).get("result") or {}).get(key)
        if not isinstance(items, list):
            return []
        return [x[field_name] for x in items if isinstance(x, dict) and field_name in x]

    def list_features(self, tools_list: Pending | None = None) -> None:
        """tools/list (unless the caller already asked it), resources/list,
        resources/templates/list and prompts/list, each when its capability is declared."""
        if tools_list is None:
            if self.cap("tools"):
                tools_list = self.request("tools/list", "tools/list")
            else:
                self.fail("tools capability", "not declared: every demo server has tools")
        if tools_list is not None:
            self.tools = self.list_names(tools_list, "tools", "name")
            missing = [t for t in ("echo", "add") if t not in self.tools]
            if missing:
                self.fail("tools/list has echo and add", f"missing {missing}; got {self.tools}")
            else:
                self.ok("tools/list has echo and add", ", ".join(self.tools))
        if self.cap("resources"):
            res = self.request("resources/list", "resources/list")
            self.resources = self.list_names(res, "resources", "uri")
            tl = self.request("resources/templates/list", "resources/templates/list")
            self.templates = self.list_names(tl, "resourceTemplates", "uriTemplate")
        else:
            for what in ("resources/list", "resources/templates/list"):
                self.skip(what, "no resources capability declared")
        if self.cap("prompts"):
            pl = self.request("prompts/list", "prompts/list")
            self.prompts = [x for x in ((pl.response or {}).get("result") or {}).get("prompts") or []
                            if isinstance(x, dict) and isinstance(x.get("name"), str)]
        else:
            self.skip("prompts/list", "no prompts capability declared")

    # -- validation of one received message --

    def validate(self, name: str, instance: Any, results: list, base: str = "") -> None:
        """Validates `instance` as `name`; appends (name, error text or None, allowance)."""
        if not self.s.has(name):
            results.append((name, f"{name} is not defined in the {self.rev} schema", None))
            return
        errs = self.s.errors(name, instance)
        if not errs:
            results.append((name, None, None))
            return
        for a in ALLOWLIST:
            if self.rev in a.revisions and name in a.types and a.applies(instance) \
                    and not self.s.errors(name, a.patch(instance)):
                results.append((name, None, (a, describe(name, errs, base, root=self.s.root))))
                return
        results.append((name, describe(name, errs, base, root=self.s.root), None))

    def report_line(self, what: str, results: list, semantic: list[str], sent: str | None,
                    received: str) -> None:
        failed = [r for r in results if r[1] is not None]
        allowed = [r for r in results if r[2] is not None]
        names = ", ".join(r[0] for r in results)
        if failed or semantic:
            reasons = [r[1] for r in failed] + semantic
            notes = [f"schema error: {x}" for x in (r[1] for r in failed)]
            notes += [f"expectation: {x}" for x in semantic]
            if sent is not None:
                notes.append(f"sent:     {shorten(sent, 2000)}")
            notes.append(f"received: {shorten(received, 2000)}")
            self.fail(what, "; ".join(shorten(r, 300) for r in reasons), notes)
        else:
            c = Check(True, f"ok - {self.rev} {what}: {names}")
            for _, _, (a, err) in allowed:
                c.text += f" # allowed ({a.key}): {a.cite}"
                c.notes.append(f"schema error allowed by {a.key}: {err}")
                c.allowed = True
            self.checks.append(c)

    def handle_raw(self, raw: bytes) -> None:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            self.fail(f"output during {self.step}", f"stdout line is not UTF-8 ({e})",
                      [f"received: {shorten(repr(raw), 2000)}"])
            return
        text = text.rstrip("\n").rstrip("\r")
        if self.verbose:
            self.checks.append(Check(True, "", [f"< {text}"]))
        try:
            msg = json.loads(text)
        except ValueError as e:
            self.fail(f"output during {self.step}", f"stdout line is not JSON ({e})",
                      [f"received: {shorten(text, 2000)}"])
            return
        results: list = []
        self.validate("JSONRPCMessage", msg, results)
        if isinstance(msg, list):
            self.handle_batch(msg, text, results)
            return
        if not isinstance(msg, dict):
            self.report_line(f"output during {self.step}", results,
                             ["not a JSON-RPC object"], None, text)
            return
        self.handle_message(msg, text, results)

    def handle_batch(self, msgs: list, text: str, results: list) -> None:
        # 2025-03-26 only (DIGEST §2.4): a line may hold a batch of responses.
        if self.s.has("JSONRPCBatchResponse"):
            self.validate("JSONRPCBatchResponse", msgs, results)
        else:
            results.append(("JSONRPCBatchResponse",
                            f"a batch on stdout, but {self.rev} has no batches", None))
        semantic: list[str] = []
        sent = None
        for i, m in enumerate(msgs):
            if not isinstance(m, dict) or "method" in m:
                semantic.append(f"batch element {i} is not a response")
                continue
            p = self.pending.get(json.dumps(m.get("id")))
            if p is None:
                semantic.append(f"batch element {i}: no request with id {m.get('id')!r}")
                continue
            sent = p.sent
            self.check_response(m, p, results, semantic, base=f"$[{i}]")
        self.report_line(f"batch response during {self.step}", results, semantic, sent, text)

    def handle_message(self, msg: dict, text: str, results: list) -> None:
        has_id = "id" in msg
        if "method" in msg and has_id:
            self.handle_server_request(msg, text, results)
        elif "method" in msg:
            self.handle_notification(msg, text, results)
        elif "result" in msg or "error" in msg:
            p = None
            if has_id and msg["id"] is not None:
                p = self.pending.get(json.dumps(msg["id"]))
                if p is not None:
                    self.idless = [x for x in self.idless if x is not p]
            elif "error" in msg and self.idless:
                p = self.idless.pop(0)
            semantic: list[str] = []
            if p is None:
                semantic.append(f"response to no request of ours (id {msg.get('id')!r})")
                what = f"response during {self.step}"
                self.check_response(msg, None, results, semantic)
            else:
                what = f"{p.name} -> {'error ' + str(msg['error'].get('code')) if isinstance(msg.get('error'), dict) else 'result'}"
                self.check_response(msg, p, results, semantic)
            self.report_line(what, results, semantic, p.sent if p else None, text)
        else:
            self.report_line(f"output during {self.step}", results,
                             ["neither request, notification nor response"], None, text)

    def check_response(self, msg: dict, p: Pending | None, results: list,
                       semantic: list[str], base: str = "") -> None:
        if p is not None:
            if p.done:
                semantic.append("a second response to the same request")
            p.done = True
            p.response = msg
        if "error" in msg:
            kind = "JSONRPCErrorResponse" if self.s.has("JSONRPCErrorResponse") else "JSONRPCError"
            self.validate(kind, msg, results, base)
            err = msg.get("error")
            code = err.get("code") if isinstance(err, dict) else None
            tname = ERROR_TYPE_BY_CODE.get(code) if isinstance(code, int) else None
            if tname and self.s.has(tname):
                if self.s.is_full_message(tname):
                    self.validate(tname, msg, results, base)
                else:
                    self.validate(tname, err, results, base + (".error" if base else "$.error"))
            if p is not None:
                if not p.error_codes:
                    semantic.append(f"expected a {p.result_type}, got error {code}")
                elif code not in p.error_codes and p.error_codes != ANY_ERROR:
                    semantic.append(f"expected error {sorted(p.error_codes)}, got {code}")
            return
        kind = "JSONRPCResultResponse" if self.s.has("JSONRPCResultResponse") else "JSONRPCResponse"
        self.validate(kind, msg, results, base)
        if p is None:
            return
        result = msg.get("result")
        rtype = p.result_type or (RESULT_TYPE.get(p.method or "") if p.method else None)
        if p.result_type is None:
            semantic.append(f"expected error {sorted(p.error_codes)}, got a result")
        if (self.modern and isinstance(result, dict)
                and result.get("resultType") == "input_required"):
            rtype = "InputRequiredResult"
            if p.method not in MRTR_METHODS:
                semantic.append(f"input_required on {p.method} (MODERN.md §8.2 allows it only "
                                "on tools/call, prompts/get, resources/read)")
            elif not p.allow_input_required:
                semantic.append(f"unexpected input_required (expected {p.result_type})")
            if "inputRequests" not in result and "requestState" not in result:
                semantic.append("input_required without inputRequests or requestState "
                                "(MODERN.md §8.1 MUST; prose, not schema)")
            self.check_embedded(result, results, base)
        if rtype:
            self.validate(rtype, result, results, base + (".result" if base else "$.result"))
            full = (p.result_type or "") + "Response"
            if self.modern and self.s.has(full):
                self.validate(full, msg, results, base)

    def check_embedded(self, result: dict, results: list, base: str) -> None:
        reqs = result.get("inputRequests")
        if not isinstance(reqs, dict):
            return
        for key, r in reqs.items():
            if isinstance(r, dict) and r.get("method") in SERVER_REQUEST_TYPE:
                where = (base or "$") + f".result.inputRequests.{key}"
                self.validate(SERVER_REQUEST_TYPE[r["method"]], r, results, where)

    def handle_notification(self, msg: dict, text: str, results: list) -> None:
        method = msg.get("method")
        self.validate("JSONRPCNotification", msg, results)
        self.validate("ServerNotification", msg, results)
        semantic: list[str] = []
        tname = NOTIFICATION_TYPE.get(method) if isinstance(method, str) else None
        if tname:
            self.validate(tname, msg, results)
        else:
            semantic.append(f"unknown server notification {method!r}")
        self.notes_by_step.setdefault(self.step, []).append(msg)
        if method == "notifications/resources/updated":
            self.updates.append(msg)
        self.report_line(f"{method} (during {self.step})", results, semantic,
                         self.step_sent, text)

    def handle_server_request(self, msg: dict, text: str, results: list) -> None:
        method = msg.get("method")
        self.validate("JSONRPCRequest", msg, results)
        semantic: list[str] = []
        if self.modern:
            semantic.append("the server sent a request in 2026-07-28 (MODERN.md §2.1: never)")
        else:
            self.validate("ServerRequest", msg, results)
        tname = SERVER_REQUEST_TYPE.get(method) if isinstance(method, str) else None
        if tname:
            self.validate(tname, msg, results)
        self.report_line(f"{method} request from the server (during {self.step})", results,
                         semantic, self.step_sent, text)
        if self.modern:
            return
        answer = client_answer(method, msg.get("params") or {}, self.rev)
        if answer is None:
            reply = {"jsonrpc": "2.0", "id": msg.get("id"),
                     "error": {"code": -32601, "message": "Method not found"}}
        else:
            self.self_check(f"our answer to {method}", CLIENT_RESULT_TYPE[method], answer)
            reply = {"jsonrpc": "2.0", "id": msg.get("id"), "result": answer}
        self.write(json.dumps(reply))

    # -- sending and waiting --

    def self_check(self, what: str, tname: str, instance: Any) -> None:
        """Our own messages must be valid, or a server error could be our fault."""
        if not self.s.has(tname):
            return
        errs = self.s.errors(tname, instance)
        if errs:
            self.fail(f"self-check {what}", f"our message is not a valid {tname}: "
                      + describe(tname, errs, root=self.s.root), [f"sent: {shorten(json.dumps(instance), 2000)}"])

    def write(self, line: str) -> None:
        assert self.proc is not None
        if self.verbose:
            self.checks.append(Check(True, "", [f"> {line}"]))
        if not self.proc.send(line):
            raise Aborted("cannot write to the server (it exited?)")

    def pump(self, until: Callable[[], bool], timeout: float) -> bool:
        """Reads and handles output until `until()` holds; False on timeout or EOF."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() - self.start > REVISION_BUDGET_S:
                raise Aborted(f"revision budget of {REVISION_BUDGET_S:.0f} s used up")
            item = self.proc.get(deadline - time.monotonic())
            if item is TIMEOUT:
                return False
            if item is EOF:
                raise Aborted("the server closed stdout (exited?)")
            self.handle_raw(item)
        return True

    def envelope(self, extra: dict | None = None, caps: dict | None = None) -> dict:
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": caps if caps is not None else {},
            "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        }
        meta.update(extra or {})
        return meta

    def request(self, name: str, method: str, params: dict | None = None, *,
                expect: str | None = "", errors=(), meta: dict | None = None,
                caps: dict | None = None, envelope: bool = True, allow_ir: bool = False,
                rid: Any = None, valid: bool = True, wait: bool = True,
                timeout: float | None = None) -> Pending:
        """Sends one request; waits for its answer unless `wait` is false.
        `expect`: the result type ("" = the method's usual type, None = an error is
        expected); `errors`: acceptable error codes; `meta`: extra `_meta` members."""
        if rid is None:
            rid = self.next_id
            self.next_id += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None or meta or (self.modern and envelope):
            params = dict(params or {})
            m = dict(params.get("_meta") or {})
            if self.modern and envelope:
                m = {**self.envelope(caps=caps), **m}
            m.update(meta or {})
            if m:
                params["_meta"] = m
            msg["params"] = params
        line = json.dumps(msg, ensure_ascii=False)
        rtype = RESULT_TYPE.get(method) if expect == "" else expect
        p = Pending(name, method, line, rtype, frozenset(errors), allow_ir)
        self.pending[json.dumps(rid)] = p
        if valid and method in REQUEST_TYPE:
            self.self_check(name, REQUEST_TYPE[method], msg)
        self.step, self.step_sent = name, line
        self.write(line)
        if wait:
            self.await_pending(p, timeout)
        return p

    def await_pending(self, p: Pending, timeout: float | None = None) -> None:
        if timeout is None:
            timeout = STEP_TIMEOUT_S
        if self.pump(lambda: p.done, timeout):
            self.timeouts = 0
            return
        self.fail(p.name, f"no response within {timeout:.0f} s", [f"sent: {p.sent}"])
        self.timeouts += 1
        if self.timeouts >= 2:
            raise Aborted("two requests in a row went unanswered")

    def notify(self, name: str, method: str, params: dict | None = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if method in REQUEST_TYPE:
            self.self_check(name, REQUEST_TYPE[method], msg)
        self.step, self.step_sent = name, json.dumps(msg)
        self.write(self.step_sent)

    def send_raw(self, name: str, line: str, errors, *, rid: Any = None) -> Pending:
        """A line that is deliberately not a valid request. Its error may carry no id (the
        id cannot be read or used); with `rid`, an error echoing that id is matched too."""
        p = Pending(name, None, line, None, frozenset(errors))
        self.idless.append(p)
        if rid is not None:
            self.pending[json.dumps(rid)] = p
        self.step, self.step_sent = name, line
        self.write(line)
        self.await_pending(p)
        return p

    def settle(self, seconds: float) -> None:
        """Handles whatever arrives in the next `seconds`."""
        self.pump(lambda: False, seconds)

    # -- the conversation --

    def run(self) -> list[Check]:
        try:
            self.proc = Process(self.argv)
        except OSError as e:
            self.fail("start the server", f"{' '.join(self.argv)}: {e}")
            return self.checks
        try:
            if self.modern:
                self.modern_conversation()
            else:
                self.legacy_conversation()
            self.finish()
        except Aborted as e:
            notes = [f"server stderr: {x}" for x in self.proc.stderr_tail[-10:]]
            self.fail(f"conversation (at {self.step})", f"aborted: {e}", notes)
        finally:
            self.proc.kill()
        return self.checks

    def finish(self) -> None:
        """EOF: read what the server still writes, then check it exits with status 0."""
        assert self.proc is not None
        self.step = "EOF"
        self.proc.close_stdin()
        deadline = time.monotonic() + DRAIN_TIMEOUT_S
        while True:
            item = self.proc.get(deadline - time.monotonic())
            if item is EOF:
                break
            if item is TIMEOUT:
                self.fail("exit on EOF", f"stdout still open {DRAIN_TIMEOUT_S:.0f} s after EOF")
                return
            self.handle_raw(item)
        if self.modern:
            self.finish_modern()
        try:
            status = self.proc.p.wait(timeout=max(deadline - time.monotonic(), 0.5))
        except subprocess.TimeoutExpired:
            self.fail("exit on EOF", "still running after it closed stdout")
            return
        if status == 0:
            self.ok("exit on EOF", "status 0")
        else:
            self.fail("exit on EOF", f"exit status {status}",
                      [f"server stderr: {x}" for x in self.proc.stderr_tail[-10:]])

    def expect_notifications(self, what: str, step: str, method: str, minimum: int = 1,
                             check: Callable[[dict], str | None] | None = None) -> list[dict]:
        got = [n for n in self.notes_by_step.get(step, []) if n.get("method") == method]
        if len(got) < minimum:
            self.fail(what, f"expected at least {minimum} {method}, got {len(got)}")
            return got
        problems = [x for x in (check(n) for n in got) if x] if check else []
        if problems:
            self.fail(what, problems[0], [f"received: {json.dumps(got[0])}"])
        else:
            self.ok(what, f"{len(got)} {method}")
        return got

    def call_tool(self, tool: str, args: dict | None = None, **kw) -> Pending:
        return self.request(f"tools/call {tool}", "tools/call",
                            {"name": tool, "arguments": args or {}}, **kw)

    def common_tools(self) -> None:
        """The tool calls both eras make (tools/list was asked by list_features)."""
        self.call_tool("echo", {"text": "Grüße 😀 \"q\" \\ \n \u2028"})
        self.call_tool("add", {"a": 2, "b": 3.5})
        if why := self.no_tool("sleep"):
            self.skip("tools/call sleep", why)
            self.skip("sleep sends progress", why)
        else:
            tok = "prog-sleep"
            self.request("tools/call sleep", "tools/call",
                         {"name": "sleep", "arguments": {"ms": 300, "steps": 3}},
                         meta={"progressToken": tok})
            self.expect_notifications("sleep sends progress", "tools/call sleep",
                                      "notifications/progress", 3,
                                      lambda n: None if n["params"].get("progressToken") == tok
                                      else f"progressToken {n['params'].get('progressToken')!r}")
        for t in ("test_simple_text", "test_image_content", "test_audio_content",
                  "test_embedded_resource", "test_multiple_content_types",
                  "test_error_handling"):
            if why := self.no_tool(t):
                self.skip(f"tools/call {t}", why)
            else:
                self.call_tool(t)
        if why := self.no_tool("test_tool_with_progress"):
            self.skip("tools/call test_tool_with_progress", why)
            self.skip("test_tool_with_progress sends progress", why)
        else:
            self.request("tools/call test_tool_with_progress", "tools/call",
                         {"name": "test_tool_with_progress", "arguments": {}},
                         meta={"progressToken": 42})
            self.expect_notifications("test_tool_with_progress sends progress",
                                      "tools/call test_tool_with_progress",
                                      "notifications/progress", 3)
        # Errors around tools.
        self.request("tools/call unknown tool", "tools/call",
                     {"name": "no_such_tool", "arguments": {}}, expect=None, errors={-32602})
        # Invalid arguments: a tool execution error (isError) from 2025-11-25, -32602 before;
        # DIGEST §8 / MODERN.md §16.10 leave room for both, and the schema allows both.
        self.request("tools/call echo without text", "tools/call",
                     {"name": "echo", "arguments": {}}, errors={-32602})
        self.request("tools/call with a non-string name", "tools/call",
                     {"name": 7, "arguments": {}}, expect=None, errors={-32602}, valid=False)

    def common_content(self) -> None:
        """Resources, prompts and completion (the lists were asked by list_features)."""
        if self.cap("resources"):
            if not self.resources:
                self.note("note: resources/list is empty; no resource to read")
            # Every listed resource, and one instance of every listed template.
            instances = [re.sub(r"\{[^}]*\}", "42", t) for t in self.templates]
            for uri in self.resources + instances:
                self.request(f"resources/read {uri}", "resources/read", {"uri": uri})
            self.request("resources/read unknown", "resources/read", {"uri": "test://no-such"},
                         expect=None, errors={-32602} if self.modern else {-32002, -32602})
            self.request("resources/read without uri", "resources/read", {}, expect=None,
                         errors={-32602}, valid=False)
        else:
            for what in ("resources/read", "resources/read unknown", "resources/read without uri"):
                self.skip(what, "no resources capability declared")
        with_args = [p for p in self.prompts if p.get("arguments")]
        # The fixture's prompt first, so that the Rust demo keeps its exact conversation.
        with_args.sort(key=lambda p: p["name"] != "test_prompt_with_arguments")
        if self.cap("prompts"):
            for pr in self.prompts:
                args = {a["name"]: ("test://static-text" if a["name"] == "resourceUri"
                                    else f"value-{a['name']}")
                        for a in pr.get("arguments") or []}
                # The alpha's MRTR prompt asks with input_required in 2026-07-28 (when the
                # request declares elicitation, as here); the retry is the suite's business.
                mrtr = pr["name"] == "test_input_required_result_prompt"
                self.request(f"prompts/get {pr['name']}", "prompts/get",
                             {"name": pr["name"], "arguments": args}, allow_ir=mrtr,
                             caps={"elicitation": {}} if mrtr else None)
            required = [p for p in with_args
                        if any(a.get("required") for a in p["arguments"])]
            if required:
                pr = required[0]
                last = [a["name"] for a in pr["arguments"] if a.get("required")][-1]
                args = {a["name"]: "x" for a in pr["arguments"] if a["name"] != last}
                self.request("prompts/get missing argument", "prompts/get",
                             {"name": pr["name"], "arguments": args},
                             expect=None, errors={-32602})
            else:
                self.skip("prompts/get missing argument", "no listed prompt has a required argument")
            self.request("prompts/get unknown prompt", "prompts/get", {"name": "no_such_prompt"},
                         expect=None, errors={-32602})
        else:
            for what in ("prompts/get", "prompts/get missing argument", "prompts/get unknown prompt"):
                self.skip(what, "no prompts capability declared")
        if not self.cap("completions"):
            for what in ("completion/complete prompt argument",
                         "completion/complete template argument"):
                self.skip(what, "no completions capability declared")
            return
        if with_args:
            pr = with_args[0]
            self.request("completion/complete prompt argument", "completion/complete",
                         {"ref": {"type": "ref/prompt", "name": pr["name"]},
                          "argument": {"name": pr["arguments"][0]["name"], "value": "pa"}})
        else:
            self.skip("completion/complete prompt argument", "no listed prompt has arguments")
        templated = [(t, m.group(1)) for t in self.templates
                     if (m := re.search(r"\{([^}]*)\}", t))]
        if templated:
            uri_template, var = templated[0]
            self.request("completion/complete template argument", "completion/complete",
                         {"ref": {"type": "ref/resource", "uri": uri_template},
                          "argument": {"name": var, "value": "1"}})
        else:
            self.skip("completion/complete template argument", "no listed resource template")

    def common_errors(self) -> None:
        self.request("unknown method", "no/such_method", {}, expect=None, errors={-32601})
        self.send_raw("malformed JSON", "{this is not json", {-32700})
        # JSON-RPC shape errors: the id cannot be used, so the error has none.
        self.send_raw("request with a null id", '{"jsonrpc":"2.0","id":null,"method":"tools/list"}',
                      {-32600})
        self.send_raw("request without jsonrpc", '{"id":991,"method":"tools/list"}', {-32600},
                      rid=991)

    def legacy_conversation(self) -> None:
        rev = self.rev
        caps: dict[str, Any] = {"sampling": {}, "roots": {"listChanged": True}}
        if ver_ge(rev, "2025-06-18"):
            caps["elicitation"] = {}
        init = self.request("initialize", "initialize",
                            {"protocolVersion": rev, "capabilities": caps,
                             "clientInfo": CLIENT_INFO})
        got = (init.response or {}).get("result", {}).get("protocolVersion")
        if got == rev:
            self.ok("initialize negotiates the proposed revision", rev)
        else:
            self.fail("initialize negotiates the proposed revision", f"got {got!r}")
        self.take_caps(init)
        self.notify("notifications/initialized", "notifications/initialized")
        self.request("ping", "ping")
        self.request("ping with a string id", "ping", rid="str-id-1")
        self.list_features()
        no_logging = None if self.cap("logging") else "no logging capability declared"
        if no_logging:
            self.skip("logging/setLevel debug", no_logging)
        else:
            self.request("logging/setLevel debug", "logging/setLevel", {"level": "debug"})
        watched = "test://watched-resource"
        if not self.cap("resources", "subscribe"):
            no_subscribe = "no resources.subscribe capability declared"
        elif watched not in self.resources:
            no_subscribe = f"{watched} (the fixture's changing resource) is not listed"
        else:
            no_subscribe = None
        if no_subscribe:
            self.skip("resources/subscribe", no_subscribe)
        else:
            self.request("resources/subscribe", "resources/subscribe", {"uri": watched})
        self.common_tools()
        if why := self.no_tool("test_tool_with_logging"):
            self.skip("tools/call test_tool_with_logging", why)
        else:
            self.call_tool("test_tool_with_logging")
        if why := self.no_tool("test_tool_with_logging") or no_logging:
            self.skip("test_tool_with_logging logs", why)
        else:
            self.expect_notifications("test_tool_with_logging logs",
                                      "tools/call test_tool_with_logging",
                                      "notifications/message", 3)
        asks = [("test_sampling", {"prompt": "Say hi"})]
        if ver_ge(rev, "2025-06-18"):
            asks += [("test_elicitation", {"message": "Who are you?"}),
                     ("test_elicitation_sep1034_defaults", None),
                     ("test_elicitation_sep1330_enums", None)]
        for tool, args in asks:
            if why := self.no_tool(tool):
                self.skip(f"tools/call {tool}", why)
            else:
                self.call_tool(tool, args)
        self.common_content()
        self.common_errors()
        if no_logging:
            self.skip("logging/setLevel invalid level", no_logging)
        else:
            self.request("logging/setLevel invalid level", "logging/setLevel", {"level": "loud"},
                         expect=None, errors={-32602}, valid=False)
        if rev == "2025-03-26" and "batches" in self.features_off:
            self.skip("batch", "batches are off for this server (--features-off batches)")
        elif rev == "2025-03-26":  # DIGEST §2.4: MUST accept batches
            a, b = self.next_id, self.next_id + 1
            self.next_id += 2
            batch = [{"jsonrpc": "2.0", "id": a, "method": "ping"},
                     {"jsonrpc": "2.0", "id": b, "method": "tools/call",
                      "params": {"name": "echo", "arguments": {"text": "batched"}}}]
            self.self_check("batch", "JSONRPCBatchRequest", batch)
            pa = Pending("batch ping", "ping", json.dumps(batch), "EmptyResult", frozenset())
            pb = Pending("batch tools/call echo", "tools/call", json.dumps(batch),
                         "CallToolResult", frozenset())
            self.pending[json.dumps(a)] = pa
            self.pending[json.dumps(b)] = pb
            self.step, self.step_sent = "batch", json.dumps(batch)
            self.write(json.dumps(batch))
            self.await_pending(pb)
            self.await_pending(pa)
        if no_subscribe:
            self.skip("resources/subscribe delivers notifications/resources/updated", no_subscribe)
            self.skip("resources/unsubscribe", no_subscribe)
            return
        # The watched resource changes every 3 s; the subscription was made at the start.
        self.step = "waiting for resources/updated"
        if self.pump(lambda: bool(self.updates), UPDATE_WAIT_S):
            self.ok("resources/subscribe delivers notifications/resources/updated")
        else:
            self.fail("resources/subscribe delivers notifications/resources/updated",
                      f"none within {UPDATE_WAIT_S:.0f} s")
        self.request("resources/unsubscribe", "resources/unsubscribe", {"uri": watched})

    def modern_conversation(self) -> None:
        # A dual-era stdio server latches the era on the first request other than a
        # discover probe (MODERN.md §5.2, rec.): a modern tools/list right after the probe
        # makes sure the claim-less envelope errors below are judged in the modern era.
        self.take_caps(self.request("server/discover", "server/discover"))
        latch = self.request("tools/list (latches the modern era)", "tools/list")
        self.list_features(latch)
        # Envelope errors (MODERN.md §3.4).
        self.request("server/discover without _meta", "server/discover", {}, envelope=False,
                     expect=None, errors={-32602}, valid=False)
        self.request("tools/list without params", "tools/list", None, envelope=False,
                     expect=None, errors={-32602}, valid=False)
        self.request("tools/list without clientCapabilities", "tools/list",
                     {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}},
                     envelope=False, expect=None, errors={-32602}, valid=False)
        self.request("tools/list with protocolVersion 2099-01-01", "tools/list",
                     {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01",
                                "io.modelcontextprotocol/clientCapabilities": {}}},
                     envelope=False, expect=None, errors={-32022})
        # A claim-less initialize after the modern latch: an error that SHOULD name the
        # supported versions (MODERN.md §5.5, rec. -32022); the code is implementation-defined.
        self.request("initialize without an envelope (modern latched)", "initialize",
                     {"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": CLIENT_INFO}, envelope=False, expect=None,
                     errors=ANY_ERROR, valid=False)
        for m, params in (("initialize", {"protocolVersion": MODERN, "capabilities": {},
                                          "clientInfo": CLIENT_INFO}),
                          ("ping", None), ("logging/setLevel", {"level": "debug"}),
                          ("resources/subscribe", {"uri": "test://watched-resource"})):
            self.request(f"removed method {m} with an envelope", m, params, expect=None,
                         errors={-32601}, valid=False)
        # A listen stream for what the server declares: the watched resource (with
        # resources.subscribe) and the list changes (with <kind>.listChanged).
        listen_id = "sub-1"
        watched = "test://watched-resource"
        filt: dict[str, Any] = {f"{k}ListChanged": True for k in ("tools", "prompts", "resources")
                                if self.cap(k, "listChanged")}
        if not self.cap("resources", "subscribe"):
            no_updates = "no resources.subscribe capability declared"
        elif watched not in self.resources:
            no_updates = f"{watched} (the fixture's changing resource) is not listed"
        else:
            no_updates = None
            filt["resourceSubscriptions"] = [watched]
        no_listen = None if filt else ("nothing to listen for: no listChanged and no "
                                       "resources.subscribe capability declared")
        if no_listen:
            self.skip("subscriptions/listen", no_listen)
        else:
            self.request("subscriptions/listen", "subscriptions/listen",
                         {"notifications": filt}, rid=listen_id, wait=False)

        def acked() -> bool:
            return any(n.get("method") == "notifications/subscriptions/acknowledged"
                       for n in self.notes_by_step.get("subscriptions/listen", []))
        if no_listen:
            pass
        elif self.pump(acked, STEP_TIMEOUT_S):
            ack = [n for n in self.notes_by_step["subscriptions/listen"]
                   if n.get("method") == "notifications/subscriptions/acknowledged"][0]
            sid = ack.get("params", {}).get("_meta", {}).get("io.modelcontextprotocol/subscriptionId")
            if sid == listen_id:
                self.ok("subscriptions/listen acknowledged with its id")
            else:
                self.fail("subscriptions/listen acknowledged with its id",
                          f"subscriptionId {sid!r}, expected {listen_id!r}",
                          [f"received: {json.dumps(ack)}"])
        else:
            self.fail("subscriptions/listen acknowledged", "no acknowledgement")
        self.request("subscriptions/listen without a filter", "subscriptions/listen", {},
                     expect=None, errors={-32602}, valid=False)
        self.common_tools()
        # Logging is per request (MODERN.md §10.3).
        no_logging = None if self.cap("logging") else "no logging capability declared"
        no_log_tool = self.no_tool("test_tool_with_logging")
        if why := no_log_tool or no_logging:
            self.skip("tools/call test_tool_with_logging (logLevel debug)", why)
            self.skip("test_tool_with_logging logs with logLevel", why)
        else:
            self.request("tools/call test_tool_with_logging (logLevel debug)", "tools/call",
                         {"name": "test_tool_with_logging", "arguments": {}},
                         meta={"io.modelcontextprotocol/logLevel": "debug"})
            self.expect_notifications("test_tool_with_logging logs with logLevel",
                                      "tools/call test_tool_with_logging (logLevel debug)",
                                      "notifications/message", 3)
        step = "tools/call test_tool_with_logging (no logLevel)"
        if no_log_tool:
            self.skip(step, no_log_tool)
        else:
            self.request(step, "tools/call", {"name": "test_tool_with_logging", "arguments": {}})
            logs = [n for n in self.notes_by_step.get(step, [])
                    if n.get("method") == "notifications/message"]
            if logs:
                self.fail("no notifications/message without logLevel (MODERN.md §10.3 MUST NOT)",
                          f"got {len(logs)}", [f"received: {json.dumps(logs[0])}"])
            else:
                self.ok("no notifications/message without logLevel")
        if no_logging:
            self.skip("tools/call with logLevel loud", no_logging)
        else:
            self.request("tools/call with logLevel loud", "tools/call",
                         {"name": "echo", "arguments": {"text": "x"}},
                         meta={"io.modelcontextprotocol/logLevel": "loud"}, expect=None,
                         errors={-32602}, valid=False)
        # MRTR (MODERN.md §8) and the client-capability gate (-32021).
        if why := self.no_tool("test_elicitation"):
            self.skip("tools/call test_elicitation without elicitation", why)
        else:
            self.request("tools/call test_elicitation without elicitation", "tools/call",
                         {"name": "test_elicitation", "arguments": {"message": "Who?"}},
                         expect=None, errors={-32021})
        for tool, args, caps in (("test_elicitation", {"message": "Who are you?"}, {"elicitation": {}}),
                                 ("test_elicitation_sep1034_defaults", {}, {"elicitation": {}}),
                                 ("test_elicitation_sep1330_enums", {}, {"elicitation": {}}),
                                 ("test_sampling", {"prompt": "Say hi"}, {"sampling": {}})):
            if why := self.no_tool(tool):
                self.skip(f"tools/call {tool} (input_required, then a retry)", why)
            else:
                self.mrtr(tool, args, caps)
        self.common_content()
        self.common_errors()
        if no_listen:
            for what in ("subscriptions/listen delivers tagged notifications/resources/updated",
                         "subscriptions/listen (open at EOF)"):
                self.skip(what, no_listen)
            return
        # The listen stream: a tagged resources/updated, then cancel it.
        self.step = "waiting for resources/updated"
        if no_updates:
            self.skip("subscriptions/listen delivers tagged notifications/resources/updated",
                      no_updates)
        elif self.pump(lambda: bool(self.updates), UPDATE_WAIT_S):
            sid = self.updates[0].get("params", {}).get("_meta", {}).get(
                "io.modelcontextprotocol/subscriptionId")
            if sid == listen_id:
                self.ok("subscriptions/listen delivers tagged notifications/resources/updated")
            else:
                self.fail("subscriptions/listen delivers tagged notifications/resources/updated",
                          f"subscriptionId {sid!r}, expected {listen_id!r}",
                          [f"received: {json.dumps(self.updates[0])}"])
        else:
            self.fail("subscriptions/listen delivers notifications/resources/updated",
                      f"none within {UPDATE_WAIT_S:.0f} s")
        self.notify("cancel subscriptions/listen", "notifications/cancelled",
                    {"requestId": listen_id, "reason": "done"})
        self.settle(0.2)
        # A second stream left open at EOF: a closing SubscriptionsListenResult, if the
        # server sends one (MODERN.md §9.4 SHOULD), is validated while draining.
        self.request("subscriptions/listen (open at EOF)", "subscriptions/listen",
                     {"notifications": {next(iter(filt)): filt[next(iter(filt))]}},
                     rid="sub-2", wait=False)
        self.pump(lambda: any(n.get("method") == "notifications/subscriptions/acknowledged"
                              for n in self.notes_by_step.get("subscriptions/listen (open at EOF)", [])),
                  STEP_TIMEOUT_S)

    def finish_modern(self) -> None:
        p = self.pending.get(json.dumps("sub-2"))
        if p is not None and not p.done:
            self.note("note: no closing SubscriptionsListenResult for sub-2 at EOF (MODERN.md "
                      "§9.4 SHOULD on server shutdown); SubscriptionsListenResult not exercised")

    def mrtr(self, tool: str, args: dict, caps: dict) -> None:
        name = f"tools/call {tool}"
        first = self.request(name, "tools/call", {"name": tool, "arguments": args}, caps=caps,
                             allow_ir=True)
        result = (first.response or {}).get("result")
        if not isinstance(result, dict) or result.get("resultType") != "input_required":
            self.fail(f"{name} asks for input (input_required)",
                      f"got {shorten(json.dumps(first.response), 300)}")
            return
        responses = {}
        for key, r in (result.get("inputRequests") or {}).items():
            answer = client_answer(r.get("method"), r.get("params") or {}, self.rev)
            if answer is not None:
                self.self_check(f"our inputResponses[{key}]", CLIENT_RESULT_TYPE[r["method"]],
                                answer)
                responses[key] = answer
        params: dict[str, Any] = {"name": tool, "arguments": args, "inputResponses": responses}
        if "requestState" in result:
            params["requestState"] = result["requestState"]
        self.request(f"{name} retry with inputResponses", "tools/call", params, caps=caps)


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


# --- main ------------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(
        description="Validate a stdio MCP server's output against the official schemas.",
        usage="validate.py [--revision REV]... [-v] -- SERVER_CMD [ARGS...]")
    ap.add_argument("--revision", action="append", choices=REVISIONS,
                    help="only this revision (repeatable; default: all)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="also show every line sent (>) and received (<)")
    ap.add_argument("--timeout-scale", type=float, default=1.0, metavar="N",
                    help="multiply every timeout by N (slow servers, e.g. an emulated UART)")
    ap.add_argument("--features-off", default="", metavar="LIST",
                    help="comma-separated features the server lacks although no capability "
                         "says so: batches (JSON-RPC batches in 2025-03-26)")
    ap.add_argument("server", nargs=argparse.REMAINDER, help="the server command")
    args = ap.parse_args()
    if args.timeout_scale > 0:
        scale_timeouts(args.timeout_scale)
    features_off = frozenset(x.strip() for x in args.features_off.split(",") if x.strip())
    server = args.server[1:] if args.server[:1] == ["--"] else args.server
    if not server:
        ap.print_usage(sys.stderr)
        print("validate.py: a server command is needed after --", file=sys.stderr)
        return 2

    watchdog = threading.Timer(HARD_LIMIT_S, lambda: (
        print(f"not ok - watchdog: run exceeded {HARD_LIMIT_S:.0f} s", flush=True), os._exit(1)))
    watchdog.daemon = True
    watchdog.start()
    revs = args.revision or list(REVISIONS)
    results: dict[str, list[Check]] = {}

    def run(rev: str) -> None:
        try:
            schema = Schema(rev)
        except (OSError, ValueError, jsonschema.SchemaError) as e:
            results[rev] = [Check(False, f"not ok - {rev} load schema: {e}")]
            return
        results[rev] = Conversation(rev, schema, server, args.verbose, features_off).run()

    threads = [threading.Thread(target=run, args=(r,), daemon=True) for r in revs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    passed = failed = allowed = skipped = 0
    for rev in revs:
        for c in results.get(rev, [Check(False, f"not ok - {rev}: no result")]):
            if c.text:
                print(c.text)
                if c.skipped:
                    skipped += 1
                elif c.ok:
                    passed += 1
                    allowed += c.allowed
                else:
                    failed += 1
            for n in c.notes:
                print(f"#   {n}")
    if allowed:
        print(f"# {allowed} check(s) passed only through the allowlist (see ALLOWLIST)")
    print(f"{passed} passed, {failed} failed, {skipped} skipped", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
