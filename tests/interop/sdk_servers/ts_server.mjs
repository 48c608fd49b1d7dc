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
// SDK 1.32.2 speaks only the legacy initialize handshake (up to 2025-11-25).
import { createRequire } from 'node:module';

const require = createRequire(new URL('../node/package.json', import.meta.url));
const { McpServer, ResourceTemplate } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');

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

await server.connect(new StdioServerTransport());
