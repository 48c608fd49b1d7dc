"""What validate.py says to the server in one revision's conversation: the legacy script
(initialize, the features the server declares, the tools, content, subscriptions, errors,
a batch in 2025-03-26) and the 2026-07-28 one (server/discover, the `_meta` envelope and
its errors, subscriptions/listen, per-request logLevel, MRTR), as a `Conversation` whose
`run` calls them."""

from __future__ import annotations

import json
import re
from typing import Any, Callable

import timeouts
from client_answers import client_answer
from conversation import ANY_ERROR, CLIENT_INFO, Conversation, Pending
from schema_access import MODERN, shorten, ver_ge
from type_tables import CLIENT_RESULT_TYPE


class ScriptedConversation(Conversation):
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
        if self.pump(lambda: bool(self.updates), timeouts.UPDATE_WAIT_S):
            self.ok("resources/subscribe delivers notifications/resources/updated")
        else:
            self.fail("resources/subscribe delivers notifications/resources/updated",
                      f"none within {timeouts.UPDATE_WAIT_S:.0f} s")
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
        elif self.pump(acked, timeouts.STEP_TIMEOUT_S):
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
        elif self.pump(lambda: bool(self.updates), timeouts.UPDATE_WAIT_S):
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
                      f"none within {timeouts.UPDATE_WAIT_S:.0f} s")
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
                  timeouts.STEP_TIMEOUT_S)

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
