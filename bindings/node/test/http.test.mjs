// Server.httpHandler() on node:http: both eras over Streamable HTTP, SSE as it comes,
// the GET stream woken by a notification, DELETE, and a body a parser already took.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import picomcp from '../lib/index.js'

const { Server, Endpoint } = picomcp

function app () {
  const s = new Server('http-test', '1.0.0', { logLevel: 'error' })
  s.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, (a) => a.text)
  s.tool('slow', { inputSchema: { type: 'object' } }, async (a, ctx) => {
    for (let i = 1; i <= 3; i++) { await ctx.sleep(20); ctx.progress(i, 3) }
    return 'done'
  })
  s.resource('test://watched', { mimeType: 'text/plain' }, () => 'w')
  return s
}

async function listen (handler) {
  const server = http.createServer(handler)
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${server.address().port}/mcp` }
}

const ACCEPT = 'application/json, text/event-stream'
const post = (url, body, headers = {}) => fetch(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body)
})
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }
/** The JSON-RPC messages of an SSE body. */
const events = (text) => text.split('\n').filter((l) => l.startsWith('data:') && l.slice(5).trim()).map((l) => JSON.parse(l.slice(5)))

test('Endpoint: the core endpoint as a class (404 off its path)', () => {
  const ep = new Endpoint({ slots: 2, streams: 2, maxBody: 4096 })
  assert.equal(ep.slotCount, 2)
  assert.equal(ep.entropyLen, 16)
  const out = ep.handleRequest(0, 'GET', '/other', ['Host', 'localhost'], Buffer.alloc(0), Buffer.alloc(16))
  assert.equal(out.kind, 'respond')
  assert.equal(out.status, 404)
  assert.equal(ep.pollTimeout(), null)
})

test('legacy session over node:http: JSON answers, SSE progress, GET stream, DELETE', async () => {
  const s = app()
  const handler = s.httpHandler()
  const { server, url } = await listen(handler)
  try {
    const r = await post(url, INIT)
    assert.equal(r.status, 200)
    const sid = r.headers.get('mcp-session-id')
    assert.ok(sid)
    assert.equal((await r.json()).result.serverInfo.name, 'http-test')
    const h = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }
    assert.equal((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, h)).status, 202)

    const echo = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'héllo' } } }, h)
    assert.equal((await echo.json()).result.content[0].text, 'héllo')

    // Progress travels with the call: an SSE response, progress first, then the result.
    const slow = await post(url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: { progressToken: 'p' } } }, h)
    assert.match(slow.headers.get('content-type'), /text\/event-stream/)
    const msgs = events(await slow.text())
    assert.deepEqual(msgs.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress), [1, 2, 3])
    assert.equal(msgs.at(-1).result.content[0].text, 'done')

    // The GET stream gets what is not tied to a request: a subscription's update.
    await (await post(url, { jsonrpc: '2.0', id: 4, method: 'resources/subscribe', params: { uri: 'test://watched' } }, h)).json()
    const ac = new AbortController()
    const get = await fetch(url, { headers: { accept: 'text/event-stream', ...h }, signal: ac.signal })
    assert.equal(get.status, 200)
    const reader = get.body.getReader()
    assert.ok(s.isSubscribed('test://watched'))
    assert.equal(s.notify('notifications/resources/updated', 'test://watched'), 1)
    let text = ''
    while (!text.includes('notifications/resources/updated')) {
      const { value, done } = await reader.read()
      assert.ok(!done, 'the GET stream ended')
      text += Buffer.from(value).toString()
    }
    ac.abort()

    const del = await fetch(url, { method: 'DELETE', headers: h })
    assert.equal(del.status, 200)
    assert.equal((await post(url, { jsonrpc: '2.0', id: 5, method: 'ping' }, h)).status, 404)
  } finally {
    handler.close()
    server.closeAllConnections()
    server.close()
  }
})

test('2026-07-28 over node:http: one request, one slot', async () => {
  const s = app()
  const handler = s.httpHandler()
  const { server, url } = await listen(handler)
  try {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
    const r = await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, _meta: meta } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' })
    assert.equal(r.status, 200)
    const body = await r.json()
    assert.equal(body.result.content[0].text, 'x')
  } finally {
    handler.close()
    server.close()
  }
})

test('a body a parser already took is refused (500), not re-serialized', async () => {
  const s = app()
  const handler = s.httpHandler()
  const { server, url } = await listen((req, res) => {
    // What express.json() leaves behind: the stream read, the bytes gone.
    let raw = ''
    req.on('data', (c) => { raw += c })
    req.on('end', () => { req.body = JSON.parse(raw); req._body = true; handler(req, res) })
  })
  try {
    const r = await post(url, INIT)
    assert.equal(r.status, 500)
    assert.match((await r.json()).error.message, /before any body parser/)
  } finally {
    handler.close()
    server.close()
  }
})
