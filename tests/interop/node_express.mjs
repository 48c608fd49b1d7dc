#!/usr/bin/env node
// The Node helper's HTTP handler (Server.httpHandler()) mounted in Express, driven by the
// OFFICIAL TypeScript SDK client over StreamableHTTPClientTransport.
//
// Usage (after tests/interop/setup.sh and bindings/node/build.sh):
//
//     node tests/interop/node_express.mjs
//
// Three apps:
// - the handler mounted before express.json() (as the README says): works;
// - behind express.raw() (req.body is the raw Buffer), mounted with app.use('/mcp'):
//   works (the endpoint sees the original URL);
// - behind express.json(): the exact bytes are gone, so every POST is refused with 500
//   and a message saying why (the handler never re-serializes a parsed body).
//
// Output: `ok - NAME` / `not ok - NAME: REASON` per check, then a summary; exit 1 on a failure.

import { createRequire } from 'node:module';
import process from 'node:process';

const require = createRequire(new URL('./node/package.json', import.meta.url));
let express, Client, StreamableHTTPClientTransport;
try {
    express = require('express');
    ({ Client } = require('@modelcontextprotocol/sdk/client/index.js'));
    ({ StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js'));
} catch (e) {
    console.error(`node_express.mjs: cannot load express or @modelcontextprotocol/sdk (${e.message}); run tests/interop/setup.sh`);
    process.exit(2);
}
const { Server } = require('../../../bindings/node/lib/index.js');

let passed = 0;
let failed = 0;
const ok = (name, note) => { passed++; console.log(`ok - ${name}${note ? ` (${note})` : ''}`); };
const notOk = (name, reason) => { failed++; console.log(`not ok - ${name}: ${String(reason?.message ?? reason)}`); };
async function check(name, fn) {
    try { ok(name, await fn()); } catch (e) { notOk(name, e); }
}
const expect = (cond, msg) => { if (!cond) throw new Error(msg); };

function mcp() {
    const s = new Server('express-test', '1.0.0', { logLevel: 'error' });
    s.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, a => a.text);
    s.tool('count', { inputSchema: { type: 'object' } }, async (a, ctx) => {
        for (let i = 1; i <= 3; i++) { await ctx.sleep(10); ctx.progress(i, 3); }
        return 'counted';
    });
    return s;
}

async function listen(app) {
    const server = await new Promise(resolve => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
    return { server, url: `http://127.0.0.1:${server.address().port}/mcp` };
}

async function sdkRun(url) {
    const client = new Client({ name: 'express-interop', version: '1' }, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    try {
        const tools = (await client.listTools()).tools.map(t => t.name);
        expect(tools.includes('echo') && tools.includes('count'), `tools ${tools}`);
        const text = 'Grüße 😀 "q" \\ \n';
        const r = await client.callTool({ name: 'echo', arguments: { text } });
        expect(r.content[0].text === text, `echo gave ${JSON.stringify(r.content)}`);
        const seen = [];
        const c = await client.callTool({ name: 'count', arguments: {} }, undefined, { onprogress: p => seen.push(p.progress) });
        expect(c.content[0].text === 'counted', `count gave ${JSON.stringify(c.content)}`);
        expect(seen.length === 3, `progress seen ${JSON.stringify(seen)}`);
        await transport.terminateSession();
        return `protocol ${transport.protocolVersion ?? '?'}, session ended`;
    } finally {
        await client.close().catch(() => {});
    }
}

// 1. Mounted before express.json().
{
    const s = mcp();
    const handler = s.httpHandler();
    const app = express();
    app.all('/mcp', handler);
    app.use(express.json());
    app.post('/other', (req, res) => res.json({ got: req.body }));
    const { server, url } = await listen(app);
    await check('Express: handler before express.json(), the SDK client over HTTP', () => sdkRun(url));
    await check('Express: express.json() still serves the other routes', async () => {
        const r = await fetch(url.replace('/mcp', '/other'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
        const j = await r.json();
        expect(j.got && j.got.a === 1, JSON.stringify(j));
    });
    handler.close();
    server.closeAllConnections();
    server.close();
}

// 2. Behind express.raw(), mounted with app.use('/mcp').
{
    const s = mcp();
    const handler = s.httpHandler();
    const app = express();
    app.use(express.raw({ type: '*/*', limit: '2mb' }));
    app.use('/mcp', handler);
    const { server, url } = await listen(app);
    await check('Express: behind express.raw() (req.body is the Buffer), app.use(\'/mcp\')', () => sdkRun(url));
    handler.close();
    server.closeAllConnections();
    server.close();
}

// 3. Behind express.json(): refused, with the reason.
{
    const s = mcp();
    const handler = s.httpHandler();
    const app = express();
    app.use(express.json());
    app.all('/mcp', handler);
    const { server, url } = await listen(app);
    await check('Express: behind express.json() every POST is refused (500), not re-serialized', async () => {
        const r = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
        });
        expect(r.status === 500, `status ${r.status}`);
        const j = await r.json();
        expect(/before any body parser/.test(j.error?.message), JSON.stringify(j));
        return j.error.message;
    });
    handler.close();
    server.closeAllConnections();
    server.close();
}

console.log(`${passed} passed, ${failed} failed, 0 skipped`);
process.exitCode = failed ? 1 : 0;
