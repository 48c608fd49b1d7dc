// Asking the client from a handler (`ctx.ask`, `ctx.askAll`), both eras, on the wire:
// 2026-07-28 `input_required` results with keys and a sealed `requestState`, the retries
// with `inputResponses`, the request's client capabilities, prompts and resource reads
// that ask; the legacy era's requests to the client. Also the duplicate registrations
// and the endpoint's Mcp-Param-* checks from the registered tools (httpHandler).
//
// The server is the real helper over in-memory streams; the test writes the client's
// JSON-RPC lines itself, so that every member on the wire is checked as it is.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { PassThrough } from 'node:stream'
import picomcp from '../lib/index.js'

const { Server, ConfigError, InputRequired } = picomcp

const T = { timeout: 20000 }
const WAIT_MS = 5000 // only ever reached when something hangs
const MODERN = '2026-07-28'
const LEGACY = '2025-11-25'
const ELICIT = 'elicitation/create'
const NAME_Q = { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }
const accept = (content) => ({ action: 'accept', content })

/** The helper serving over streams, and the client's side of the wire as JSON lines. */
class Wire {
  constructor (app) {
    this.app = app
    this.input = new PassThrough()
    this.output = new PassThrough()
    this.lines = []
    this.waiters = new Set()
    let rest = ''
    this.output.on('data', (chunk) => {
      const parts = (rest + chunk.toString()).split('\n')
      rest = parts.pop()
      for (const p of parts) if (p.trim()) this.lines.push(JSON.parse(p))
      for (const w of this.waiters) w()
    })
    this.done = app.serve(this.input, this.output)
  }

  send (msg) { this.input.write(JSON.stringify(msg) + '\n') }

  /** Resolves with the first line (from `from` on) that `pred` accepts. */
  wait (pred, what, from = 0) {
    return new Promise((resolve, reject) => {
      const look = () => {
        const hit = this.lines.slice(from).find(pred)
        if (!hit) return false
        this.waiters.delete(look)
        clearTimeout(timer)
        resolve(hit)
        return true
      }
      const timer = setTimeout(() => { this.waiters.delete(look); reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.lines)}`)) }, WAIT_MS)
      this.waiters.add(look)
      look()
    })
  }

  answerTo (id) { return this.wait((m) => m.id === id && ('result' in m || 'error' in m), `the answer to ${id}`) }

  /** 2026-07-28: one request with the `_meta` envelope; resolves with its answer. */
  modern (id, method, params, caps = { elicitation: {}, sampling: {}, roots: {} }) {
    const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': caps }
    this.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } })
    return this.answerTo(id)
  }

  /** The legacy handshake with `caps`. */
  async initialize (caps) {
    this.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: LEGACY, capabilities: caps, clientInfo: { name: 't', version: '1' } } })
    await this.answerTo('init')
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    return this
  }

  async end () {
    this.input.end()
    return this.done
  }
}

const textOf = (m) => m.result.content[0].text

/** A server with tools that ask, and a log of what each handler saw. */
function askingApp (options = {}) {
  const app = new Server('mrtr-test', '1.0.0', { logLevel: 'error', ...options })
  const seen = (app.seen = [])
  app.tool('one', {}, async (args, ctx) => {
    seen.push({ state: ctx.requestState, caps: ctx.clientCapabilities, modern: ctx.modern })
    const a = await ctx.ask(ELICIT, NAME_Q, { key: 'who', state: 'step-1' })
    return `hello ${a.content.name} (state ${ctx.requestState})`
  })
  app.tool('three', {}, async (args, ctx) => {
    const got = await ctx.askAll({
      a: { method: ELICIT, params: NAME_Q },
      b: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } },
      c: { method: 'roots/list' }
    }, { state: 'all-three' })
    return `a=${got.a.content.name} b=${got.b.content.text} c=${got.c.roots.length} (state ${ctx.requestState})`
  })
  app.tool('caps', {}, (args, ctx) => JSON.stringify(ctx.clientCapabilities))
  app.tool('guarded', {}, async (args, ctx) => {
    try {
      return (await ctx.ask(ELICIT, NAME_Q)).action
    } catch (e) {
      if (e instanceof InputRequired) throw e // a catch-all lets the question through
      return 'swallowed'
    }
  })
  app.prompt('asks', {}, async (args, ctx) => {
    const a = await ctx.ask(ELICIT, NAME_Q, { key: 'ctx' })
    return [{ role: 'user', content: { type: 'text', text: `context: ${a.content.name}` } }]
  })
  app.resource('test://asks', { mimeType: 'text/plain' }, async (uri, ctx) => {
    const a = await ctx.ask(ELICIT, NAME_Q, { key: 'reader', state: 'r' })
    return `read for ${a.content.name}`
  })
  return app
}

test('2026-07-28 ctx.ask: the key and a sealed requestState; the retry resolves it', T, async () => {
  const w = new Wire(askingApp())
  const first = await w.modern(1, 'tools/call', { name: 'one', arguments: {} })
  assert.equal(first.result.resultType, 'input_required')
  assert.deepEqual(Object.keys(first.result.inputRequests), ['who'])
  assert.deepEqual(first.result.inputRequests.who, { method: ELICIT, params: NAME_Q })
  // The state goes out sealed by the core (the Server's stateKey), not as the handler wrote it.
  const sealed = first.result.requestState
  assert.match(sealed, /^s1\..*\.step-1$/)
  const retry = await w.modern(2, 'tools/call', { name: 'one', arguments: {}, inputResponses: { who: accept({ name: 'Ada' }) }, requestState: sealed })
  assert.equal(textOf(retry), 'hello Ada (state step-1)')
  // The handler saw no state the first time, the unsealed one on the retry.
  assert.deepEqual(w.app.seen.map((s) => s.state), [null, 'step-1'])
  assert.ok(w.app.seen.every((s) => s.modern))
  // A handler that catches everything and throws InputRequired on: still a question.
  const guarded = await w.modern(3, 'tools/call', { name: 'guarded', arguments: {} })
  assert.deepEqual(Object.keys(guarded.result.inputRequests), ['elicitation'])
  assert.equal(await w.end(), 0)
})

test('2026-07-28: a tampered requestState is -32602 and never reaches the handler', T, async () => {
  const w = new Wire(askingApp())
  const first = await w.modern(1, 'tools/call', { name: 'one', arguments: {} })
  const bad = await w.modern(2, 'tools/call', { name: 'one', arguments: {}, inputResponses: { who: accept({ name: 'Eve' }) }, requestState: first.result.requestState + '-TAMPERED' })
  assert.equal(bad.error.code, -32602)
  // Another server's key does not verify it either (nor does a plain string).
  const other = new Wire(askingApp())
  const foreign = await other.modern(3, 'tools/call', { name: 'one', arguments: {}, inputResponses: { who: accept({ name: 'Eve' }) }, requestState: first.result.requestState })
  assert.equal(foreign.error.code, -32602)
  assert.equal(w.app.seen.length, 1)
  assert.equal(other.app.seen.length, 0)
  assert.equal(await w.end(), 0)
  assert.equal(await other.end(), 0)
})

test('stateKey: servers that share a key take each other\'s state; a short key is the core\'s ConfigError', T, async () => {
  const key = Buffer.alloc(32, 7)
  const a = new Wire(askingApp({ stateKey: key }))
  const b = new Wire(askingApp({ stateKey: key }))
  const first = await a.modern(1, 'tools/call', { name: 'one', arguments: {} })
  const retry = await b.modern(2, 'tools/call', { name: 'one', arguments: {}, inputResponses: { who: accept({ name: 'Bob' }) }, requestState: first.result.requestState })
  assert.equal(textOf(retry), 'hello Bob (state step-1)')
  assert.equal(await a.end(), 0)
  assert.equal(await b.end(), 0)
  assert.throws(() => new Server('s', '1', { stateKey: Buffer.alloc(4) }), ConfigError)
  assert.throws(() => new Server('s', '1', { stateKey: 'not bytes' }), /stateKey must be a Buffer/)
})

test('2026-07-28 ctx.askAll: one input_required for every key, then only the missing ones', T, async () => {
  const w = new Wire(askingApp())
  const first = await w.modern(1, 'tools/call', { name: 'three', arguments: {} })
  assert.equal(first.result.resultType, 'input_required')
  assert.deepEqual(Object.keys(first.result.inputRequests).sort(), ['a', 'b', 'c'])
  assert.deepEqual(first.result.inputRequests.c, { method: 'roots/list', params: {} })
  const state = first.result.requestState
  // A retry that answers `a` only (and `c` with something that is not a result): asked again for b and c.
  const partial = await w.modern(2, 'tools/call', { name: 'three', arguments: {}, inputResponses: { a: accept({ name: 'Ada' }), c: 'nope', extra: {} }, requestState: state })
  assert.equal(partial.result.resultType, 'input_required')
  assert.deepEqual(Object.keys(partial.result.inputRequests).sort(), ['b', 'c'])
  const all = {
    a: accept({ name: 'Ada' }),
    b: { role: 'assistant', content: { type: 'text', text: 'Hi' }, model: 'm' },
    c: { roots: [{ uri: 'file:///tmp' }] },
    unknown_extra_key: { action: 'accept', content: {} }
  }
  const done = await w.modern(3, 'tools/call', { name: 'three', arguments: {}, inputResponses: all, requestState: partial.result.requestState })
  assert.equal(textOf(done), 'a=Ada b=Hi c=1 (state all-three)')
  assert.equal(await w.end(), 0)
})

test('2026-07-28: -32021 names the capabilities the request did not declare; bad retry members are -32602', T, async () => {
  const w = new Wire(askingApp())
  const missing = await w.modern(1, 'tools/call', { name: 'three', arguments: {} }, { sampling: {} })
  assert.equal(missing.error.code, -32021)
  assert.deepEqual(missing.error.data.requiredCapabilities, { elicitation: {}, roots: {} })
  const notObject = await w.modern(2, 'tools/call', { name: 'one', arguments: {}, inputResponses: ['x'] })
  assert.deepEqual([notObject.error.code, notObject.error.message], [-32602, 'Invalid params: `inputResponses` must be an object'])
  assert.equal(await w.end(), 0)
})

test('ctx.clientCapabilities: the request\'s in 2026-07-28, the session\'s in the legacy era', T, async () => {
  const w = new Wire(askingApp())
  const modern = await w.modern(1, 'tools/call', { name: 'caps', arguments: {} }, { sampling: { tools: {} } })
  assert.deepEqual(JSON.parse(textOf(modern)), { sampling: { tools: {} } })
  assert.equal(await w.end(), 0)
  const l = await new Wire(askingApp()).initialize({ roots: { listChanged: true } })
  l.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'caps', arguments: {} } })
  assert.deepEqual(JSON.parse(textOf(await l.answerTo(2))), { roots: { listChanged: true } })
  assert.equal(await l.end(), 0)
})

test('2026-07-28: a prompt and a resource reader ask too (input_required on prompts/get and resources/read)', T, async () => {
  const w = new Wire(askingApp())
  const p1 = await w.modern(1, 'prompts/get', { name: 'asks' })
  assert.equal(p1.result.resultType, 'input_required')
  assert.deepEqual(Object.keys(p1.result.inputRequests), ['ctx'])
  const p2 = await w.modern(2, 'prompts/get', { name: 'asks', inputResponses: { ctx: accept({ name: 'docs' }) } })
  assert.deepEqual(p2.result.messages, [{ role: 'user', content: { type: 'text', text: 'context: docs' } }])
  const r1 = await w.modern(3, 'resources/read', { uri: 'test://asks' })
  assert.equal(r1.result.resultType, 'input_required')
  const r2 = await w.modern(4, 'resources/read', { uri: 'test://asks', inputResponses: { reader: accept({ name: 'Ann' }) }, requestState: r1.result.requestState })
  assert.equal(r2.result.contents[0].text, 'read for Ann')
  assert.equal(await w.end(), 0)
})

test('legacy era: ctx.ask and ctx.askAll are requests to the client (key and state unused)', T, async () => {
  const w = await new Wire(askingApp()).initialize({ elicitation: {}, sampling: {}, roots: {} })
  const from = w.lines.length
  w.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'three', arguments: {} } })
  // All three go out together, before any is answered.
  const asks = []
  for (const method of [ELICIT, 'sampling/createMessage', 'roots/list']) asks.push(await w.wait((m) => m.method === method, method, from))
  w.send({ jsonrpc: '2.0', id: asks[0].id, result: accept({ name: 'Lin' }) })
  w.send({ jsonrpc: '2.0', id: asks[1].id, result: { role: 'assistant', content: { type: 'text', text: 'Yo' }, model: 'm' } })
  w.send({ jsonrpc: '2.0', id: asks[2].id, result: { roots: [] } })
  assert.equal(textOf(await w.answerTo(2)), 'a=Lin b=Yo c=0 (state null)')
  w.send({ jsonrpc: '2.0', id: 3, method: 'prompts/get', params: { name: 'asks' } })
  const q = await w.wait((m) => m.method === ELICIT && m.params.message === 'Name?' && m.id !== asks[0].id, 'the prompt\'s question')
  w.send({ jsonrpc: '2.0', id: q.id, result: accept({ name: 'notes' }) })
  assert.equal((await w.answerTo(3)).result.messages[0].content.text, 'context: notes')
  assert.equal(await w.end(), 0)
})

test('registering a name twice throws the core\'s message (as in Python); the first stays', () => {
  const app = new Server('dup', '1')
  app.tool('t', {}, () => 'first')
  assert.throws(() => app.tool('t', {}, () => 'second'), (e) => e instanceof ConfigError && e.message === 'tool "t": name: used by an earlier entry too')
  assert.equal(app.tools.get('t').fn(), 'first')
  app.resource('test://a', {}, () => 'a')
  assert.throws(() => app.resource('test://a', {}, () => 'b'), { message: 'resource "test://a": uri: used by an earlier entry too' })
  app.resource('test://{a}', {}, () => 'a')
  assert.throws(() => app.resource('test://{a}', {}, () => 'b'), { message: 'resource template "test://{a}": uriTemplate: used by an earlier entry too' })
  assert.equal(app.templates.length, 1)
  app.prompt('p', {}, () => [])
  assert.throws(() => app.prompt('p', {}, () => []), { message: 'prompt "p": name: used by an earlier entry too' })
})

test('httpHandler hands the endpoint the tools: Mcp-Param-* headers are checked, also for a tool added later', T, async () => {
  const app = new Server('params', '1', { logLevel: 'error' })
  const annotated = { type: 'object', properties: { text: { type: 'string', 'x-mcp-header': 'Text' } }, required: ['text'] }
  app.tool('echo_header', { inputSchema: annotated }, (a) => a.text)
  const handler = app.httpHandler()
  const server = http.createServer(handler)
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${server.address().port}/mcp`
  const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} }
  const call = (name, text, extra = {}) => fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name, ...extra },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { text }, _meta: meta } })
  })
  try {
    let r = await call('echo_header', 'hi', { 'mcp-param-text': 'hi' })
    assert.equal(r.status, 200)
    assert.equal((await r.json()).result.content[0].text, 'hi')
    r = await call('echo_header', 'hi')
    assert.equal(r.status, 400, 'a missing Mcp-Param-Text header')
    r = await call('echo_header', 'hi', { 'mcp-param-text': 'other' })
    assert.equal(r.status, 400, 'a header that does not match the argument')
    // Registered after the handler was made: checked as well.
    app.tool('late', { inputSchema: annotated }, (a) => a.text)
    assert.equal((await call('late', 'x')).status, 400)
    assert.equal((await call('late', 'x', { 'mcp-param-text': 'x' })).status, 200)
  } finally {
    handler.close()
    await new Promise((resolve) => server.close(resolve))
  }
})
