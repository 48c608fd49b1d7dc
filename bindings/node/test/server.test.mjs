// The stdio `Server` helper: its pure pieces, and a whole server over in-memory streams
// (node:stream PassThrough) driven by a client `Session` from the test.
// (A port of bindings/python/tests/test_server.py.)
//
// Every wait is bounded, so a hang fails fast instead of blocking the run.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { PassThrough } from 'node:stream'
import { setImmediate as tick } from 'node:timers/promises'

const require = createRequire(import.meta.url)
const { Session, Server, ServerLayer, Context, McpError, ToolError, ConfigError } = require('../lib/index.js')

const WAIT_MS = 5000 // only ever reached when something hangs
const T = { timeout: 20000 }
const MODERN_VERSION = '2026-07-28'

// The helper writes diagnostics (handler failures, usage) to stderr: keep them out of the
// test output, and let tests look at them.
const stderr = []
let realWrite
before(() => {
  realWrite = process.stderr.write
  process.stderr.write = (chunk, ...rest) => {
    stderr.push(String(chunk))
    const cb = rest.find((x) => typeof x === 'function')
    if (cb) cb()
    return true
  }
})
after(() => { process.stderr.write = realWrite })

// ---- argument checks: the core's layer ----

const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} }

/**
 * One `tools/call` of a tool with `schema` through the core's layer (2026-07-28, where
 * bad arguments are an isError result): `{accepted, arguments, defaults}` when the call
 * reached the host, `{accepted: false, message, code}` when the layer answered it.
 */
function callThroughLayer (schema, args) {
  const layer = new ServerLayer({ tools: [{ name: 't', inputSchema: schema }] })
  const s = new Session('server', 's', '1', layer.capabilities)
  const params = args === undefined ? { name: 't', _meta: MODERN_META } : { name: 't', arguments: args, _meta: MODERN_META }
  s.handleBytes(0, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) + '\n')
  const ev = layer.pollEvent(s)
  if (ev.kind === 'call') return { accepted: true, arguments: ev.arguments, defaults: ev.defaults }
  assert.equal(ev.kind, 'answered')
  const out = JSON.parse(s.pollTransmit().toString())
  if (out.error) return { accepted: false, code: out.error.code, message: out.error.message }
  assert.equal(out.result.isError, true)
  return { accepted: false, message: out.result.content[0].text }
}

// On a branch where the core's schema module is still the stub (it checks `required` only,
// and reports no defaults), the checks it lacks are skipped; they run once it has landed.
const FULL_SCHEMA = !callThroughLayer({ type: 'object', properties: { x: { type: 'string' } } }, { x: 1 }).accepted
const NEEDS_SCHEMA = FULL_SCHEMA ? false : 'needs the core schema validator (the stub checks `required` only)'

const SCHEMA = {
  type: 'object',
  properties: {
    text: { type: 'string' },
    count: { type: 'integer', minimum: 1, maximum: 10 },
    ratio: { type: 'number' },
    flag: { type: 'boolean' },
    tags: { type: 'array' },
    opt: { type: ['string', 'null'] },
    obj: { type: 'object' },
    free: {}
  },
  required: ['text']
}

describe('arguments are checked by the core against inputSchema', () => {
  const accepted = [
    { text: 'x' },
    { text: 'x', count: 3, ratio: 0.5, flag: true, tags: [], opt: null, obj: {} },
    { text: 'x', count: 2.0 },
    { text: 'x', opt: 's', free: { any: 1 }, extra: 1 }
  ]
  for (const args of accepted) {
    test(`accepted: ${JSON.stringify(args)}`, () => {
      const r = callThroughLayer(SCHEMA, args)
      assert.equal(r.accepted, true, r.message)
      assert.deepEqual(r.arguments, args)
    })
  }
  test('no arguments, or null, is {}', () => {
    assert.deepEqual(callThroughLayer({ type: 'object' }, undefined).arguments, {})
    assert.deepEqual(callThroughLayer({ type: 'object' }, null).arguments, {})
  })
  test('arguments that are not an object: -32602 in every revision', () => {
    for (const args of [[], 'text', 3]) {
      const r = callThroughLayer(SCHEMA, args)
      assert.deepEqual([r.accepted, r.code], [false, -32602], JSON.stringify(args))
    }
  })
  test('a missing required argument', () => {
    const r = callThroughLayer(SCHEMA, {})
    assert.equal(r.accepted, false)
    assert.match(r.message, /^Invalid arguments for tool t: /)
  })
  // [arguments, the field the message names]
  const rejected = [
    [{}, 'text'],
    [{ text: 1 }, 'text'],
    [{ text: 'x', count: true }, 'count'],
    [{ text: 'x', count: 1.5 }, 'count'],
    [{ text: 'x', count: 0 }, 'count'],
    [{ text: 'x', count: 11 }, 'count'],
    [{ text: 'x', ratio: '1' }, 'ratio'],
    [{ text: 'x', flag: 1 }, 'flag'],
    [{ text: 'x', tags: {} }, 'tags'],
    [{ text: 'x', obj: [] }, 'obj'],
    [{ text: 'x', obj: null }, 'obj'], // JSON Schema: null is not an object
    [{ text: 'x', opt: 3 }, 'opt']
  ]
  for (const [args, field] of rejected) {
    test(`rejected, naming ${field}: ${JSON.stringify(args)}`, { skip: NEEDS_SCHEMA }, () => {
      const r = callThroughLayer(SCHEMA, args)
      assert.equal(r.accepted, false)
      assert.match(r.message, new RegExp(`^Invalid arguments for tool t: .*${field}`))
    })
  }
  test('additionalProperties: false', { skip: NEEDS_SCHEMA }, () => {
    const schema = { ...SCHEMA, additionalProperties: false }
    assert.match(callThroughLayer(schema, { text: 'x', extra: 1 }).message, /extra/)
    assert.equal(callThroughLayer(schema, { text: 'x' }).accepted, true)
  })
  test('the defaults of missing arguments are reported', { skip: NEEDS_SCHEMA }, () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', default: 3 }, s: { type: 'string', default: 'a' } } }
    assert.deepEqual(callThroughLayer(schema, { s: 'b' }).defaults, { n: 3 })
  })
  test('a broken definition is refused at start-up, and by the helper at registration', () => {
    assert.throws(() => new ServerLayer({ tools: [{ name: 't', inputSchema: { type: 'string' } }] }), (e) => e instanceof ConfigError && /inputSchema/.test(e.message))
    assert.throws(() => new ServerLayer({ tools: [{ name: 't' }, { name: 't' }] }), ConfigError)
    const app = new Server('s', '1')
    assert.throws(() => app.tool('t', { inputSchema: { type: 'array' } }, () => 'x'), {
      name: 'ConfigError', message: 'tool "t": inputSchema: must be an object schema ("type": "object")'
    })
    assert.equal(app.tools.size, 0) // nothing was registered
  })
})

test('capabilities are derived from what is registered', () => {
  assert.deepEqual(new Server('s', '1').capabilities, { logging: {} })
  assert.deepEqual(new Server('s', '1', { logging: false }).capabilities, {})
  const app = new Server('s', '1')
    .tool('t', {}, () => 'x')
    .resource('test://a', {}, () => 'a')
    .prompt('p', { arguments: [{ name: 'who' }] }, () => [])
  assert.deepEqual(app.capabilities, {
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    logging: {}
  })
  app.completion('p', 'who', () => [])
  assert.deepEqual(app.capabilities.completions, {})
  assert.throws(() => app.completion('nope', 'x', () => []), TypeError)
  assert.equal(app.isSubscribed('test://a'), false) // not serving yet
})

test('run() rejects bad arguments with status 2', T, async () => {
  stderr.length = 0
  assert.equal(await new Server('s', '1').run(['--bogus']), 2)
  assert.equal(await new Server('s', '1').run(['--max-line', '10']), 2)
  assert.equal(await new Server('s', '1').run(['--log-level']), 2)
  assert.equal(await new Server('s', '1').run(['--log-level=loud']), 2)
  assert.ok(stderr.join('').includes('usage: s'))
})

// ---- a whole server over in-memory streams ----

/** A gate a handler waits on; `wait(signal)` rejects when the request is cancelled. */
function makeGate (open) {
  let release
  const promise = new Promise((resolve) => { release = resolve })
  if (open) release()
  return {
    open: release,
    wait: (signal) => new Promise((resolve, reject) => {
      if (signal) {
        if (signal.aborted) return reject(signal.reason)
        signal.addEventListener('abort', () => reject(signal.reason), { once: true })
      }
      promise.then(resolve)
    })
  }
}

function makeApp (gate, seen) {
  const app = new Server('test-server', '1.0.0', { instructions: 'for tests', logLevel: 'error' })
  app.tool('echo', {
    description: 'Echoes its text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }
  }, (args) => args.text)
  app.tool('fail', { description: 'Always fails' }, () => { throw new ToolError('boom') })
  app.tool('strict', { description: 'Throws a JSON-RPC error' }, () => { throw new McpError(-32001, 'nope', { why: 'test' }) })
  app.tool('crash', { description: 'Has a bug' }, async () => { throw new Error('oops') })
  app.tool('blocks', { description: 'Returns content blocks' }, () => [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }])
  app.tool('slow', {
    description: 'Reports progress, then waits for the gate',
    inputSchema: { type: 'object', properties: { steps: { type: 'integer', minimum: 1 } } }
  }, async (args, ctx) => {
    const steps = args.steps ?? 3
    seen.ctx = ctx
    try {
      for (let i = 0; i < steps; i++) {
        ctx.progress(i + 1, steps, `step ${i + 1}`)
        await ctx.sleep(1)
      }
      await gate.wait(ctx.signal)
    } catch (e) {
      seen.aborted = ctx.signal.aborted
      seen.reason = e
      throw e
    }
    return `slept ${steps}`
  })
  app.tool('stubborn', { description: 'Ignores cancellation' }, async (args, ctx) => {
    seen.stubborn = ctx
    ctx.progress(1)
    await gate.wait()
    return 'too late'
  })
  app.tool('confirm', { description: 'Asks the user' }, async (args, ctx) => {
    seen.confirmRuns = (seen.confirmRuns || 0) + 1
    const answer = await ctx.ask('elicitation/create', {
      message: 'Sure?', requestedSchema: { type: 'object', properties: {} }
    })
    return `answer: ${answer.action}`
  })
  app.resource('test://static', { description: 'A fixed text', mimeType: 'text/plain' }, () => 'hello')
  app.resource('test://logo', { name: 'logo', mimeType: 'image/png' }, async () => Buffer.from([1, 2, 3]))
  app.resource('test://item/{id}', { name: 'item', description: 'One item' }, (uri, ctx, vars) => `item ${vars.id}`)
  app.prompt('greet', {
    description: 'Greets someone',
    arguments: [{ name: 'who', required: true }, { name: 'mood' }]
  }, (args) => [{ role: 'user', content: { type: 'text', text: 'Hello ' + args.who } }])
  app.completion('greet', 'who', (value) => ['Ada', 'Alan', 'Bob'].filter((n) => n.startsWith(value)))
  app.completion('test://item/{id}', 'id', () => Array.from({ length: 150 }, (_, i) => String(i)))
  return app
}

function drain (session) {
  const out = []
  for (let ev = session.pollEvent(); ev; ev = session.pollEvent()) out.push(ev)
  return out
}

function withTimeout (promise, what, ms = WAIT_MS) {
  let timer
  return Promise.race([
    promise,
    new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms) })
  ]).finally(() => clearTimeout(timer))
}

/** A `Server` serving a PassThrough pair, and a client `Session` on the other ends. */
class Harness {
  constructor (app, versions, clientCaps = {}) {
    this.app = app
    this.input = new PassThrough()
    this.output = new PassThrough()
    this.client = new Session('client', 'test-client', '1.0.0', clientCaps, { versions })
    this.events = []
    this.waiters = new Set()
    this.failure = null
    this.incoming = []
    this.busy = false
    this.output.on('data', (chunk) => this._onData(chunk))
    this.done = app.serve(this.input, this.output)
    this.done.then((r) => { this.result = r }, () => {})
    this.flush()
  }

  _onData (chunk) {
    // Writing to the input may run the server, and its output reach us, before this call
    // returns: queue chunks so that bytes reach the client in order.
    this.incoming.push(chunk)
    if (this.busy) return
    this.busy = true
    try {
      while (this.incoming.length) {
        let data = this.incoming.shift()
        while (data.length && this.client.phase !== 'closed') {
          data = data.subarray(this.client.handleBytes(0, data))
          this.events.push(...drain(this.client))
          this.flush()
        }
      }
    } catch (e) {
      this.failure = e
    } finally {
      this.busy = false
    }
    this._check()
  }

  /** Writes what the client queued to the server's input. */
  flush () {
    const data = this.client.pollTransmit()
    if (data.length && !this.input.writableEnded) this.input.write(data)
  }

  _check () {
    for (const w of this.waiters) {
      if (this.failure || w.pred(this.events)) { this.waiters.delete(w); w.resolve() }
    }
  }

  /** Resolves once `pred(events)` holds; fails after WAIT_MS. */
  async until (pred, what) {
    const w = { pred }
    const p = new Promise((resolve) => { w.resolve = resolve })
    this.waiters.add(w)
    this._check()
    try {
      await withTimeout(p, `${what}; events: ${JSON.stringify(this.events)}`)
    } finally {
      this.waiters.delete(w)
    }
    if (this.failure) throw this.failure
  }

  async handshake () {
    await this.until((evs) => evs.some((e) => e.kind === 'ready'), 'the handshake')
    assert.equal(this.client.phase, 'operating')
    this.peer = this.events.find((e) => e.kind === 'negotiated').peer
    this.events = []
    return this
  }

  answerTo (rid) {
    return this.events.find((e) => e.id === rid && (e.kind === 'response' || e.kind === 'error_response'))
  }

  send (method, params, options) {
    const rid = this.client.sendRequest(0, method, params, options)
    this.flush()
    return rid
  }

  async request (method, params, options) {
    const rid = this.send(method, params, options)
    await this.until(() => this.answerTo(rid), method)
    return this.answerTo(rid)
  }

  call (name, args, options) {
    return this.request('tools/call', args === undefined ? { name } : { name, arguments: args }, options)
  }

  /** Ends the server's input; resolves with what serve() resolved with. */
  async end () {
    this.input.end()
    const result = await withTimeout(this.done, 'serve() to return after EOF')
    await tick() // whatever the server wrote last
    this.events.push(...drain(this.client))
    if (this.failure) throw this.failure
    return result
  }
}

async function serve (versions, { gateOpen = true, clientCaps = {} } = {}) {
  const gate = makeGate(gateOpen)
  const seen = {}
  const h = new Harness(makeApp(gate, seen), versions, clientCaps)
  h.gate = gate
  h.seen = seen
  return h.handshake()
}

const textOf = (ev) => ev.result.content[0].text

describe('a server over streams', () => {
  for (const version of ['2025-06-18', '2025-11-25', MODERN_VERSION]) {
    test(version, T, async () => {
      const h = await serve([version])
      assert.equal(h.client.version, version)
      const info = version === MODERN_VERSION ? h.peer._meta['io.modelcontextprotocol/serverInfo'] : h.peer.serverInfo
      assert.deepEqual(info, { name: 'test-server', version: '1.0.0' })
      assert.deepEqual(Object.keys(h.peer.capabilities).sort(), ['completions', 'logging', 'prompts', 'resources', 'tools'])

      let ev = await h.request('tools/list')
      assert.equal(ev.kind, 'response')
      const tools = Object.fromEntries(ev.result.tools.map((t) => [t.name, t]))
      assert.deepEqual(Object.keys(tools), ['echo', 'fail', 'strict', 'crash', 'blocks', 'slow', 'stubborn', 'confirm'])
      assert.equal(tools.echo.description, 'Echoes its text')
      assert.deepEqual(tools.echo.inputSchema.required, ['text'])
      assert.deepEqual(tools.fail.inputSchema, { type: 'object' })

      // A string return is one text block.
      ev = await h.call('echo', { text: 'hi' })
      assert.equal(ev.kind, 'response')
      assert.deepEqual(ev.result.content, [{ type: 'text', text: 'hi' }])
      assert.equal(ev.result.isError, undefined)
      ev = await h.call('blocks', {})
      assert.deepEqual(ev.result.content, [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }])

      // ToolError: a result with isError.
      ev = await h.call('fail', {})
      assert.equal(ev.kind, 'response')
      assert.equal(ev.result.isError, true)
      assert.equal(textOf(ev), 'boom')

      ev = await h.call('strict')
      assert.deepEqual(ev, { kind: 'error_response', id: ev.id, code: -32001, message: 'nope', data: { why: 'test' } })

      // Any other exception: an isError result with its message (the model sees it), the
      // stack on stderr, and the server goes on.
      stderr.length = 0
      ev = await h.call('crash', {})
      assert.equal(ev.kind, 'response')
      assert.deepEqual([ev.result.content, ev.result.isError], [[{ type: 'text', text: 'oops' }], true])
      assert.match(stderr.join(''), /tool crash failed: Error: oops\n\s+at /)

      ev = await h.call('nosuchtool', {})
      assert.equal(ev.kind, 'error_response')
      assert.equal(ev.code, -32602)

      // The async tool, with progress.
      const before = h.events.length
      const rid = h.send('tools/call', { name: 'slow', arguments: { steps: 3 } }, { progress: true })
      await h.until(() => h.answerTo(rid), 'slow')
      const progress = h.events.slice(before).filter((e) => e.kind === 'progress' && e.id === rid)
      assert.deepEqual(progress.map((e) => [e.progress, e.total, e.params.message]), [[1, 3, 'step 1'], [2, 3, 'step 2'], [3, 3, 'step 3']])
      assert.equal(textOf(h.answerTo(rid)), 'slept 3')
      // Without a progress token, no progress is sent.
      h.events = []
      ev = await h.call('slow', { steps: 2 })
      assert.equal(textOf(ev), 'slept 2')
      assert.deepEqual(h.events.map((e) => e.kind), ['response'])

      ev = await h.request('resources/list')
      assert.deepEqual(ev.result.resources, [
        { uri: 'test://static', name: 'test://static', description: 'A fixed text', mimeType: 'text/plain' },
        { uri: 'test://logo', name: 'logo', mimeType: 'image/png' }
      ])
      ev = await h.request('resources/templates/list')
      assert.deepEqual(ev.result.resourceTemplates, [{ uriTemplate: 'test://item/{id}', name: 'item', description: 'One item' }])
      ev = await h.request('resources/read', { uri: 'test://static' })
      assert.deepEqual(ev.result.contents, [{ uri: 'test://static', mimeType: 'text/plain', text: 'hello' }])
      // A Buffer is a base64 blob.
      ev = await h.request('resources/read', { uri: 'test://logo' })
      assert.deepEqual(ev.result.contents, [{ uri: 'test://logo', mimeType: 'image/png', blob: 'AQID' }])
      // A template: one path segment per variable.
      ev = await h.request('resources/read', { uri: 'test://item/42' })
      assert.deepEqual(ev.result.contents, [{ uri: 'test://item/42', text: 'item 42' }])
      ev = await h.request('resources/read', { uri: 'test://item/4/2' })
      assert.equal(ev.kind, 'error_response')
      ev = await h.request('resources/read', { uri: 'test://missing' })
      // -32002 was removed in 2026-07-28: the core sends -32602 there.
      const code = version === MODERN_VERSION ? -32602 : -32002
      assert.deepEqual([ev.kind, ev.code, ev.data], ['error_response', code, { uri: 'test://missing' }])

      ev = await h.request('prompts/list')
      assert.deepEqual(ev.result.prompts.map((p) => p.name), ['greet'])
      ev = await h.request('prompts/get', { name: 'greet', arguments: { who: 'Ada' } })
      assert.equal(ev.result.messages[0].content.text, 'Hello Ada')
      assert.equal(ev.result.description, 'Greets someone')
      ev = await h.request('prompts/get', { name: 'greet', arguments: { mood: 'happy' } })
      assert.deepEqual([ev.kind, ev.code], ['error_response', -32602])
      assert.match(ev.message, /who/)
      ev = await h.request('prompts/get', { name: 'nope' })
      assert.deepEqual([ev.kind, ev.code], ['error_response', -32602])

      ev = await h.request('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } })
      assert.deepEqual(ev.result.completion, { values: ['Ada', 'Alan'], total: 2, hasMore: false })
      ev = await h.request('completion/complete', { ref: { type: 'ref/resource', uri: 'test://item/{id}' }, argument: { name: 'id', value: '' } })
      assert.equal(ev.result.completion.values.length, 100)
      assert.equal(ev.result.completion.total, 150)
      assert.equal(ev.result.completion.hasMore, true)
      ev = await h.request('completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'who', value: '' } })
      assert.deepEqual([ev.kind, ev.code], ['error_response', -32602])

      assert.equal(await h.end(), 0)
    })
  }
})

describe('a missing required argument', () => {
  for (const [version, asToolError] of [['2025-06-18', false], ['2025-11-25', true], [MODERN_VERSION, true]]) {
    test(`${version}: ${asToolError ? 'isError result' : '-32602'}`, T, async () => {
      const h = await serve([version])
      let ev = await h.call('echo', {})
      // The core's message names the field (JSON Pointer) once its validator has landed.
      const named = FULL_SCHEMA ? /^Invalid arguments for tool echo: .*text/ : /^Invalid arguments for tool echo: /
      if (asToolError) { // SEP-1303: a tool result the model can read
        assert.equal(ev.kind, 'response')
        assert.equal(ev.result.isError, true)
        assert.match(textOf(ev), named)
      } else {
        assert.deepEqual([ev.kind, ev.code], ['error_response', -32602])
        assert.match(ev.message, named)
      }
      if (FULL_SCHEMA) {
        ev = await h.call('echo', { text: 5 })
        assert.equal(ev.kind, asToolError ? 'response' : 'error_response')
      }
      // An unknown tool is -32602 in every revision.
      ev = await h.call('nosuchtool', {})
      assert.deepEqual([ev.kind, ev.code], ['error_response', -32602])
      assert.equal(await h.end(), 0)
    })
  }
})

test('resource subscriptions and notify (legacy)', T, async () => {
  const h = await serve(['2025-11-25'])
  let ev = await h.request('resources/subscribe', { uri: 'test://static' })
  assert.equal(ev.kind, 'response')
  assert.equal(h.app.isSubscribed('test://static'), true)
  assert.equal(h.app.isSubscribed('test://logo'), false)
  h.events = []
  assert.equal(h.app.notify('notifications/resources/updated', 'test://static'), 1)
  await h.until((evs) => evs.some((e) => e.kind === 'notification'), 'the update')
  ev = h.events.find((e) => e.kind === 'notification')
  assert.equal(ev.method, 'notifications/resources/updated')
  assert.equal(ev.params.uri, 'test://static')
  assert.equal(await h.end(), 0)
})

test('EOF waits for the running tool', T, async () => {
  const h = await serve(['2025-11-25'], { gateOpen: false })
  const rid = h.send('tools/call', { name: 'slow', arguments: { steps: 2 } }, { progress: true })
  // The tool is running once its first progress arrived.
  await h.until((evs) => evs.some((e) => e.kind === 'progress'), 'the slow tool to start')
  h.input.end()
  // serve() must not return while the tool still owes its answer.
  for (let i = 0; i < 20; i++) await tick()
  assert.equal(h.result, undefined, 'serve() returned before the running tool finished')
  h.gate.open()
  assert.equal(await h.end(), 0)
  const ev = h.answerTo(rid)
  assert.ok(ev, JSON.stringify(h.events))
  assert.equal(ev.kind, 'response')
  assert.equal(textOf(ev), 'slept 2')
})

test('cancelling an async tool aborts ctx.signal; nothing more is sent for it', T, async () => {
  const h = await serve(['2025-11-25'], { gateOpen: false })
  const rid = h.send('tools/call', { name: 'slow', arguments: { steps: 1 } }, { progress: true })
  await h.until((evs) => evs.some((e) => e.kind === 'progress'), 'the slow tool to start')
  h.client.cancel(rid, 'changed my mind')
  h.flush()
  const mark = h.events.length
  // Still serving: a later request is answered, the cancelled one never is.
  const ev = await h.call('echo', { text: 'after' })
  assert.equal(textOf(ev), 'after')
  assert.equal(h.seen.aborted, true)
  assert.equal(h.seen.ctx.signal.aborted, true)
  assert.equal(h.seen.ctx.cancelled, true)
  assert.equal(h.seen.reason.code, -32800)
  // The cancelled task does not hold serve() up (the gate stays shut).
  assert.equal(await h.end(), 0)
  assert.equal(h.answerTo(rid), undefined)
  assert.deepEqual(h.events.slice(mark).filter((e) => e.id === rid), [])
})

test('a tool that ignores cancellation: its late answer is not sent', T, async () => {
  const h = await serve(['2025-11-25'], { gateOpen: false })
  const rid = h.send('tools/call', { name: 'stubborn', arguments: {} }, { progress: true })
  await h.until((evs) => evs.some((e) => e.kind === 'progress'), 'the stubborn tool to start')
  h.client.cancel(rid)
  h.flush()
  await h.until(() => h.seen.stubborn.signal.aborted, 'the cancellation to arrive')
  assert.equal(h.seen.stubborn.progress(2), false) // no more progress for it
  h.gate.open()
  assert.equal(textOf(await h.call('echo', { text: 'after' })), 'after')
  assert.equal(await h.end(), 0)
  assert.equal(h.answerTo(rid), undefined)
  assert.deepEqual(h.events.filter((e) => e.id === rid).map((e) => e.kind), ['progress'])
})

test('2026-07-28: ctx.ask is input_required, the retry with inputResponses gets the answer', T, async () => {
  const h = await serve([MODERN_VERSION], { clientCaps: { elicitation: {} } })
  const rid = h.send('tools/call', { name: 'confirm', arguments: {} })
  await h.until((evs) => evs.some((e) => e.kind === 'input_required' && e.id === rid), 'input_required')
  const ev = h.events.find((e) => e.kind === 'input_required')
  assert.equal(ev.requests.elicitation.method, 'elicitation/create')
  assert.equal(ev.requests.elicitation.params.message, 'Sure?')
  h.client.answerInput(0, rid, { elicitation: { action: 'accept', content: {} } })
  h.flush()
  await h.until(() => h.answerTo(rid), 'the answer to the retry')
  assert.equal(h.answerTo(rid).kind, 'response')
  assert.equal(textOf(h.answerTo(rid)), 'answer: accept')
  // The handler ran again from the start.
  assert.equal(h.seen.confirmRuns, 2)
  assert.equal(await h.end(), 0)
})

test('2026-07-28: ctx.ask without the client capability is -32021', T, async () => {
  const h = await serve([MODERN_VERSION], { clientCaps: {} })
  const ev = await h.call('confirm', {})
  assert.deepEqual([ev.kind, ev.code], ['error_response', -32021])
  assert.equal(await h.end(), 0)
})

test('legacy era: ctx.ask is a request to the client', T, async () => {
  const h = await serve(['2025-11-25'], { clientCaps: { elicitation: {} } })
  const rid = h.send('tools/call', { name: 'confirm', arguments: {} })
  await h.until((evs) => evs.some((e) => e.kind === 'request'), 'the elicitation request')
  const req = h.events.find((e) => e.kind === 'request')
  assert.equal(req.method, 'elicitation/create')
  assert.equal(req.params.message, 'Sure?')
  h.client.respond(req.id, { action: 'decline' })
  h.flush()
  await h.until(() => h.answerTo(rid), 'the tool answer')
  assert.equal(textOf(h.answerTo(rid)), 'answer: decline')
  assert.equal(h.seen.confirmRuns, 1)
  assert.equal(await h.end(), 0)
})

test('a handler that closes the session, then more input: serve() does not hang', T, async () => {
  const h = await serve(['2025-11-25'])
  h.app.tool('quit', { description: 'Closes the session' }, (args, ctx) => {
    assert.ok(ctx instanceof Context)
    ctx.session.close()
    return 'bye'
  })
  const ev = await h.call('quit', {})
  assert.equal(textOf(ev), 'bye')
  assert.equal(h.app.session.phase, 'closed')
  const rid = h.send('tools/list')
  await tick()
  assert.equal(await h.end(), 0)
  assert.equal(h.answerTo(rid), undefined)
})

test('lists come a page at a time from the core; results are shaped (and checked) by it', T, async () => {
  const app = new Server('paged', '1', { pageSize: 2, logLevel: 'error' })
  const SUM = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }
  app.tool('a', {}, () => 'a')
    .tool('sum', { outputSchema: SUM }, () => ({ structuredContent: { sum: 3 } }))
    .tool('untyped', { outputSchema: SUM }, () => 'not structured')
    .tool('defaults', {
      inputSchema: { type: 'object', properties: { n: { type: 'integer', default: 3 }, s: { type: 'string' } } }
    }, (args) => JSON.stringify(args))
  const h = await new Harness(app, ['2025-11-25']).handshake()
  let ev = await h.request('tools/list')
  assert.deepEqual(ev.result.tools.map((t) => t.name), ['a', 'sum'])
  const cursor = ev.result.nextCursor
  assert.equal(typeof cursor, 'string')
  ev = await h.request('tools/list', { cursor })
  assert.deepEqual(ev.result.tools.map((t) => t.name), ['untyped', 'defaults'])
  assert.equal(ev.result.nextCursor, undefined) // the last page
  ev = await h.request('tools/list', { cursor: 'not-a-cursor' })
  assert.deepEqual([ev.kind, ev.code], ['error_response', -32602])
  // Structured content: also a JSON text block.
  ev = await h.call('sum', {})
  assert.deepEqual(ev.result, { content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } })
  // A result the tool may not give (it has an outputSchema): an isError result saying why.
  ev = await h.call('untyped', {})
  assert.equal(ev.result.isError, true)
  assert.match(textOf(ev), /outputSchema/)
  // The defaults of arguments left out reach the handler.
  ev = await h.call('defaults', { s: 'x' })
  assert.deepEqual(JSON.parse(textOf(ev)), FULL_SCHEMA ? { s: 'x', n: 3 } : { s: 'x' })
  assert.equal(await h.end(), 0)
})
