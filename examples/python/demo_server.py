"""picomcp-demo-python: the demo server (../../../shared/DEMO_SERVER.md) on the Python binding.

The same contract as the Rust reference (examples/src/bin/picomcp-demo/), written with
the binding's high-level helper ``picomcp.Server``: tools ``echo``, ``add``, ``sleep``
and the official conformance fixture (``test_*`` tools and prompts, ``test://``
resources, completions, logging), over stdio or Streamable HTTP, in both protocol eras.

    python examples/python/demo_server.py [--max-line BYTES] [--log-level LEVEL]
    python examples/python/demo_server.py --http 127.0.0.1:8000   # http://127.0.0.1:8000/mcp

Over HTTP the helper's ``app.asgi()`` (an ASGI application) runs under uvicorn.

    python examples/python/demo_server.py --http 127.0.0.1:8000 --auth-issuer URL \
        [--auth-jwks URL] [--auth-resource URL] [--auth-required SCOPES]

makes it an OAuth 2.1 protected resource: Bearer JWTs from that issuer, verified with
PyJWT (``PyJWKClient`` on the issuer's ``jwks_uri``); the core checks audience (default
``http://ADDR/mcp``), expiry and scopes (every request ``mcp``; ``sleep`` also
``mcp:admin``). Needs ``pip install "PyJWT[crypto]"`` (bindings/python/build.sh does).

Set up with ``bindings/python/build.sh`` (it prints the Python to run this with).
"""

import asyncio
import json
import os
import sys

from picomcp import McpError, SendError, Server, ToolError, __version__

# A 1x1 red PNG, and one millisecond of silence as WAV (8 samples, 8-bit mono, 8 kHz).
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC"
WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="
WATCHED = "test://watched-resource"
WATCH_PERIOD_S = 3.0
NO_ARGS = {"type": "object", "additionalProperties": False}



def state_key():
    """The ``requestState`` sealing key: ``PICOMCP_STATE_KEY`` (64 hex digits), which
    processes behind one load balancer share, as the Rust demo's; else the helper draws
    32 random bytes."""
    key = os.environ.get("PICOMCP_STATE_KEY")
    if key is None:
        return None
    try:
        if len(key) == 64:
            return bytes.fromhex(key)
    except ValueError:
        pass
    raise SystemExit("PICOMCP_STATE_KEY must be 64 hex digits (32 bytes)")


app = Server(
    "picomcp-demo-python", __version__,
    instructions="picomcp demo server (Python). Tools: echo (returns its text), add (sums "
    "two numbers, structured output), sleep (waits, with progress and cancellation), and "
    "the MCP conformance fixture (test_* tools and prompts, test:// resources).",
    state_key=state_key())


def text(t):
    return {"type": "text", "text": t}


def image():
    return {"type": "image", "data": PNG, "mimeType": "image/png"}


def embedded(uri, mime, body):
    return {"type": "resource", "resource": {"uri": uri, "mimeType": mime, "text": body}}


# ---- tools ----

@app.tool(title="Echo", description="Returns `text` unchanged, as one text block.",
          input_schema={"type": "object", "properties": {
              "text": {"type": "string", "description": "The text to return"}},
              "required": ["text"]}, inline=True)
def echo(args, ctx):
    return args["text"]


@app.tool(title="Add", description="Adds two numbers; the sum is returned as structured "
          "content {\"sum\": a+b} and as JSON text.",
          input_schema={"type": "object", "properties": {
              "a": {"type": "number", "description": "First addend"},
              "b": {"type": "number", "description": "Second addend"}},
              "required": ["a", "b"]},
          output_schema={"type": "object", "properties": {
              "sum": {"type": "number", "description": "a + b"}}, "required": ["sum"]})
def add(args, ctx):
    total = args["a"] + args["b"]
    if total in (float("inf"), float("-inf")):
        raise ToolError("The sum is too large to represent")
    # Structured content: the core checks it against the outputSchema and also sends it
    # as a JSON text block.
    return {"sum": total}


@app.tool(title="Sleep", description="Waits `ms` milliseconds, then returns \"slept\". With a "
          "progress token it reports progress `steps` times (default 1), spread over the "
          "wait. Cancellable.",
          input_schema={"type": "object", "properties": {
              "ms": {"type": "integer", "minimum": 0, "maximum": 60000,
                     "description": "How long to wait, in milliseconds"},
              "steps": {"type": "integer", "minimum": 0, "maximum": 10000,
                        "description": "How many progress notifications to send when a "
                        "progress token is given (default 1)"}},
              "required": ["ms"]},
          scopes="mcp:admin")  # only under --auth-issuer: a basic token neither sees nor calls it
async def sleep(args, ctx):
    ms, steps = int(args["ms"]), args.get("steps")
    steps = 1 if steps is None else int(steps)
    if not ctx.wants_progress or steps == 0:
        await asyncio.sleep(ms / 1000)
        return "slept"
    # Step k at k/(steps+1) of the wait, so the last one is not glued to the answer; on
    # deadlines from the start, so that many steps do not stretch the wait.
    loop = asyncio.get_running_loop()
    start = loop.time()
    for i in range(1, steps + 2):
        await asyncio.sleep(max(0.0, start + ms / 1000 * i / (steps + 1) - loop.time()))
        if i <= steps:
            ctx.progress(i, steps)
    return "slept"


@app.tool(title="Simple text", description="Returns a simple text block (conformance fixture).",
          input_schema=NO_ARGS)
def test_simple_text(args, ctx):
    return "This is a simple text response for testing."


@app.tool(title="Image content", description="Returns a 1x1 PNG image block (conformance "
          "fixture).", input_schema=NO_ARGS)
def test_image_content(args, ctx):
    return [image()]


@app.tool(title="Audio content", description="Returns a short WAV audio block (conformance "
          "fixture).", input_schema=NO_ARGS)
def test_audio_content(args, ctx):
    if ctx.version == "2024-11-05":
        raise ToolError("Audio content needs protocol revision 2025-03-26 or later")
    return [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]


@app.tool(title="Embedded resource", description="Returns an embedded text resource "
          "(conformance fixture).", input_schema=NO_ARGS)
def test_embedded_resource(args, ctx):
    return [embedded("test://embedded-resource", "text/plain",
                     "This is an embedded resource content.")]


@app.tool(title="Multiple content types", description="Returns text, image and embedded "
          "resource blocks (conformance fixture).", input_schema=NO_ARGS)
def test_multiple_content_types(args, ctx):
    return [text("Multiple content types test:"), image(),
            embedded("test://mixed-content-resource", "application/json",
                     '{"test":"data","value":123}')]


@app.tool(title="Tool with logging", description="Sends three info log messages about 50 ms "
          "apart while it runs (conformance fixture).", input_schema=NO_ARGS)
async def test_tool_with_logging(args, ctx):
    for i, line in enumerate(("Tool execution started", "Tool processing data",
                              "Tool execution completed")):
        if i:
            await asyncio.sleep(0.05)
        ctx.log("info", line, logger="picomcp-demo")
    return "Tool with logging executed successfully"


@app.tool(title="Tool with progress", description="Reports progress 0, 50 and 100 of 100, "
          "about 50 ms apart (conformance fixture).", input_schema=NO_ARGS)
async def test_tool_with_progress(args, ctx):
    for i, p in enumerate((0, 50, 100)):
        if i:
            await asyncio.sleep(0.05)
        ctx.progress(p, 100)
    return "Tool with progress executed successfully"


@app.tool(title="Error handling", description="Always fails with a tool execution error, "
          "isError: true (conformance fixture).", input_schema=NO_ARGS)
def test_error_handling(args, ctx):
    raise ToolError("This tool intentionally returns an error for testing")


async def ask(ctx, method, params, failed, **how):
    """A question for the client; a refusal or failure becomes a tool error."""
    try:
        return await ctx.ask(method, params, **how)
    except SendError as e:
        raise ToolError("Cannot ask the client (%s): %s" % (method, e))
    except McpError as e:
        raise ToolError("%s failed: %s" % (failed, e.message))


async def ask_all(ctx, questions, **how):
    """Several questions at once; a refusal or failure becomes a tool error."""
    try:
        return await ctx.ask_all(questions, **how)
    except SendError as e:
        raise ToolError("Cannot ask the client: %s" % e)
    except McpError as e:
        raise ToolError("A question failed: %s" % e.message)


@app.tool(title="Sampling", description="Asks the client's LLM to answer `prompt` "
          "(sampling/createMessage) and returns the answer (conformance fixture).",
          input_schema={"type": "object", "properties": {
              "prompt": {"type": "string", "description": "The prompt to send to the LLM"}},
              "required": ["prompt"]})
async def test_sampling(args, ctx):
    result = await ask(ctx, "sampling/createMessage", {
        "messages": [{"role": "user", "content": text(args["prompt"])}], "maxTokens": 100},
        "Sampling")
    content = result.get("content")
    blocks = content if isinstance(content, list) else [content]
    first = next((b.get("text") for b in blocks
                  if isinstance(b, dict) and b.get("type") == "text"), None)
    return "LLM response: %s" % (first if first is not None
                                 else json.dumps(content, separators=(",", ":")))


ELICIT_BASIC = {"type": "object", "properties": {
    "username": {"type": "string", "description": "User's response"},
    "email": {"type": "string", "description": "User's email address"}},
    "required": ["username", "email"]}
ELICIT_DEFAULTS = {"type": "object", "properties": {
    "name": {"type": "string", "description": "User name", "default": "John Doe"},
    "age": {"type": "integer", "description": "User age", "default": 30},
    "score": {"type": "number", "description": "User score", "default": 95.5},
    "status": {"type": "string", "description": "User status",
               "enum": ["active", "inactive", "pending"], "default": "active"},
    "verified": {"type": "boolean", "description": "Verification status", "default": True}}}
_UNTITLED = {"type": "string", "description": "Untitled single-select",
             "enum": ["option1", "option2", "option3"]}
_LEGACY = {"type": "string", "description": "Legacy titled enum", "enum": ["opt1", "opt2", "opt3"],
           "enumNames": ["Option One", "Option Two", "Option Three"]}
ELICIT_ENUMS = {"type": "object", "properties": {
    "untitledSingle": _UNTITLED,
    "titledSingle": {"type": "string", "description": "Titled single-select", "oneOf": [
        {"const": "value1", "title": "First Option"},
        {"const": "value2", "title": "Second Option"},
        {"const": "value3", "title": "Third Option"}]},
    "legacyEnum": _LEGACY,
    "untitledMulti": {"type": "array", "description": "Untitled multi-select",
                      "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
    "titledMulti": {"type": "array", "description": "Titled multi-select", "items": {"anyOf": [
        {"const": "value1", "title": "First Choice"},
        {"const": "value2", "title": "Second Choice"},
        {"const": "value3", "title": "Third Choice"}]}}}}
# 2025-06-18 knows only flat string enums.
ELICIT_ENUMS_FLAT = {"type": "object", "properties": {
    "untitledSingle": _UNTITLED, "legacyEnum": _LEGACY}}


async def elicit(ctx, message, schema, label):
    result = await ask(ctx, "elicitation/create",
                       {"message": message, "requestedSchema": schema}, "Elicitation")
    content = json.dumps(result.get("content", {}), separators=(",", ":"))
    return "%s: action=%s, content=%s" % (label, result.get("action", "unknown"), content)


@app.tool(title="Elicitation", description="Asks the user for a username and an email "
          "address (elicitation/create) and returns the answer (conformance fixture).",
          input_schema={"type": "object", "properties": {
              "message": {"type": "string", "description": "The message to show the user"}},
              "required": ["message"]})
async def test_elicitation(args, ctx):
    return await elicit(ctx, args["message"], ELICIT_BASIC, "User response")


@app.tool(title="Elicitation with defaults", description="Elicits a form whose fields all "
          "carry default values (SEP-1034, conformance fixture).", input_schema=NO_ARGS)
async def test_elicitation_sep1034_defaults(args, ctx):
    return await elicit(ctx, "Please review and update the form fields with defaults",
                        ELICIT_DEFAULTS, "Elicitation completed")


@app.tool(title="Elicitation with enums", description="Elicits a form with every enum "
          "variant: untitled, titled, legacy, multi-select (SEP-1330, conformance fixture).",
          input_schema=NO_ARGS)
async def test_elicitation_sep1330_enums(args, ctx):
    schema = ELICIT_ENUMS_FLAT if ctx.version == "2025-06-18" else ELICIT_ENUMS
    return await elicit(ctx, "Please select options from the enum fields", schema,
                        "Elicitation completed")


@app.tool(title="JSON Schema 2020-12", description="Tool with JSON Schema 2020-12 features in "
          "its input schema; returns its arguments (conformance fixture).",
          input_schema={
              "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
              "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {
                  "street": {"type": "string"}, "city": {"type": "string"}}}},
              "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                             "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                             "phone": {"type": "string"}, "email": {"type": "string"}},
              "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
              "if": {"properties": {"contactMethod": {"const": "phone"}},
                     "required": ["contactMethod"]},
              "then": {"required": ["phone"]}, "else": {"required": ["email"]},
              "additionalProperties": False})
def json_schema_2020_12_tool(args, ctx):
    return "Received arguments: %s" % json.dumps(args, separators=(",", ":"))


# `echo` whose argument also travels as the header Mcp-Param-Text of 2026-07-28 HTTP calls
# (MODERN §13.3): app.asgi() hands the tools to the core's endpoint, which checks it.
@app.tool(title="Echo (header)", description="Returns `text` unchanged, as one text block; "
          "over Streamable HTTP (2026-07-28) `text` is mirrored in the Mcp-Param-Text header.",
          input_schema={"type": "object", "properties": {"text": {
              "type": "string", "x-mcp-header": "Text",
              "description": "The text to return, mirrored in the Mcp-Param-Text header"}},
              "required": ["text"]}, inline=True)
def echo_header(args, ctx):
    return args["text"]


# ---- resources ----

@app.resource("test://static-text", name="static-text", description="A static text resource",
              mime_type="text/plain")
def static_text(uri, ctx):
    return "This is the content of the static text resource."


@app.resource("test://static-binary", name="static-binary",
              description="A static binary resource (a 1x1 PNG image)", mime_type="image/png")
def static_binary(uri, ctx):
    return [{"uri": uri, "mimeType": "image/png", "blob": PNG}]


@app.resource(WATCHED, name="watched-resource", description="A resource that can be "
              "subscribed to", mime_type="text/plain")
def watched(uri, ctx):
    return "Watched resource content"


@app.resource("test://template/{id}/data", name="template-data", description="A resource "
              "template with one parameter (conformance fixture)", mime_type="application/json")
def template_data(uri, ctx, id):
    return json.dumps({"id": id, "templateTest": True, "data": "Data for ID: %s" % id},
                      separators=(",", ":"))


@app.on_startup
async def watch(server):
    """test://watched-resource "changes" every few seconds; the core tells whoever
    subscribed (resources/subscribe or subscriptions/listen), and nobody else."""
    while True:
        await asyncio.sleep(WATCH_PERIOD_S)
        if server.is_subscribed(WATCHED):
            server.notify("notifications/resources/updated", WATCHED)


# ---- the 0.2.0 conformance suite's diagnostic fixtures (2026-07-28) ----
# ``ctx.ask`` / ``ask_all`` answer ``input_required`` (or -32021 without the capability)
# and return the answers on the retry, under the suite's keys; a ``state`` is sealed by
# the core (``Server(state_key=...)``), so a tampered one is -32602 before the handler
# runs. In the legacy era the same handlers send the questions to the client as requests.
# The same questions as the Rust demo (examples/src/bin/picomcp-demo/mrtr.rs).

def form(message, **fields):
    return {"message": message, "requestedSchema": {
        "type": "object", "properties": {k: {"type": t} for k, t in fields.items()},
        "required": list(fields)}}


def sample(prompt, max_tokens):
    return {"messages": [{"role": "user", "content": text(prompt)}], "maxTokens": max_tokens}


NAME = ("elicitation/create", form("What is your name?", name="string"))
CAPITAL = ("sampling/createMessage", sample("What is the capital of France?", 100))
ROOTS = ("roots/list", {})
GREETING = ("sampling/createMessage", sample("Generate a greeting", 50))
CONFIRM = ("elicitation/create", form("Please confirm", ok="boolean"))


def content(answer, name):
    return (answer.get("content") or {}).get(name, "unknown")


@app.tool(description="2026-07-28: asks the user's name (input_required, elicitation), then "
          "says hello (conformance fixture).", input_schema=NO_ARGS)
async def test_input_required_result_elicitation(args, ctx):
    answer = await ask(ctx, *NAME, "Elicitation", key="user_name")
    return "Hello, %s!" % content(answer, "name")


@app.tool(description="2026-07-28: asks the client's LLM a question (input_required, "
          "sampling), then returns the answer (conformance fixture).", input_schema=NO_ARGS)
async def test_input_required_result_sampling(args, ctx):
    answer = await ask(ctx, *CAPITAL, "Sampling", key="capital_question")
    return "LLM response: %s" % (answer.get("content") or {}).get("text", "")


@app.tool(description="2026-07-28: asks for the client's roots (input_required, roots/list), "
          "then lists them (conformance fixture).", input_schema=NO_ARGS)
async def test_input_required_result_list_roots(args, ctx):
    answer = await ask(ctx, *ROOTS, "roots/list", key="client_roots")
    return "Client roots: %s" % json.dumps(answer.get("roots", []), separators=(",", ":"))


async def confirm(args, ctx):
    answer = await ask(ctx, *CONFIRM, "Elicitation", key="confirm", state="confirm-v1")
    return "state-ok: confirmed ok=%s" % json.dumps(content(answer, "ok"))


app.tool("test_input_required_result_request_state", description="2026-07-28: asks for a "
         "confirmation with a requestState, then checks the echoed state (conformance "
         "fixture).", input_schema=NO_ARGS)(confirm)
app.tool("test_input_required_result_tampered_state", description="2026-07-28: answers with "
         "a sealed requestState; a tampered one is refused with -32602 (conformance "
         "fixture).", input_schema=NO_ARGS)(confirm)


@app.tool(description="2026-07-28: asks for an elicitation, a sampling and the roots at once "
          "(conformance fixture).", input_schema=NO_ARGS)
async def test_input_required_result_multiple_inputs(args, ctx):
    await ask_all(ctx, {"user_name": NAME, "greeting": GREETING, "client_roots": ROOTS},
                  state="multi-v1")
    return "state-ok: received all three inputs"


@app.tool(description="2026-07-28: asks two questions in two rounds, carried by requestState "
          "(conformance fixture).", input_schema=NO_ARGS)
async def test_input_required_result_multi_round(args, ctx):
    if ctx.request_state != "round-2":  # round 2 already has step 1's answer behind it
        await ask(ctx, "elicitation/create", form("Step 1: What is your name?", name="string"),
                  "Elicitation", key="step1", state="round-1")
    answer = await ask(ctx, "elicitation/create",
                       form("Step 2: What is your favorite color?", color="string"),
                       "Elicitation", key="step2", state="round-2")
    return "Favorite color: %s" % content(answer, "color")


@app.tool(description="2026-07-28: asks only with the capabilities the request declared "
          "(conformance fixture).", input_schema=NO_ARGS)
async def test_input_required_result_capabilities(args, ctx):
    declared = ctx.client_capabilities
    questions = {key: q for key, q, cap in (("user_name", NAME, "elicitation"),
                                            ("capital_question", CAPITAL, "sampling"))
                 if cap in declared}
    if not questions:
        return "The client declared nothing to ask with"
    await ask_all(ctx, questions)
    return "Received the declared inputs"


@app.tool(description="Needs the client's sampling; in 2026-07-28 without it declared, "
          "-32021 (conformance fixture).", input_schema=NO_ARGS)
async def test_missing_capability(args, ctx):
    await ask(ctx, "sampling/createMessage", sample("Say hello", 50), "Sampling")
    return "The client declared sampling and answered"


@app.tool(description="Asks for a confirmation (in 2026-07-28 an input_required result on "
          "the request's own stream; conformance fixture).", input_schema=NO_ARGS)
async def test_streaming_elicitation(args, ctx):
    await ask(ctx, "elicitation/create", form("Continue?", ok="boolean"), "Elicitation",
              key="confirm")
    return "Elicitation answered"


@app.tool(description="Sends one info log message, only to a request that asked for that "
          "level (conformance fixture).", input_schema=NO_ARGS)
async def test_logging_tool(args, ctx):
    sent = ctx.log("info", "test_logging_tool was called", logger="picomcp-demo")
    return "Logged one info message" if sent else "No log message: info was not asked for"


@app.tool(description="Announces that the tool list changed (conformance fixture).",
          input_schema=NO_ARGS)
async def test_trigger_tool_change(args, ctx):
    app.notify("notifications/tools/list_changed")
    return "Tool list change announced"


@app.tool(description="Announces that the prompt list changed (conformance fixture).",
          input_schema=NO_ARGS)
async def test_trigger_prompt_change(args, ctx):
    app.notify("notifications/prompts/list_changed")
    return "Prompt list change announced"


# ---- prompts ----

def user(content):
    return {"role": "user", "content": content}


@app.prompt("test_simple_prompt", description="A simple prompt without arguments")
def simple_prompt(args, ctx):
    return [user(text("This is a simple prompt for testing."))]


@app.prompt("test_prompt_with_arguments", description="A prompt with two required arguments",
            arguments=[{"name": "arg1", "description": "First test argument", "required": True},
                       {"name": "arg2", "description": "Second test argument", "required": True}])
def prompt_with_arguments(args, ctx):
    return [user(text("Prompt with arguments: arg1='%s', arg2='%s'"
                      % (args["arg1"], args["arg2"])))]


@app.prompt("test_prompt_with_embedded_resource", description="A prompt that embeds a resource",
            arguments=[{"name": "resourceUri", "description": "URI of the resource to embed",
                        "required": True}])
def prompt_with_embedded_resource(args, ctx):
    return [user(embedded(str(args["resourceUri"]), "text/plain",
                          "Embedded resource content for testing.")),
            user(text("Please process the embedded resource above."))]


@app.prompt("test_prompt_with_image", description="A prompt with image content")
def prompt_with_image(args, ctx):
    return [user(image()), user(text("Please analyze the image above."))]


@app.prompt("test_input_required_result_prompt", description="Asks the user for context "
            "(2026-07-28: an input_required answer to prompts/get; legacy: an elicitation "
            "request), when the client declared elicitation (conformance fixture)")
async def input_required_prompt(args, ctx):
    said = "none"
    if "elicitation" in ctx.client_capabilities:
        try:
            answer = await ctx.ask("elicitation/create", form("What context should the "
                                   "prompt use?", context="string"), key="user_context")
            said = content(answer, "context")
        except SendError:  # a legacy revision without elicitation (2024-11-05, 2025-03-26)
            pass
    return [user(text("Use this context: %s" % said))]


# ---- completions ----

def prefixed(candidates):
    return lambda value, context: [c for c in candidates if c.startswith(value)]


app.completion("test_prompt_with_arguments", "arg1")(
    prefixed(["paris", "park", "party", "hello", "help", "testValue1"]))
app.completion("test_prompt_with_arguments", "arg2")(
    prefixed(["world", "word", "work", "testValue2"]))
app.completion("test_prompt_with_embedded_resource", "resourceUri")(
    prefixed(["test://static-text", "test://static-binary", WATCHED, "test://template/1/data"]))
app.completion("test://template/{id}/data", "id")(prefixed(["1", "2", "3", "42", "123"]))


AUTH_FLAGS = ("--auth-issuer", "--auth-jwks", "--auth-resource", "--auth-required")


def take_auth_flags(argv):
    """Splits the ``--auth-*`` flags (this demo's) from the helper's."""
    flags, rest, it = {}, [], iter(argv)
    for arg in it:
        name, eq, inline = arg.partition("=")
        if name in AUTH_FLAGS:
            value = inline if eq else next(it, None)
            if value is None:
                raise SystemExit("%s needs a value" % name)
            flags[name[7:]] = value
        else:
            rest.append(arg)
    return flags, rest


def jwt_verifier(issuer, jwks_url=None):
    """The host's half of token checking: signature (the issuer's JWKS) and issuer;
    the core checks audience, expiry and scopes. The token is never kept."""
    import urllib.request

    import jwt  # PyJWT

    def metadata_jwks():
        base = issuer.rstrip("/")
        for suffix in ("/.well-known/oauth-authorization-server",
                       "/.well-known/openid-configuration"):
            try:
                with urllib.request.urlopen(base + suffix, timeout=10) as r:
                    uri = json.load(r).get("jwks_uri")
                if uri:
                    return uri
            except Exception:
                continue
        raise RuntimeError("no jwks_uri in the metadata of %s" % issuer)

    client = [jwt.PyJWKClient(jwks_url)] if jwks_url else []

    def verify(token):
        try:
            if not client:
                client.append(jwt.PyJWKClient(metadata_jwks()))
            key = client[0].get_signing_key_from_jwt(token)
            claims = jwt.decode(token, key.key, algorithms=[key.algorithm_name or "RS256"],
                                issuer=issuer,
                                options={"verify_aud": False, "verify_exp": False,
                                         "verify_nbf": False, "require": []})
        except Exception as e:
            app.diag("info", "token refused: %s" % e)
            return None
        return claims

    return verify


def main(argv):
    flags, rest = take_auth_flags(argv)
    if "issuer" in flags:
        http = next((a.partition("=")[2] or rest[i + 1] for i, a in enumerate(rest)
                     if a.partition("=")[0] == "--http"), "127.0.0.1:8000")
        app.http_auth = {
            "verifier": jwt_verifier(flags["issuer"], flags.get("jwks")),
            "resource": flags.get("resource", "http://%s/mcp" % http),
            "authorization_servers": [flags["issuer"]],
            "scopes": ["mcp", "mcp:admin"], "scopes_supported": ["mcp"],
            "required": flags.get("required", "mcp"),
            "resource_name": "picomcp demo (Python)",
        }
    return app.run(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
