#!/usr/bin/env node
// A stdio MCP server on the official TypeScript SDK (@modelcontextprotocol/sdk 1.32.2,
// pinned in tests/interop/node/package-lock.json), for probing our client role.
//
//     node tests/interop/sdk_servers/ts_server.mjs      (after tests/interop/setup.sh)
//
// High-level API (McpServer + registerTool/registerResource/registerPrompt) over
// StdioServerTransport:
//   * tools `echo` (text -> the same text) and `add` (a + b, with an outputSchema and
//     structuredContent {sum}; it reports progress when asked and logs one message),
//   * a static resource `test://static-text` (text/plain) and a resource template
//     `test://greeting/{name}`,
//   * a prompt `greet` with a required argument `name`,
//   * the `logging` capability (logging/setLevel is answered by the SDK).
// The SDK resolves from tests/interop/node (createRequire), as ts_client.mjs does. The
// SDK 1.32.2 speaks only the legacy initialize handshake (up to 2025-11-25). With
// `--http PORT` it serves Streamable HTTP instead (below).
import { createRequire } from 'node:module';

const require = createRequire(new URL('../node/package.json', import.meta.url));
const { McpServer, ResourceTemplate } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');

// One McpServer per connection: stdio has one; over HTTP each session gets its own.
function makeServer() {
  const server = new McpServer(
    { name: 'picomcp-interop-ts', version: '0.1.0' },
    { capabilities: { logging: {} } },
  );

  server.registerTool(
    'echo',
    { description: 'Echo the text back.', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );

  server.registerTool(
    'add',
    {
      description: 'Add two numbers.',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }, extra) => {
      const token = extra._meta?.progressToken;
      const progress = async (n, message) => {
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: n, total: 2, message },
          });
        }
      };
      await progress(1, 'adding');
      await server.sendLoggingMessage({ level: 'info', logger: 'add', data: `add(${a}, ${b})` });
      await progress(2, 'done');
      const sum = a + b;
      return { content: [{ type: 'text', text: JSON.stringify({ sum }) }], structuredContent: { sum } };
    },
  );

  server.registerResource(
    'static-text',
    'test://static-text',
    { description: 'A fixed text.', mimeType: 'text/plain' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is a static text resource.\n' }],
    }),
  );

  server.registerResource(
    'greeting',
    new ResourceTemplate('test://greeting/{name}', { list: undefined }),
    { description: 'A greeting for NAME.', mimeType: 'text/plain' },
    async (uri, { name }) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Hello, ${name}!` }],
    }),
  );

  server.registerPrompt(
    'greet',
    { description: 'Ask for a greeting to NAME.', argsSchema: { name: z.string() } },
    ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Please write a short greeting to ${name}.` } }],
    }),
  );
  return server;
}

const httpAt = process.argv.indexOf('--http');
if (httpAt < 0) {
  await makeServer().connect(new StdioServerTransport());
} else {
  // `--http PORT`: Streamable HTTP on 127.0.0.1:PORT/mcp, stateful (the SDK example's
  // routing: a known Mcp-Session-Id goes to its transport, an unknown one gets 404, a
  // request without one goes to a fresh transport that may initialize a session);
  // `--json`: application/json answers instead of SSE.
  const http = require('node:http');
  const { randomUUID } = require('node:crypto');
  const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const port = Number(process.argv[httpAt + 1]);
  const sessions = new Map();
  http.createServer(async (req, res) => {
    try {
      if (new URL(req.url, 'http://127.0.0.1').pathname !== '/mcp') { res.writeHead(404).end(); return; }
      const sid = req.headers['mcp-session-id'];
      if (sid !== undefined) {
        const t = sessions.get(sid);
        if (!t) {
          res.writeHead(404, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
          return;
        }
        await t.handleRequest(req, res);
        return;
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: process.argv.includes('--json'),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
      await makeServer().connect(transport);
      await transport.handleRequest(req, res);
    } catch (e) {
      console.error(e);
      if (!res.headersSent) res.writeHead(500).end();
    }
  }).listen(port, '127.0.0.1');
}

