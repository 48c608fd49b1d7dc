// ServerLayer: the core's server application layer through the binding. What crosses the
// boundary: the catalog in, call events out (with their values), answers in (blocks,
// contents, messages, completions) and the core's refusals as ResultError kinds.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { Session, ServerLayer, ConfigError, ResultError } = require('../lib/index.js')

const CATALOG = {
  tools: [
    { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    { name: 'blocks' }
  ],
  resources: [{ uri: 'test://a', name: 'a', mimeType: 'text/plain' }],
  resourceTemplates: [{ uriTemplate: 'test://item/{id}', name: 'item', completable: true }],
  prompts: [{ name: 'greet', description: 'Greets', arguments: [{ name: 'who', required: true, completable: true }] }]
}

/** A server session through the handshake at `version`, and the layer. */
function served (version = '2025-11-25', catalog = CATALOG) {
  const layer = new ServerLayer(catalog)
  const s = new Session('server', 's', '1', layer.capabilities)
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }
  send(s, init, { jsonrpc: '2.0', method: 'notifications/initialized' })
  while (layer.pollEvent(s));
  s.pollTransmit()
  return { layer, s }
}

function send (s, ...msgs) {
  s.handleBytes(0, msgs.map((m) => JSON.stringify(m) + '\n').join(''))
}

/** Sends one request; returns the call event the layer hands on, or the answer it sent. */
function request (h, id, method, params) {
  send(h.s, { jsonrpc: '2.0', id, method, params })
  const ev = h.layer.pollEvent(h.s)
  if (ev.kind === 'call') return ev
  assert.equal(ev.kind, 'answered')
  return JSON.parse(h.s.pollTransmit().toString())
}

const answer = (h) => JSON.parse(h.s.pollTransmit().toString())

test('call events carry the call and its values', () => {
  const h = served()
  let ev = request(h, 1, 'tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: { progressToken: 7 } })
  assert.deepEqual([ev.call, ev.index, ev.method, ev.arguments, ev.meta, ev.defaults], ['tool', 0, 'tools/call', { text: 'hi' }, { progressToken: 7 }, {}])
  assert.equal(ev.params.name, 'echo')
  ev = request(h, 2, 'resources/read', { uri: 'test://item/42' })
  assert.deepEqual([ev.call, ev.target, ev.index, ev.uri, ev.vars], ['read', 'template', 0, 'test://item/42', { id: '42' }])
  ev = request(h, 3, 'resources/read', { uri: 'test://a' })
  assert.deepEqual([ev.target, ev.index, ev.vars], ['resource', 0, {}])
  ev = request(h, 4, 'prompts/get', { name: 'greet', arguments: { who: 'Ada' } })
  assert.deepEqual([ev.call, ev.index, ev.arguments], ['prompt', 0, { who: 'Ada' }])
  ev = request(h, 5, 'completion/complete', { ref: { type: 'ref/resource', uri: 'test://item/{id}' }, argument: { name: 'id', value: '4' }, context: { arguments: { x: 'y' } } })
  assert.deepEqual([ev.call, ev.target, ev.index, ev.argument, ev.value, ev.context], ['complete', 'template', 0, 'id', '4', { arguments: { x: 'y' } }])
  // What the layer answers itself is an `answered` event and its reply.
  const out = request(h, 6, 'tools/list', {})
  assert.deepEqual(out.result.tools.map((t) => t.name), ['echo', 'blocks'])
  // Other events pass through as the session's.
  send(h.s, { jsonrpc: '2.0', id: 7, method: 'tasks/list' })
  const other = h.layer.pollEvent(h.s)
  assert.notEqual(other.kind, 'call')
})

test('answers: text is written back byte for byte; blocks the core does not name pass as written', () => {
  const h = served()
  let ev = request(h, 1, 'tools/call', { name: 'blocks' })
  const link = { type: 'resource_link', uri: 'test://a', name: 'a', annotations: { audience: ['user'] } }
  h.layer.respondTool(h.s, ev.id, ev.index, { content: [{ type: 'text', text: 'h\u00e9 "q" \n' }, link, { type: 'custom', x: 1 }], _meta: { m: 1 } })
  assert.deepEqual(answer(h).result, { content: [{ type: 'text', text: 'h\u00e9 "q" \n' }, link, { type: 'custom', x: 1 }], _meta: { m: 1 } })
  ev = request(h, 2, 'resources/read', { uri: 'test://a' })
  h.layer.respondRead(h.s, ev.id, [{ uri: 'test://a', mimeType: 'text/plain', text: 'tab\there' }, { uri: 'test://a', blob: 'AAAA' }])
  assert.deepEqual(answer(h).result.contents, [{ uri: 'test://a', mimeType: 'text/plain', text: 'tab\there' }, { uri: 'test://a', blob: 'AAAA' }])
  ev = request(h, 3, 'prompts/get', { name: 'greet', arguments: { who: 'Ada' } })
  h.layer.respondPrompt(h.s, ev.id, ev.index, [{ role: 'assistant', content: { type: 'text', text: 'Hi' } }])
  assert.deepEqual(answer(h).result, { description: 'Greets', messages: [{ role: 'assistant', content: { type: 'text', text: 'Hi' } }] })
  ev = request(h, 4, 'completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: '' } })
  h.layer.respondCompletion(h.s, ev.id, { values: Array.from({ length: 120 }, (_, i) => `v${i}`), total: 120 })
  const c = answer(h).result.completion
  assert.deepEqual([c.values.length, c.total, c.hasMore], [100, 120, true])
})

test('answers the core refuses: a ResultError with its kind, nothing sent, the request still open', () => {
  const h = served('2024-11-05')
  const ev = request(h, 1, 'tools/call', { name: 'blocks' })
  assert.throws(() => h.layer.respondTool(h.s, ev.id, ev.index, { content: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] }),
    (e) => e instanceof ResultError && e.kind === 'NotInRevision')
  assert.throws(() => h.layer.respondTool(h.s, ev.id, ev.index, { content: [{ text: 'no type' }] }),
    (e) => e instanceof ResultError && e.kind === 'InvalidContent')
  assert.throws(() => h.layer.respondTool(h.s, ev.id, 9, { content: [] }), (e) => e instanceof ResultError && e.kind === 'UnknownDefinition')
  assert.throws(() => h.layer.respondTool(h.s, ev.id, ev.index, { content: 'not an array' }), TypeError)
  assert.equal(h.s.pollTransmit().length, 0)
  h.layer.respondTool(h.s, ev.id, ev.index, { content: [{ type: 'text', text: 'ok' }] })
  assert.equal(answer(h).result.content[0].text, 'ok')
  // Answered: a second answer is the session's refusal.
  assert.throws(() => h.layer.respondTool(h.s, ev.id, ev.index, { content: [] }), (e) => e.name === 'RespondError' && e.kind === 'UnknownRequest')
})

test('catalogs: the shape is a TypeError, a definition the core refuses a ConfigError naming it', () => {
  assert.throws(() => new ServerLayer({ tools: [{ name: 3 }] }), (e) => e instanceof TypeError && /tools\[0\]\.name/.test(e.message))
  assert.throws(() => new ServerLayer({ tools: {} }), TypeError)
  assert.throws(() => new ServerLayer({ resources: [{ uri: 'test://a' }] }), /name/)
  assert.throws(() => new ServerLayer({ tools: [{ name: 't' }, { name: 't' }] }), (e) => e instanceof ConfigError && e.kind === 'Duplicate' && /tool 1/.test(e.message))
  assert.throws(() => new ServerLayer({ tools: [{ name: 't', annotations: [] }] }), (e) => e instanceof ConfigError && /annotations/.test(e.message))
  assert.throws(() => new ServerLayer({}, { pageSize: 0 }), ConfigError)
  // Escaped names are decoded once, at start-up.
  const h = served('2025-11-25', { tools: [{ name: 'caf\u00e9 "x"' }] })
  const out = request(h, 1, 'tools/list', {})
  assert.equal(out.result.tools[0].name, 'caf\u00e9 "x"')
  assert.equal(request(h, 2, 'tools/call', { name: 'caf\u00e9 "x"' }).call, 'tool')
  assert.deepEqual(new ServerLayer({ tools: [{ name: 't' }] }, { listChanged: false, logging: false }).capabilities, { tools: {} })
})

test('pollEvents: the events pollEvent gives, in one batch; respondToolText answers as respondTool with one text block', () => {
  const a = served()
  const b = served()
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'h\u00e9 "q" \\ \n\t\u0001 \u2028 😀' }, _meta: { progressToken: 'p' } } },
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'test://item/a%20b' } },
    { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: {} } },
    { jsonrpc: '2.0', id: 5, method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A"d' } } },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'no "longer"\n needed' } },
    { jsonrpc: '2.0', id: 6, method: 'tasks/list' }
  ]
  const bytes = lines.map((m) => JSON.stringify(m) + '\n').join('') + '{"broken\n'
  a.s.handleBytes(0, bytes)
  b.s.handleBytes(0, bytes)
  const one = []
  for (let ev = a.layer.pollEvent(a.s); ev; ev = a.layer.pollEvent(a.s)) one.push(ev)
  const batch = b.layer.pollEvents(b.s)
  assert.ok(one.length >= 7)
  assert.deepEqual(batch, one)
  assert.equal(b.layer.pollEvents(b.s), null)
  assert.equal(b.s.pollTransmit().toString(), a.s.pollTransmit().toString())
  // The same text answered both ways gives the same bytes.
  const text = 'h\u00e9 "q" \\ \n\t\u0001 \u2028 😀'
  const c1 = request(a, 7, 'tools/call', { name: 'echo', arguments: { text } })
  const c2 = request(b, 7, 'tools/call', { name: 'echo', arguments: { text } })
  a.layer.respondTool(a.s, c1.id, c1.index, { content: [{ type: 'text', text }] })
  b.layer.respondToolText(b.s, c2.id, c2.index, text)
  const sent = b.s.pollTransmit().toString()
  assert.equal(sent, a.s.pollTransmit().toString())
  assert.deepEqual(JSON.parse(sent).result, { content: [{ type: 'text', text }] })
  assert.throws(() => b.layer.respondToolText(b.s, c2.id, c2.index, 5), TypeError)
})
