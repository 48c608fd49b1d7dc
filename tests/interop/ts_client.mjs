#!/usr/bin/env node
// Interop client: drive any stdio MCP demo server with the OFFICIAL TypeScript SDK
// (@modelcontextprotocol/sdk 1.32.2, pinned in node/package-lock.json).
//
// Usage (after tests/interop/setup.sh):
//
//     node tests/interop/ts_client.mjs [--expect-version VERSION] [--timeout-scale N] [--] SERVER_CMD [ARGS...]
//     node tests/interop/ts_client.mjs --url URL [--expect-version VERSION] [--timeout-scale N] [-- SERVER_CMD [ARGS...]]
//
// --url: over Streamable HTTP with the SDK's StreamableHTTPClientTransport instead of
// stdio. With a SERVER_CMD (a servers.json "http" entry), this starts it first: "{port}"
// in the URL and the arguments becomes a free port, and the server is stopped (SIGTERM)
// at the end. Without one, the server at URL must be running. Over HTTP the stdio
// shutdown check becomes: DELETE ends the session (the SDK's terminateSession), and the
// old session id then gets 404.
//
// The SDK's StdioClientTransport starts the server (no shell; it inherits this
// process's environment and working directory). The SDK 1.32.2 client only speaks
// the legacy `initialize` handshake (it proposes 2025-11-25; it has no
// server/discover probe).
//
// The server implements the demo contract (/work/shared/DEMO_SERVER.md) or a subset of
// it. Which checks apply is decided from what the server itself declares: the
// capabilities in its initialize result, and tools/list, resources/list, prompts/list.
// tools/list must hold at least `echo` and `add`; the progress and cancellation checks
// need a `sleep` tool, the resource check the `resources` capability and
// test://static-text listed, the prompt check the `prompts` capability and
// test_simple_prompt listed, logging/setLevel the `logging` capability. A check whose
// feature is absent prints `ok - NAME # SKIP REASON`; a declared feature that
// misbehaves fails.
//
// --timeout-scale N multiplies every timeout and the run's budget by N (slow servers
// such as the firmware under QEMU).
//
// Output: one line per check, `ok - NAME`, `ok - NAME # SKIP REASON` or
// `not ok - NAME: REASON`, then `N passed, M failed, K skipped`. Exit status 1 if any
// check failed. Every check has its own timeout and the whole run is bounded (about
// 60 s, times the scale, even against a hung server).

import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

// The SDK is installed in ./node (tests/interop/setup.sh); resolve it from there
// through the package's own export map (its CommonJS build).
const require = createRequire(new URL('./node/package.json', import.meta.url));
let Client, StdioClientTransport, StreamableHTTPClientTransport, McpError;
try {
    ({ Client } = require('@modelcontextprotocol/sdk/client/index.js'));
    ({ StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js'));
    ({ StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js'));
    ({ McpError } = require('@modelcontextprotocol/sdk/types.js'));
} catch (e) {
    console.error(`ts_client.mjs: cannot load @modelcontextprotocol/sdk (${e.message}); run tests/interop/setup.sh`);
    process.exit(2);
}

// Scaled by --timeout-scale (parsed below, before any of them is used).
let BUDGET_MS = 50_000;       // all checks together
let HARD_LIMIT_MS = 58_000;   // watchdog: never run longer than this
let CHECK_TIMEOUT_MS = 5_000; // default per check
let CONNECT_TIMEOUT_MS = 10_000;

// Unicode (BMP + astral), both quote kinds, backslash, newline, tab, U+2028.
const ECHO_TEXT = 'Grüße, 世界! "double" \'single\' back\\slash \\n-literal\nnew line\ttab 😀 \u2028 end';

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

let passed = 0;
let failed = 0;
let skipped = 0;
const oneLine = s => String(s).split(/\s+/).join(' ').trim();
const ok = (name, note) => { passed++; console.log(`ok - ${name}${note ? ` (${note})` : ''}`); };
const notOk = (name, reason) => { failed++; console.log(`not ok - ${name}: ${oneLine(reason) || 'failed'}`); };
const skip = (name, reason) => { skipped++; console.log(`ok - ${name} # SKIP ${oneLine(reason)}`); };
const summary = () => { console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`); return failed ? 1 : 0; };

class CheckFailed extends Error {}
const expect = (cond, reason) => { if (!cond) throw new CheckFailed(reason); };
const describe = e => e instanceof McpError ? `JSON-RPC error ${e.code}: ${e.message}`
    : e instanceof CheckFailed ? e.message : `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
const sleep = ms => new Promise(r => setTimeout(r, ms));
const now = () => performance.now();

const t0 = now();
let deadline; // t0 + BUDGET_MS, once the scale is known

// `check`, or a skip when `absent` names a missing feature (null: present).
async function checkIf(absent, name, fn, timeoutMs) {
    if (absent) return skip(name, absent);
    return check(name, fn, timeoutMs);
}

// Runs one named check with a timeout; `fn` gets the per-request options to pass to the SDK.
// `timeoutMs` is before scaling.
async function check(name, fn, timeoutMs) {
    const left = deadline - now();
    if (left <= 0) return notOk(name, 'skipped: time budget for the run is used up');
    const ms = Math.min(timeoutMs === undefined ? CHECK_TIMEOUT_MS : timeoutMs * scale, left);
    let timer;
    const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new CheckFailed(`timed out after ${(ms / 1000).toFixed(1)} s`)), ms);
    });
    try {
        const note = await Promise.race([fn({ timeout: ms }), timeout]);
        ok(name, note);
    } catch (e) {
        notOk(name, describe(e));
    } finally {
        clearTimeout(timer);
    }
}

async function expectError(promise, code) {
    let result;
    try {
        result = await promise;
    } catch (e) {
        expect(e instanceof McpError, `expected JSON-RPC error ${code}, got ${describe(e)}`);
        expect(e.code === code, `expected JSON-RPC error ${code}, got ${e.code}: ${e.message}`);
        return `${e.code} ${e.message}`;
    }
    throw new CheckFailed(`expected JSON-RPC error ${code}, got a result: ${JSON.stringify(result)}`.slice(0, 300));
}

const texts = result => (result.content ?? []).filter(c => c.type === 'text').map(c => c.text);

// ---------------------------------------------------------------------------
const usage = 'usage: node tests/interop/ts_client.mjs [--url URL] [--expect-version VERSION] [--timeout-scale N] [--] [SERVER_CMD [ARGS...]]';
let argv = process.argv.slice(2);
let expectVersion;
let url;
let scale = 1;
while (argv.length && argv[0].startsWith('-')) {
    const opt = argv.shift();
    if (opt === '--') break;
    if (opt === '--url' && argv.length) url = argv.shift();
    else if (opt === '--expect-version' && argv.length) expectVersion = argv.shift();
    else if (opt === '--timeout-scale' && argv.length && Number(argv[0]) > 0) scale = Number(argv.shift());
    else { console.error(usage); process.exit(2); }
}
BUDGET_MS *= scale;
HARD_LIMIT_MS *= scale;
CHECK_TIMEOUT_MS *= scale;
CONNECT_TIMEOUT_MS *= scale;
deadline = t0 + BUDGET_MS;
if (argv.length === 0 && url === undefined) {
    console.error(usage);
    process.exit(2);
}

const freePort = () => new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => { const { port } = srv.address(); srv.close(() => resolve(port)); });
});

// --url with a server command: start it on a free port and wait until it answers.
let httpServer = null;
if (url !== undefined && argv.length) {
    const port = String(await freePort());
    url = url.replaceAll('{port}', port);
    const args = argv.map(a => a.replaceAll('{port}', port));
    httpServer = spawn(args[0], args.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] });
    httpServer.unref();
    const up = now() + CONNECT_TIMEOUT_MS;
    for (;;) {
        const alive = await fetch(url, { method: 'DELETE' }).then(() => true, () => false);
        if (alive) break;
        if (now() > up) { notOk('server starts', `nothing answers at ${url}`); httpServer.kill('SIGKILL'); process.exit(summary()); }
        await sleep(50);
    }
}

const transport = url !== undefined ? new StreamableHTTPClientTransport(new URL(url)) : new StdioClientTransport({
    command: argv[0], args: argv.slice(1), env: { ...process.env }, cwd: process.cwd(), stderr: 'inherit',
});

// Tap both directions: to read the negotiated version from the raw initialize
// response, and to see anything the server sends for a request after we cancelled it.
const inbound = [];  // [time, message]
const outbound = []; // [time, message]
// Protocol.connect() chains an onmessage that is already set, so this sees every
// inbound message before the SDK handles it.
transport.onmessage = msg => { inbound.push([now(), msg]); };
const rawSend = transport.send.bind(transport);
transport.send = (msg, opts) => { outbound.push([now(), msg]); return rawSend(msg, opts); };

const client = new Client({ name: 'picomcp-interop-ts', version: '0.1.0' }, { capabilities: {} });
// The SDK reports protocol oddities here (e.g. progress for an unknown token); show them.
client.onerror = e => console.error(`ts_client.mjs: SDK reported: ${e?.message ?? e}`);

const watchdog = setTimeout(() => {
    notOk('watchdog', `the run did not finish within ${HARD_LIMIT_MS / 1000} s`);
    try { transport._process?.kill('SIGKILL'); } catch { /* best effort */ }
    try { httpServer?.kill('SIGKILL'); } catch { /* best effort */ }
    process.exit(summary());
}, HARD_LIMIT_MS);
watchdog.unref();

async function main() {
    // --- initialize ------------------------------------------------------------
    try {
        await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    } catch (e) {
        notOk('initialize', describe(e));
        await client.close().catch(() => {});
        return;
    }
    const initId = outbound.find(([, m]) => m.method === 'initialize')?.[1].id;
    const initResult = inbound.find(([, m]) => m.id === initId && m.result)?.[1].result;
    const info = client.getServerVersion();
    ok('initialize', `protocol ${initResult?.protocolVersion}, ${info?.name} ${info?.version}, ` +
        `${((now() - t0) / 1000).toFixed(2)} s`);
    if (expectVersion) {
        if (initResult?.protocolVersion === expectVersion) ok(`negotiated protocol is ${expectVersion}`);
        else notOk(`negotiated protocol is ${expectVersion}`, `got ${initResult?.protocolVersion}`);
    }
    // Capture the child before close() forgets it, to check its exit status later.
    const child = transport._process;
    const exited = child ? new Promise(resolve => child.once('exit', (code, signal) => resolve({ code, signal })))
        : null;

    // --- ping ------------------------------------------------------------------
    await check('ping', async opts => {
        const result = await client.ping(opts);
        expect(result && typeof result === 'object', `unexpected result ${JSON.stringify(result)}`);
    });

    // --- what the server declares ----------------------------------------------
    const caps = client.getServerCapabilities() ?? {};

    // --- tools/list ------------------------------------------------------------
    const toolNames = [];
    await check('tools/list has echo and add', async opts => {
        expect(caps.tools, 'the server does not declare the tools capability');
        toolNames.push(...(await client.listTools(undefined, opts)).tools.map(t => t.name));
        const missing = ['echo', 'add'].filter(n => !toolNames.includes(n));
        expect(missing.length === 0, `missing tools ${JSON.stringify(missing)}; got ${JSON.stringify(toolNames)}`);
        return `${toolNames.length} tools: ${toolNames.join(', ')}`;
    });
    const noSleep = toolNames.includes('sleep') ? null : 'no sleep tool in tools/list';

    // --- echo ------------------------------------------------------------------
    await check('tools/call echo returns the text byte for byte', async opts => {
        const result = await client.callTool({ name: 'echo', arguments: { text: ECHO_TEXT } }, undefined, opts);
        expect(!result.isError, `isError result: ${JSON.stringify(texts(result))}`);
        const t = texts(result);
        expect(result.content.length === 1 && t.length === 1, `expected one text block, got ${JSON.stringify(result.content)}`);
        expect(t[0] === ECHO_TEXT, `text differs: sent ${JSON.stringify(ECHO_TEXT)}, got ${JSON.stringify(t[0])}`);
    });

    // --- add (the SDK also validates structuredContent against the listed outputSchema) ---
    await check('tools/call add returns structuredContent {sum: 5}', async opts => {
        const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }, undefined, opts);
        expect(!result.isError, `isError result: ${JSON.stringify(texts(result))}`);
        const sc = result.structuredContent;
        expect(sc && Object.keys(sc).length === 1 && sc.sum === 5, `structuredContent is ${JSON.stringify(sc)}`);
        const t = texts(result);
        expect(t.length > 0, 'no text block next to structuredContent');
        let parsed;
        try { parsed = JSON.parse(t[0]); } catch { throw new CheckFailed(`text block is not JSON: ${JSON.stringify(t[0])}`); }
        expect(parsed && Object.keys(parsed).length === 1 && parsed.sum === 5,
            `text block JSON is ${JSON.stringify(parsed)}, not {"sum":5}`);
    });

    // --- sleep with progress ---------------------------------------------------
    // SDK quirk (1.32.2): responses are handled synchronously but notifications one
    // microtask later, so a progress notification that arrives in the same stdout chunk
    // as its response reaches `onprogress` too late and is dropped ("unknown token").
    // So the count is checked on the wire (the server's duty); onprogress is reported.
    await checkIf(noSleep, 'tools/call sleep sends 3 progress notifications', async opts => {
        const seen = [];
        const result = await client.callTool({ name: 'sleep', arguments: { ms: 50, steps: 3 } }, undefined,
            { ...opts, onprogress: p => seen.push(p.progress) });
        expect(!result.isError, `isError result: ${JSON.stringify(texts(result))}`);
        expect(JSON.stringify(texts(result)) === '["slept"]', `expected text "slept", got ${JSON.stringify(texts(result))}`);
        await sleep(100); // anything extra would arrive now
        const id = outbound.findLast(([, m]) => m.method === 'tools/call' && m.params?.name === 'sleep')?.[1].id;
        const responseIndex = inbound.findIndex(([, m]) => m.id === id && !m.method);
        const wire = inbound.map(([, m], i) => [i, m])
            .filter(([, m]) => m.method === 'notifications/progress' && m.params?.progressToken === id);
        const values = wire.map(([, m]) => m.params.progress);
        expect(wire.length === 3, `expected 3 progress notifications, got ${wire.length}: ${JSON.stringify(values)}`);
        expect(wire.every(([i]) => i < responseIndex), 'a progress notification came after the response');
        expect(values.every((p, i) => i === 0 || values[i - 1] < p), `progress does not increase: ${JSON.stringify(values)}`);
        const dropped = wire.length - seen.length;
        return `progress ${JSON.stringify(values)}; onprogress saw ${seen.length}` +
            (dropped ? ` (SDK dropped ${dropped} that arrived with the response)` : '');
    });

    // --- sleep cancellation ----------------------------------------------------
    const cancel = {};
    await checkIf(noSleep, 'tools/call sleep can be cancelled, session still works', async opts => {
        const controller = new AbortController();
        let firstProgress;
        const gotProgress = new Promise(resolve => { firstProgress = resolve; });
        const call = client.callTool({ name: 'sleep', arguments: { ms: 10000, steps: 100 } }, undefined,
            { timeout: 20_000 * scale, signal: controller.signal, onprogress: () => firstProgress(true) });
        let settled;
        const outcome = call.then(() => 'completed', e => e).then(r => { settled = r; return r; });
        // Cancel once the server is provably working on it (first progress), or after 2 s.
        const started = await Promise.race([gotProgress, sleep(2000).then(() => false)]);
        if (settled !== undefined) {
            throw new CheckFailed(settled === 'completed' ? 'the 10 s sleep completed before the cancel'
                : `the call failed before the cancel: ${describe(settled)}`);
        }
        cancel.id = outbound.findLast(([, m]) => m.method === 'tools/call' && m.params?.name === 'sleep')?.[1].id;
        cancel.at = now();
        controller.abort('interop test cancels the sleep'); // the SDK sends notifications/cancelled
        const result = await outcome;
        expect(result !== 'completed', 'the 10 s sleep completed instead of being cancelled');
        const sent = outbound.some(([, m]) => m.method === 'notifications/cancelled' && m.params?.requestId === cancel.id);
        expect(sent, 'the SDK did not send notifications/cancelled');
        await sleep(800);
        cancel.windowEnd = now();
        await client.ping(opts); // the session must still work
        return `cancelled ${started ? 'after first progress' : 'after 2 s without progress'}, ` +
            `call rejected with ${describe(result)}; ping answered`;
    }, 8_000);

    await checkIf(noSleep, 'cancelled sleep sends nothing more', async () => {
        expect(cancel.windowEnd !== undefined, 'cancellation check did not run');
        const grace = 200;
        const late = inbound.filter(([t, m]) => t > cancel.at + grace && t <= cancel.windowEnd &&
            ((m.method === 'notifications/progress' && m.params?.progressToken === cancel.id) || m.id === cancel.id));
        expect(late.length === 0, `${late.length} messages for the cancelled request more than ${grace} ms ` +
            `after the cancel, e.g. ${JSON.stringify(late[0]?.[1])}`);
        return 'no progress or response after the cancel';
    });

    // --- unknown tool ----------------------------------------------------------
    await check('tools/call unknown tool is JSON-RPC error -32602', opts =>
        expectError(client.callTool({ name: 'no_such_tool_xyz', arguments: {} }, undefined, opts), INVALID_PARAMS));

    // --- resources -------------------------------------------------------------
    const noResources = caps.resources ? null : 'no resources capability declared';
    const uris = [];
    await checkIf(noResources, 'resources/list', async opts => {
        uris.push(...(await client.listResources(undefined, opts)).resources.map(r => r.uri));
        return `${uris.length} resources`;
    });
    await checkIf(noResources ?? (uris.includes('test://static-text') ? null
        : `test://static-text not in resources/list (${JSON.stringify(uris)})`),
    'resources/read test://static-text returns its text', async opts => {
        const { contents } = await client.readResource({ uri: 'test://static-text' }, opts);
        expect(contents.length >= 1, 'resources/read returned no contents');
        const c = contents[0];
        expect(typeof c.text === 'string', `expected text contents, got ${JSON.stringify(c)}`);
        expect(c.uri === 'test://static-text', `contents uri is ${c.uri}`);
        expect(c.text.length > 0, 'empty text');
        return `${c.text.length} chars`;
    });

    // --- prompts ---------------------------------------------------------------
    const noPrompts = caps.prompts ? null : 'no prompts capability declared';
    const promptNames = [];
    await checkIf(noPrompts, 'prompts/list', async opts => {
        promptNames.push(...(await client.listPrompts(undefined, opts)).prompts.map(p => p.name));
        return `${promptNames.length} prompts`;
    });
    await checkIf(noPrompts ?? (promptNames.includes('test_simple_prompt') ? null
        : `test_simple_prompt not in prompts/list (${JSON.stringify(promptNames)})`),
    'prompts/get test_simple_prompt returns messages', async opts => {
        const { messages } = await client.getPrompt({ name: 'test_simple_prompt' }, opts);
        expect(messages.length >= 1, 'prompts/get returned no messages');
        return `${messages.length} message(s), first role ${messages[0].role}`;
    });

    // --- logging ---------------------------------------------------------------
    await checkIf(caps.logging ? null : 'no logging capability declared', 'logging/setLevel', async opts => {
        const result = await client.setLoggingLevel('debug', opts);
        expect(result && typeof result === 'object', `unexpected result ${JSON.stringify(result)}`);
    });

    if (url !== undefined) {
        // --- HTTP shutdown: DELETE ends the session; its id is then unknown -----------
        await check('DELETE ends the session; its id then gets 404', async () => {
            const id = transport.sessionId;
            expect(id, 'the server gave no Mcp-Session-Id');
            await transport.terminateSession();
            const r = await fetch(url, {
                method: 'POST',
                headers: {
                    'content-type': 'application/json', accept: 'application/json, text/event-stream',
                    'mcp-session-id': id, 'mcp-protocol-version': initResult?.protocolVersion ?? '2025-11-25',
                },
                body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
            });
            expect(r.status === 404, `a request on the deleted session got ${r.status}`);
            return `session ${id.slice(0, 8)}… ended`;
        });
        await client.close();
        return;
    }

    // --- shutdown: the SDK closes stdin, waits 2 s, then sends SIGTERM ------------
    const closeStart = now();
    await client.close();
    await check('server exits with status 0 on stdin EOF', async () => {
        expect(exited, 'cannot observe the server process (SDK internals changed?)');
        const { code, signal } = await exited;
        const ms = now() - closeStart;
        expect(code === 0, signal ? `killed by ${signal} after ${(ms / 1000).toFixed(1)} s (did not exit on EOF)`
            : `exit status ${code}`);
        return `${ms.toFixed(0)} ms after EOF`;
    });
}

try {
    await main();
} catch (e) {
    notOk('session', describe(e));
    await client.close().catch(() => {});
}
clearTimeout(watchdog);
httpServer?.kill('SIGTERM');
process.exitCode = summary();
