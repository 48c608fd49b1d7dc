"""One revision's conversation with the server: the report it builds (`Check`s), the
requests it has sent and their expected answers (`Pending`), and `Conversation`, which
sends, waits, and validates every line the server writes against the revision's schema
(the message union and kind, the result type of the request answered, the notification or
server request type, the error type by code), answering the server's requests as it goes.
What is said in it is conversation_script.py's."""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import timeouts
from allowlist import ALLOWLIST
from client_answers import client_answer
from schema_access import MODERN, Schema, describe, shorten
from server_process import EOF, TIMEOUT, Process
from type_tables import (CLIENT_RESULT_TYPE, ERROR_TYPE_BY_CODE, MRTR_METHODS,
                         NOTIFICATION_TYPE, REQUEST_TYPE, RESULT_TYPE, SERVER_REQUEST_TYPE)

CLIENT_INFO = {"name": "picomcp-schema-validate", "version": "0.1.0"}
ANY_ERROR = frozenset({"any"})  # `errors=ANY_ERROR`: any error code is acceptable


@dataclass
class Check:
    ok: bool
    text: str
    notes: list[str] = field(default_factory=list)
    allowed: bool = False
    skipped: bool = False


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
    """The machinery of one revision's conversation. The script itself (`legacy_conversation`,
    `modern_conversation`, `finish_modern`, which `run` and `finish` call) is a subclass's:
    conversation_script.ScriptedConversation."""

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
            # Strict on output (docs/DESIGN.md "Our capabilities by revision"): only the
            # members this revision's ServerCapabilities defines.
            extra = self.s.undefined_members("ServerCapabilities", caps)
            what = f"{p.method} capabilities hold only {self.rev}'s members"
            if extra:
                self.fail(what, "not in the schema: " + ", ".join(extra))
            else:
                self.ok(what)
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
            if time.monotonic() - self.start > timeouts.REVISION_BUDGET_S:
                raise Aborted(f"revision budget of {timeouts.REVISION_BUDGET_S:.0f} s used up")
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
            timeout = timeouts.STEP_TIMEOUT_S
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
        deadline = time.monotonic() + timeouts.DRAIN_TIMEOUT_S
        while True:
            item = self.proc.get(deadline - time.monotonic())
            if item is EOF:
                break
            if item is TIMEOUT:
                self.fail("exit on EOF", f"stdout still open {timeouts.DRAIN_TIMEOUT_S:.0f} s after EOF")
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
