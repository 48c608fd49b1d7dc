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
import os
import sys
import threading

import timeouts
from conversation import Check
from conversation_script import ScriptedConversation
from schema_access import REVISIONS, Schema, jsonschema

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
        timeouts.scale(args.timeout_scale)
    features_off = frozenset(x.strip() for x in args.features_off.split(",") if x.strip())
    server = args.server[1:] if args.server[:1] == ["--"] else args.server
    if not server:
        ap.print_usage(sys.stderr)
        print("validate.py: a server command is needed after --", file=sys.stderr)
        return 2

    watchdog = threading.Timer(timeouts.HARD_LIMIT_S, lambda: (
        print(f"not ok - watchdog: run exceeded {timeouts.HARD_LIMIT_S:.0f} s", flush=True), os._exit(1)))
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
        results[rev] = ScriptedConversation(rev, schema, server, args.verbose, features_off).run()

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
