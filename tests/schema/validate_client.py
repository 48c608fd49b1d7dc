#!/usr/bin/env python3
"""Validate what our CLIENT role (the probe) emits against the OFFICIAL JSON schema of each revision.

Usage (after tests/interop/setup.sh, which installs `jsonschema` into the venv, and
`cargo build --release --workspace`):

    target/interop/venv/bin/python tests/schema/validate_client.py [--revision REV]... [-v] \
        [--probe PATH] [--keep-logs DIR] [-- SERVER_CMD [ARGS...]]

SERVER_CMD defaults to `target/release/picomcp-demo`, the probe to
`target/release/picomcp-probe`; both run with the repository root as working directory.

For each revision in tests/schema/<revision>/schema.json the script runs the probe
(`--json`, plus `--protocol REV` for 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25;
2026-07-28 is what the probe negotiates by default through `server/discover`) with a
recording relay as its server command:

    validate_client.py --relay LOGFILE -- SERVER_CMD [ARGS...]

The relay spawns the real server, forwards the probe's stdin to it and its stdout back to
the probe byte for byte (stderr is inherited), appends every line the probe wrote to
LOGFILE and every line the server wrote to LOGFILE.s2c. When the probe closes stdin the
relay closes the server's stdin, waits for the server and exits with its status (and
exits as soon as the server does), so the probe's exit-after-EOF check sees the server.

Then it requires that the probe exited 0 and negotiated the revision (`server.protocol`
of the `--json` summary; if not, that is the revision's failure and its lines are not
validated against a schema they were not written for), and validates EVERY line the
probe wrote:

  * a complete, newline-terminated line of UTF-8 JSON (a JSON array is a batch: the whole
    against the union, then each member as below);
  * against the revision's JSON-RPC message union (`JSONRPCMessage`);
  * a request: `JSONRPCRequest`, `ClientRequest` and its own type by method
    (`InitializeRequest`, `PingRequest`, `CallToolRequest`, `DiscoverRequest`, ...);
  * a notification: `JSONRPCNotification`, `ClientNotification` and its own type
    (`InitializedNotification`, `CancelledNotification`, `ProgressNotification`,
    `RootsListChangedNotification`, ...);
  * a method with no client type in that revision is a failure ("unknown method"), never
    a skip;
  * a result response: `JSONRPCResponse` / `JSONRPCResultResponse`, and its `result`
    against `ClientResult` and the result type of the server request it answers
    (`ListRootsResult`, `CreateMessageResult`, `ElicitResult`, `EmptyResult` for ping),
    matched by id with the server-to-client requests recorded in LOGFILE.s2c; a response
    to no server request is a failure;
  * an error response: `JSONRPCError` / `JSONRPCErrorResponse`, the `Error` object where
    the schema has one, and (2026-07-28) the error type of its code (`ParseError`,
    `InvalidParamsError`, ...).

2026-07-28 has no server-to-client requests: the server's requests come embedded in an
`input_required` result (`inputRequests`) and the client answers them in `inputResponses`
of a retry. Each retry is matched to the `input_required` result (recorded in
LOGFILE.s2c) of the earlier request with the same method and params, and each answer is
validated against the result type of its embedded request's method, by key
(`CreateMessageResult`, `ElicitResult`, ...), besides the request's own schema check.

Also failures: a server request (or `input_required` result) that the probe never
answered, so the response checks cannot pass vacuously. Schema access, type tables and error descriptions come from
validate.py's modules (schema_access.py, type_tables.py); a failure that an allowance of
allowlist.py explains is counted as allowed.

Output: per revision `ok REV: N lines validated (k requests, m notifications, r
responses)` or `not ok REV: ...` followed by `#` lines (the offending line, the schema
type and the best-matching jsonschema error), then `N passed, M failed`. Exit status 0
only if every revision passed, 1 otherwise, 2 on a usage error. Takes about a second.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


# --- The recording relay (no jsonschema import here: it must start fast) -------------------

def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


class _LineLog:
    """Appends complete lines to a file; a last line without a newline is written as is."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.buf = b""
        self.closed = False

    def feed(self, data: bytes) -> None:
        if self.closed:  # the relay is exiting (the server is gone)
            return
        self.buf += data
        cut = self.buf.rfind(b"\n")
        if cut >= 0:
            _write_all(self.fd, self.buf[:cut + 1])
            self.buf = self.buf[cut + 1:]

    def close(self) -> None:
        if self.buf:
            _write_all(self.fd, self.buf)
            self.buf = b""
        self.closed = True
        os.close(self.fd)


def _die_with_parent():
    """Linux: a preexec_fn that has the server get SIGKILL when the relay dies (e.g. when
    the probe kills it); None elsewhere. Resolved before the fork."""
    try:
        import ctypes
        import signal
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None
    kill = int(signal.SIGKILL)
    return lambda: prctl(1, kill)  # PR_SET_PDEATHSIG


def relay(log: str, argv: list[str]) -> int:
    import signal
    import subprocess
    import threading

    try:
        server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  bufsize=0, preexec_fn=_die_with_parent())
    except OSError as e:
        print(f"validate_client.py --relay: cannot start {argv[0]}: {e}", file=sys.stderr)
        return 127

    def forward_signal(sig, _frame):
        if server.poll() is None:
            server.send_signal(sig)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward_signal)

    c2s, s2c = _LineLog(log), _LineLog(log + ".s2c")
    lock = threading.Lock()  # both logs are closed once, at the end

    def pump_in() -> None:  # probe -> server
        assert server.stdin is not None
        broken = False
        while True:
            try:
                data = os.read(0, 65536)
            except OSError:
                data = b""
            if not data:
                break
            with lock:
                c2s.feed(data)
            if not broken:
                try:
                    _write_all(server.stdin.fileno(), data)
                except OSError:  # the server is gone; keep recording what the probe writes
                    broken = True
        try:
            server.stdin.close()
        except OSError:
            pass

    threading.Thread(target=pump_in, daemon=True).start()
    assert server.stdout is not None
    out = server.stdout.fileno()
    while True:  # server -> probe
        try:
            data = os.read(out, 65536)
        except OSError:
            data = b""
        if not data:
            break
        with lock:
            s2c.feed(data)
        try:
            _write_all(1, data)
        except OSError:
            pass
    rc = server.wait()
    with lock:
        c2s.close()
        s2c.close()
    if rc < 0:  # killed by a signal: die the same way
        signal.signal(-rc, signal.SIG_DFL)
        os.kill(os.getpid(), -rc)
        return 128 - rc
    return rc


# --- Validation ----------------------------------------------------------------------------

def kind_types(s, rev: str) -> dict[str, str]:
    """The schema's names for the message kinds (they were renamed in 2025-11-25)."""
    result = "JSONRPCResultResponse" if s.has("JSONRPCResultResponse") else "JSONRPCResponse"
    error = "JSONRPCErrorResponse" if s.has("JSONRPCErrorResponse") else "JSONRPCError"
    return {"request": "JSONRPCRequest", "notification": "JSONRPCNotification",
            "result": result, "error": error}


def union_members(s, name: str) -> set[str]:
    """The definitions a union (`ClientRequest`, ...) admits; a bare `$ref` or a single
    definition (2026-07-28 `ClientNotification` is CancelledNotification itself) counts."""
    d = s.defs.get(name)
    if d is None:
        return set()
    refs = d.get("anyOf") or d.get("oneOf") or ([d] if "$ref" in d else None)
    if refs is None:
        return {name}
    return {r["$ref"].rsplit("/", 1)[-1] for r in refs if "$ref" in r}


def method_const(s, name: str):
    return s.defs.get(name, {}).get("properties", {}).get("method", {}).get("const")


def method_table(s, union: str) -> dict[str, str]:
    """method -> type name for every member of `union` (read from the `method` const).
    When the union is a single definition (2026-07-28 `ClientNotification`), the method
    maps to the other definition with the same shape (`CancelledNotification`)."""
    table: dict[str, str] = {}
    for name in union_members(s, union):
        const = method_const(s, name)
        if not isinstance(const, str):
            continue
        if name == union:
            twins = [n for n in s.defs if n != union and method_const(s, n) == const
                     and s.defs[n] == s.defs[union]]
            name = twins[0] if twins else name
        table[const] = name
    return table


class RevisionCheck:
    def __init__(self, rev: str, s, v) -> None:
        self.rev, self.s, self.v = rev, s, v
        self.kinds = kind_types(s, rev)
        self.requests = method_table(s, "ClientRequest")
        self.notifications = method_table(s, "ClientNotification")
        self.failures: list[tuple[str, list[str]]] = []
        self.counts = {"request": 0, "notification": 0, "response": 0}
        self.lines = 0
        self.server_requests: dict[str, list[str]] = {}   # json id -> methods, FIFO
        self.server_results: dict[str, Any] = {}          # json id -> result (MRTR)
        self.mrtr_open: list[dict] = []                   # input_required not yet retried
        self.input_responses = 0
        self.answered: dict[str, int] = {}
        self.by_type: dict[str, int] = {}

    def fail(self, what: str, line: str, notes: list[str]) -> None:
        self.failures.append((what, [f"line: {self.v.shorten(line, 600)}"] + notes))

    def check(self, name: str, instance, line: str, what: str, base: str = "") -> bool:
        if not self.s.has(name):
            self.fail(what, line, [f"the {self.rev} schema has no type {name}"])
            return False
        errs = self.s.errors(name, instance)
        if errs and not self.allowed(name, instance):
            self.fail(what, line, [self.v.describe(name, errs, base, root=self.s.root)])
            return False
        self.by_type[name] = self.by_type.get(name, 0) + 1
        return True

    def allowed(self, name: str, instance) -> bool:
        """A documented schema-vs-spec discrepancy (validate.ALLOWLIST) explains the
        errors: the instance as the schema would have it validates."""
        for a in self.v.ALLOWLIST:
            if self.rev in a.revisions and name in a.types and a.applies(instance) \
                    and not self.s.errors(name, a.patch(instance)):
                self.allowed_count = getattr(self, "allowed_count", 0) + 1
                return True
        return False

    # -- the server -> probe direction: only its requests' ids and methods --

    def read_server(self, text: str) -> None:
        import json
        for raw in text.splitlines():
            try:
                m = json.loads(raw)
            except ValueError:
                continue
            for item in (m if isinstance(m, list) else [m]):
                if not isinstance(item, dict) or "id" not in item:
                    continue
                key = json.dumps(item["id"], sort_keys=True)
                if "method" in item:
                    self.server_requests.setdefault(key, []).append(str(item["method"]))
                elif "result" in item:
                    self.server_results[key] = item["result"]

    # -- the probe -> server direction: every line --

    def validate_log(self, data: bytes) -> None:
        import json
        if not data:
            self.failures.append(("the probe wrote nothing", []))
            return
        lines = data.split(b"\n")
        if lines[-1] == b"":
            lines.pop()
        else:
            self.fail("last line not terminated by a newline", lines[-1].decode("utf-8", "replace"), [])
            lines.pop()
        pending = {k: list(v) for k, v in self.server_requests.items()}
        for raw in lines:
            self.lines += 1
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                self.fail("not UTF-8", raw.decode("utf-8", "replace"), [str(e)])
                continue
            try:
                msg = json.loads(line)
            except ValueError as e:
                self.fail("not JSON", line, [str(e)])
                continue
            self.check("JSONRPCMessage", msg, line, "JSON-RPC message union")
            if isinstance(msg, list):
                if not msg:
                    self.fail("empty batch", line, [])
                for i, item in enumerate(msg):
                    self.message(item, line, pending, f"$[{i}]")
            else:
                self.message(msg, line, pending, "")
        for key, methods in pending.items():
            for method in methods:
                self.failures.append((f"server request id {key} ({method}) never answered", []))
        for o in self.mrtr_open:
            self.failures.append((f"input_required result to request id {o['id']} "
                                  f"({o['method']}) never answered by a retry with "
                                  "inputResponses", []))

    @staticmethod
    def identity(msg: dict) -> str:
        """What a retry repeats: the method and the params without the MRTR and envelope
        members."""
        import json
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        rest = {k: v for k, v in params.items()
                if k not in ("inputResponses", "requestState", "_meta")}
        return json.dumps([msg.get("method"), rest], sort_keys=True)

    def mrtr(self, msg: dict, line: str, at: str, base: str) -> None:
        """2026-07-28 multi-round-trip requests: the server's requests arrive embedded in
        an `input_required` result (`inputRequests`), the client answers them in
        `inputResponses` of a retry. Each answer is validated against the result type of
        the embedded request's method, matched by its key."""
        import json
        params = msg.get("params")
        if isinstance(params, dict) and "inputResponses" in params:
            ident = self.identity(msg)
            opened = next((o for o in reversed(self.mrtr_open) if o["identity"] == ident), None)
            answers = params["inputResponses"]
            if opened is None:
                self.fail(f"inputResponses{at} in a request that retries no input_required "
                          "result", line, [])
            elif isinstance(answers, dict):
                self.mrtr_open.remove(opened)
                asked = opened["requests"]
                if opened["state"] is not None and params.get("requestState") != opened["state"]:
                    self.fail(f"retry{at} of request id {opened['id']} does not echo its "
                              f"requestState {opened['state']!r}", line, [])
                for k, answer in answers.items():
                    self.input_responses += 1
                    req = asked.get(k)
                    method = req.get("method") if isinstance(req, dict) else None
                    name = self.v.CLIENT_RESULT_TYPE.get(method) if isinstance(method, str) else None
                    where = f"{base or '$'}.params.inputResponses.{k}"
                    if req is None:
                        self.fail(f"inputResponses key {k!r}{at}: the input_required result to "
                                  f"request id {opened['id']} asked no such input", line, [])
                    elif name is None:
                        self.fail(f"inputResponses key {k!r}{at}: no client result type for "
                                  f"the embedded request method {method!r}", line, [])
                    else:
                        self.check(name, answer, line, f"{name} (inputResponses.{k}){at}", where)
                for k in asked:
                    if k not in answers:
                        self.fail(f"retry{at} of request id {opened['id']} leaves input "
                                  f"request {k!r} unanswered", line, [])
        key = json.dumps(msg.get("id"), sort_keys=True)
        result = self.server_results.get(key)
        if isinstance(result, dict) and result.get("resultType") == "input_required" \
                and isinstance(result.get("inputRequests"), dict):
            self.mrtr_open.append({"id": key, "method": msg.get("method"),
                                   "identity": self.identity(msg),
                                   "requests": result["inputRequests"],
                                   "state": result.get("requestState")})

    def declared(self, msg: dict, line: str, at: str) -> None:
        """Strict on output (docs/DESIGN.md "Our capabilities by revision"): the client
        capabilities a request declares (`initialize`'s, or the 2026-07-28 envelope's)
        hold only the members this revision's ClientCapabilities defines."""
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        caps = meta.get("io.modelcontextprotocol/clientCapabilities", params.get("capabilities"))
        extra = self.s.undefined_members("ClientCapabilities", caps) if caps is not None else []
        if extra:
            self.fail(f"capabilities{at} not in the {self.rev} schema: {', '.join(extra)}",
                      line, [])

    def message(self, msg, line: str, pending: dict, where: str) -> None:
        import json
        at = f" {where}" if where else ""
        base = where or ""
        if not isinstance(msg, dict):
            self.fail(f"not a JSON-RPC object{at}", line, [])
            return
        if "method" in msg:
            method = msg["method"]
            if "id" in msg:
                self.counts["request"] += 1
                self.check(self.kinds["request"], msg, line, f"{self.kinds['request']}{at}", base)
                self.check("ClientRequest", msg, line, f"ClientRequest{at}", base)
                name = self.requests.get(method) if isinstance(method, str) else None
                if name is None:
                    self.fail(f"unknown method {method!r}{at}: no ClientRequest type in {self.rev}",
                              line, [])
                else:
                    self.check(name, msg, line, f"{name}{at}", base)
                self.mrtr(msg, line, at, base)
                self.declared(msg, line, at)
            else:
                self.counts["notification"] += 1
                self.check(self.kinds["notification"], msg, line,
                           f"{self.kinds['notification']}{at}", base)
                self.check("ClientNotification", msg, line, f"ClientNotification{at}", base)
                name = self.notifications.get(method) if isinstance(method, str) else None
                if name is None:
                    self.fail(f"unknown notification method {method!r}{at}: no "
                              f"ClientNotification type in {self.rev}", line, [])
                else:
                    self.check(name, msg, line, f"{name}{at}", base)
            return
        if "result" in msg or "error" in msg:
            self.counts["response"] += 1
            key = json.dumps(msg.get("id"), sort_keys=True)
            queue_ = pending.get(key)
            server_method = queue_.pop(0) if queue_ else None
            if queue_ == []:
                del pending[key]
            if "id" in msg and server_method is None:
                self.fail(f"response{at} to id {key}, which no server request carries", line, [])
            if "result" in msg and "error" not in msg:
                kind = self.kinds["result"]
                self.check(kind, msg, line, f"{kind}{at}", base)
                result = msg.get("result")
                rbase = f"{base or '$'}.result"
                if self.s.has("ClientResult"):
                    self.check("ClientResult", result, line, f"ClientResult{at}", rbase)
                if server_method is not None:
                    name = self.v.CLIENT_RESULT_TYPE.get(server_method)
                    if name is None:
                        self.fail(f"result{at} for server method {server_method!r}: no known "
                                  "client result type", line, [])
                    else:
                        self.check(name, result, line, f"{name}{at}", rbase)
            else:
                kind = self.kinds["error"]
                self.check(kind, msg, line, f"{kind}{at}", base)
                err = msg.get("error")
                ebase = f"{base or '$'}.error"
                if self.s.has("Error"):
                    self.check("Error", err, line, f"Error{at}", ebase)
                code = err.get("code") if isinstance(err, dict) else None
                name = self.v.ERROR_TYPE_BY_CODE.get(code) if isinstance(code, int) else None
                if name and self.s.has(name):
                    if self.s.is_full_message(name):
                        self.check(name, msg, line, f"{name}{at}", base)
                    else:
                        self.check(name, err, line, f"{name}{at}", ebase)
            return
        self.fail(f"neither request, notification nor response{at}", line, [])


# --- Driving the probe ---------------------------------------------------------------------

def report(rev: str, failures: list[tuple[str, list[str]]], counts: str) -> list[str]:
    if not failures:
        return [f"ok {rev}: {counts}"]
    out = [f"not ok {rev}: {len(failures)} failure(s)" + (f"; {counts}" if counts else "")]
    for what, notes in failures:
        out.append(f"#   {what}")
        out.extend(f"#     {n}" for n in notes)
    return out


def run_revision(rev: str, s, v, probe: str, server: list[str], logdir: str,
                 timeout: float, verbose: bool) -> tuple[bool, list[str]]:
    import json
    import subprocess

    log = os.path.join(logdir, f"{rev}.jsonl")
    for p in (log, log + ".s2c"):
        if os.path.exists(p):
            os.unlink(p)
    relay_cmd = [sys.executable, os.path.abspath(__file__), "--relay", log, "--"] + server
    argv = [probe, "--json"] + ([] if rev == v.MODERN else ["--protocol", rev]) + ["--"] + relay_cmd
    failures: list[tuple[str, list[str]]] = []
    try:
        p = subprocess.run(argv, cwd=REPO, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, [f"not ok {rev}: the probe did not finish within {timeout:.0f} s"]
    except OSError as e:
        return False, [f"not ok {rev}: cannot start the probe: {e}"]
    try:
        summary = json.loads(p.stdout)
    except ValueError:
        summary = None
    if p.returncode != 0:
        notes = []
        if isinstance(summary, dict):
            for c in summary.get("checks", []):
                if c.get("status") not in ("ok", "skipped"):
                    notes.append(f"probe check {c.get('section')}/{c.get('name')}: "
                                 f"{c.get('status')} {c.get('detail', '')}")
            for x in summary.get("violations", []) or []:
                notes.append(f"probe violation: {json.dumps(x)}")
        notes += [f"probe stderr: {l}" for l in p.stderr.decode("utf-8", "replace").splitlines()[-10:]]
        failures.append((f"the probe exited {p.returncode}", notes))
    negotiated = (summary or {}).get("server", {}).get("protocol") if isinstance(summary, dict) else None
    if negotiated != rev:  # the lines are no conversation in `rev`: validating them is noise
        failures.append((f"the probe negotiated {negotiated!r}, not {rev}; lines not validated",
                         []))
        return False, report(rev, failures, "")

    check = RevisionCheck(rev, s, v)
    try:
        with open(log + ".s2c", "rb") as f:
            check.read_server(f.read().decode("utf-8", "replace"))
    except OSError:
        pass
    try:
        with open(log, "rb") as f:
            data = f.read()
    except OSError as e:
        data = b""
        failures.append((f"no relay log ({e})", []))
    check.validate_log(data)
    failures += check.failures
    c = check.counts
    counts = (f"{check.lines} lines validated ({c['request']} requests, "
              f"{c['notification']} notifications, {c['response']} responses)")
    if check.input_responses:
        counts += f", {check.input_responses} inputResponses validated"
    out = report(rev, failures, counts)
    if verbose:
        out.append("#   types validated: " + ", ".join(
            f"{k} x{n}" for k, n in sorted(check.by_type.items())))
    return not failures, out


def main(argv: list[str]) -> int:
    import argparse
    import shutil
    import tempfile
    from concurrent.futures import ThreadPoolExecutor

    if argv[:1] == ["--relay"]:
        if len(argv) < 4 or argv[2] != "--":
            print("usage: validate_client.py --relay LOGFILE -- SERVER_CMD [ARGS...]",
                  file=sys.stderr)
            return 2
        return relay(argv[1], argv[3:])

    sys.path.insert(0, HERE)
    # Schema access, error descriptions, the type tables and the allowlist: validate.py's modules.
    import allowlist
    import schema_access
    import type_tables
    v = SimpleNamespace(Schema=schema_access.Schema, REVISIONS=schema_access.REVISIONS,
                        MODERN=schema_access.MODERN, describe=schema_access.describe,
                        shorten=schema_access.shorten, ALLOWLIST=allowlist.ALLOWLIST,
                        CLIENT_RESULT_TYPE=type_tables.CLIENT_RESULT_TYPE,
                        ERROR_TYPE_BY_CODE=type_tables.ERROR_TYPE_BY_CODE)

    server: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, server = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(prog="validate_client.py", description=__doc__.split("\n")[0])
    ap.add_argument("--revision", action="append", choices=v.REVISIONS)
    ap.add_argument("--probe", default=os.path.join(REPO, "target/release/picomcp-probe"))
    ap.add_argument("--keep-logs", metavar="DIR", help="write the relay logs here and keep them")
    ap.add_argument("--timeout", type=float, default=60.0, help="per probe run, seconds")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="also list how often each schema type was validated")
    args = ap.parse_args(argv)
    if not server:
        server = [os.path.join(REPO, "target/release/picomcp-demo")]
    elif not os.path.isabs(server[0]) and os.path.exists(os.path.join(REPO, server[0])):
        server[0] = os.path.join(REPO, server[0])
    for path in (args.probe, server[0]):
        if os.sep in path and not os.path.exists(path):
            print(f"validate_client.py: {path} does not exist (cargo build --release --workspace)",
                  file=sys.stderr)
            return 2
    revs = args.revision or list(v.REVISIONS)
    schemas = {rev: v.Schema(rev) for rev in revs}
    logdir = args.keep_logs or tempfile.mkdtemp(prefix="picomcp-client-schema-")
    os.makedirs(logdir, exist_ok=True)
    try:
        with ThreadPoolExecutor(max_workers=len(revs)) as pool:
            futures = {rev: pool.submit(run_revision, rev, schemas[rev], v, args.probe, server,
                                        logdir, args.timeout, args.verbose) for rev in revs}
            results = {rev: f.result() for rev, f in futures.items()}
    finally:
        if not args.keep_logs:
            shutil.rmtree(logdir, ignore_errors=True)
    passed = failed = 0
    for rev in revs:
        ok, lines = results[rev]
        for line in lines:
            print(line)
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
