// The core `Session`: a client and a server driven against each other on a virtual clock,
// raw lines fed to a server, and the errors thrown for caller mistakes.
// (A port of bindings/python/tests/test_session.py.)
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const picomcp = require('../lib/index.js')
const { Session, PROTOCOL_VERSIONS, PicomcpError, ConfigError, SendError, RespondError, QueueFull } = picomcp

const T = { timeout: 10000 } // only ever reached when something hangs

const SERVER_CAPS = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: {},
  logging: {}
}
const CLIENT_CAPS = { roots: { listChanged: true }, sampling: {} }
const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']
const MODERN_VERSION = '2026-07-28'

/** Framed output as parsed JSON messages. */
function lines (data) {
  return data.toString('utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
}

/** Every pending event of `session`. */
function drain (session) {
  const out = []
  for (let ev = session.pollEvent(); ev; ev = session.pollEvent()) out.push(ev)
  return out
}

/**
 * Feeds all of `data` until the session closes, returning the events seen. When the session
 * takes fewer bytes (a bounded queue is full), its transmit queue is pushed onto `out` (an
 * array of Buffers) and the rest offered again; without `out` that is a failure.
 */
function feed (session, now, data, out) {
  const events = []
  data = Buffer.from(data)
  for (let i = 0; i < 10000; i++) {
    const taken = session.handleBytes(now, data)
    data = data.subarray(taken)
    events.push(...drain(session))
    if (!data.length || session.phase === 'closed') return events // closed: takes no more
    if (!out) assert.fail('the session is full; pass out to drain it')
    out.push(session.pollTransmit())
  }
  assert.fail('the session stopped taking bytes')
}

/** A client and a server connected back to back on a virtual clock (integer ms). */
class Pair {
  constructor ({ clientVersions, serverVersions, serverCaps = SERVER_CAPS, clientCaps = CLIENT_CAPS, clientOpts = {}, serverOpts = {} } = {}) {
    this.now = 0
    this.server = new Session('server', 'test-server', '1.0.0', serverCaps,
      { instructions: 'be nice', versions: serverVersions, nowMs: 0, ...serverOpts })
    this.client = new Session('client', 'test-client', '1.0.0', clientCaps,
      { versions: clientVersions, nowMs: 0, ...clientOpts })
    this.tx = { client: [], server: [] }
    this.clientEvents = []
    this.serverEvents = []
    /** Every message sent: ['C', msg] or ['S', msg]. */
    this.wire = []
  }

  /** Moves bytes both ways until neither side sends anything; events are collected. */
  drive () {
    for (let i = 0; i < 100; i++) {
      const c = Buffer.concat([...this.tx.client, this.client.pollTransmit()])
      const s = Buffer.concat([...this.tx.server, this.server.pollTransmit()])
      this.tx.client = []
      this.tx.server = []
      if (!c.length && !s.length) return
      this.wire.push(...lines(c).map((m) => ['C', m]), ...lines(s).map((m) => ['S', m]))
      if (c.length) this.serverEvents.push(...feed(this.server, this.now, c, this.tx.server))
      if (s.length) this.clientEvents.push(...feed(this.client, this.now, s, this.tx.client))
      this.clientEvents.push(...drain(this.client))
      this.serverEvents.push(...drain(this.server))
    }
    assert.fail('the sessions never went quiet')
  }

  /** Advances the clock and fires due timeouts on both sides. */
  advance (ms) {
    this.now += ms
    this.client.handleTimeout(this.now)
    this.server.handleTimeout(this.now)
    this.clientEvents.push(...drain(this.client))
    this.serverEvents.push(...drain(this.server))
    this.drive()
  }

  handshake () {
    this.drive()
    assert.deepEqual(this.clientEvents.map((e) => e.kind), ['negotiated', 'ready'])
    this.clientEvents = []
    this.serverEvents = []
    this.wire = []
    return this
  }

  /** Takes the collected events of 'client' or 'server'. */
  take (side) {
    const key = side === 'client' ? 'clientEvents' : 'serverEvents'
    const out = this[key]
    this[key] = []
    return out
  }

  /** Client sends a request; returns [client id, the server's request event]. */
  request (method, params, options) {
    const cid = this.client.sendRequest(this.now, method, params, options)
    this.drive()
    const reqs = this.take('server').filter((e) => e.kind === 'request')
    assert.equal(reqs.length, 1, JSON.stringify(reqs))
    assert.equal(reqs[0].method, method)
    return [cid, reqs[0]]
  }
}

/** A legacy pair that completed the handshake at 2025-11-25. */
const legacyPair = () => new Pair({ clientVersions: ['2025-11-25'], clientOpts: { requestTimeoutMs: 1000 } }).handshake()
/** A pair in the 2026-07-28 era. */
const modernPair = (opts = {}) => new Pair({ clientVersions: [MODERN_VERSION], ...opts }).handshake()

const INIT = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":' +
  '"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}'
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}'

/** A server that completed the handshake at 2025-11-25 (fed raw lines). */
function readyServer (options = {}) {
  const s = new Session('server', 'srv', '1.0', { tools: {}, logging: {} }, options)
  const evs = feed(s, 0, INIT + '\n' + INITIALIZED + '\n')
  assert.deepEqual(evs.map((e) => e.kind), ['negotiated', 'ready'])
  assert.equal(lines(s.pollTransmit()).length, 1)
  return s
}

const EMPTY = Buffer.alloc(0)

// ---- module surface ----

// What each revision has, as the helpers ask it (the full table is checked against the
// schemas in core/tests/features.rs).
test('features per revision', () => {
  const table = {
    batches: [false, true, false, false, false],
    title: [false, false, true, true, true],
    output_schema: [false, false, true, true, true],
    structured_content: [false, false, true, true, true],
    argument_errors_as_tool_results: [false, false, false, true, true],
    tasks: [false, false, false, true, false],
    input_required: [false, false, false, false, true]
  }
  for (const [name, row] of Object.entries(table)) {
    assert.ok(picomcp.FEATURES.includes(name), name)
    assert.deepEqual(PROTOCOL_VERSIONS.map((v) => picomcp.features(v).includes(name)), row, name)
  }
  for (const v of PROTOCOL_VERSIONS) assert.ok(picomcp.features(v).every((f) => picomcp.FEATURES.includes(f)))
  assert.throws(() => picomcp.features('2023-01-01'), TypeError)
})

test('module constants', () => {
  assert.deepEqual(PROTOCOL_VERSIONS, [...LEGACY_VERSIONS, MODERN_VERSION])
  assert.equal(picomcp.version, require('../package.json').version)
  assert.ok(typeof picomcp.version === 'string' && picomcp.version)
  for (const cls of [ConfigError, SendError, RespondError, QueueFull]) {
    assert.ok(cls.prototype instanceof PicomcpError)
    const e = new cls('x')
    assert.equal(e.name, cls.name)
    assert.equal(e.message, 'x')
  }
  assert.ok(PicomcpError.prototype instanceof Error)
})

// ---- handshake ----

describe('legacy handshake', () => {
  for (const version of LEGACY_VERSIONS) {
    test(version, T, () => {
      const p = new Pair({ clientVersions: [version] })
      assert.equal(p.client.phase, 'initializing')
      assert.equal(p.client.version, null)
      p.drive()
      const c = p.take('client')
      const s = p.take('server')
      assert.deepEqual(c.map((e) => [e.kind, e.version]), [['negotiated', version], ['ready', version]])
      assert.deepEqual(s.map((e) => [e.kind, e.version]), [['negotiated', version], ['ready', version]])
      // Each side sees the other's half of the handshake.
      assert.deepEqual(s[0].peer.clientInfo, { name: 'test-client', version: '1.0.0' })
      assert.equal(s[0].peer.protocolVersion, version)
      assert.deepEqual(c[0].peer.serverInfo, { name: 'test-server', version: '1.0.0' })
      assert.equal(c[0].peer.instructions, 'be nice')
      assert.deepEqual(c[0].peer.capabilities.tools, { listChanged: true })
      for (const [session, role] of [[p.client, 'client'], [p.server, 'server']]) {
        assert.equal(session.role, role)
        assert.equal(session.phase, 'operating')
        assert.equal(session.era, 'legacy')
        assert.equal(session.version, version)
      }
      assert.deepEqual(p.wire.map(([side, m]) => [side, m.method]),
        [['C', 'initialize'], ['S', undefined], ['C', 'notifications/initialized']])

      // A request round trip works at every revision.
      const [cid, req] = p.request('tools/list')
      p.server.respond(req.id, { tools: [] })
      p.drive()
      assert.deepEqual(p.take('client').map((e) => [e.kind, e.id, e.result]), [['response', cid, { tools: [] }]])
    })
  }
})

test('the modern era is reached through server/discover (default versions)', T, () => {
  const p = new Pair({})
  assert.equal(p.client.era, 'opening')
  p.drive()
  assert.deepEqual(p.take('client').map((e) => [e.kind, e.version]),
    [['negotiated', MODERN_VERSION], ['ready', MODERN_VERSION]])
  assert.equal(p.client.phase, 'operating')
  assert.equal(p.client.era, 'modern')
  assert.equal(p.client.version, MODERN_VERSION)
  assert.equal(p.wire[0][0], 'C')
  assert.equal(p.wire[0][1].method, 'server/discover')
  // The server answered the probe without taking a side.
  assert.deepEqual(p.take('server'), [])
  assert.equal(p.server.era, 'opening')

  // The first modern request latches the server into the modern era.
  const [cid, req] = p.request('tools/list')
  assert.equal(p.server.era, 'modern')
  assert.equal(p.server.version, MODERN_VERSION)
  assert.equal(p.server.requestInfo(req.id).modern, true)
  p.server.respond(req.id, { tools: [{ name: 't', inputSchema: { type: 'object' } }] })
  p.drive()
  const evs = p.take('client')
  assert.equal(evs.length, 1)
  assert.equal(evs[0].kind, 'response')
  assert.equal(evs[0].id, cid)
  assert.equal(evs[0].result.tools[0].name, 't')
})

test('a dual-era client falls back to initialize after the probe times out', T, () => {
  const c = new Session('client', 'c', '1', {}, { probeTimeoutMs: 500, nowMs: 100 })
  const [probe] = lines(c.pollTransmit())
  assert.equal(probe.method, 'server/discover')
  assert.equal(c.pollTimeout(), 600)
  c.handleTimeout(599)
  assert.deepEqual(c.pollTransmit(), EMPTY)
  c.handleTimeout(600)
  const [init] = lines(c.pollTransmit())
  assert.equal(init.method, 'initialize')
  assert.equal(init.params.protocolVersion, '2025-11-25')
})

// ---- requests and responses ----

describe('tools/list answered', () => {
  const answers = {
    object: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] },
    'JSON text': '{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}',
    Buffer: Buffer.from('{"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}')
  }
  for (const [label, answer] of Object.entries(answers)) {
    test(label, T, () => {
      const pair = legacyPair()
      const [cid, req] = pair.request('tools/list')
      assert.equal(req.params, undefined)
      assert.ok(pair.server.isOpen(req.id))
      const info = pair.server.requestInfo(req.id)
      assert.equal(info.method, 'tools/list')
      assert.equal(info.modern, false)
      assert.equal(info.logLevel ?? null, null)
      assert.equal(info.hasProgressToken, false)
      assert.equal(info.cancelled, false)
      pair.server.respond(req.id, answer)
      assert.ok(!pair.server.isOpen(req.id))
      assert.equal(pair.server.requestInfo(req.id), null)
      pair.drive()
      const evs = pair.take('client')
      assert.deepEqual(evs, [{ kind: 'response', id: cid, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } }])
    })
  }
})

test('request params reach the server', T, () => {
  const pair = legacyPair()
  let [, req] = pair.request('tools/call', { name: 'echo', arguments: { text: 'hé' } })
  assert.deepEqual(req.params, { name: 'echo', arguments: { text: 'hé' } })
  ;[, req] = pair.request('tools/call', '{"name":"x"}')
  assert.deepEqual(req.params, { name: 'x' })
})

test('respondError with data', T, () => {
  const pair = legacyPair()
  let [cid, req] = pair.request('tools/call', { name: 'nope' })
  pair.server.respondError(req.id, -32602, 'Unknown tool: nope', { tool: 'nope', n: [1] })
  pair.drive()
  assert.deepEqual(pair.take('client'), [{
    kind: 'error_response', id: cid, code: -32602, message: 'Unknown tool: nope', data: { tool: 'nope', n: [1] }
  }])
  // Without data, and data that is a plain string.
  ;[cid, req] = pair.request('tools/list')
  pair.server.respondError(req.id, -32603, 'Internal error')
  const [cid2, req2] = pair.request('tools/list')
  pair.server.respondError(req2.id, -32000, 'x', 'just text')
  pair.drive()
  assert.deepEqual(pair.take('client').map((e) => [e.id, e.code, e.data]), [[cid, -32603, undefined], [cid2, -32000, 'just text']])
})

test('progress', T, () => {
  const pair = legacyPair()
  const [cid, req] = pair.request('tools/call', { name: 'slow' }, { progress: true })
  const token = req.params._meta.progressToken
  assert.equal(pair.server.requestInfo(req.id).hasProgressToken, true)
  pair.server.progress(req.id, 1, 4, 'one')
  pair.server.progress(req.id, 2.5, 4)
  pair.drive()
  const evs = pair.take('client')
  assert.deepEqual(evs.map((e) => [e.kind, e.id, e.progress, e.total]), [['progress', cid, 1, 4], ['progress', cid, 2.5, 4]])
  assert.equal(evs[0].params.progressToken, token)
  assert.equal(evs[0].params.message, 'one')
  // Progress must increase: a caller mistake.
  assert.throws(() => pair.server.progress(req.id, 2), SendError)
  pair.server.respond(req.id, { content: [] })
  pair.drive()
  assert.deepEqual(pair.take('client').map((e) => [e.kind, e.id]), [['response', cid]])
})

test('progress without a token is refused', T, () => {
  const pair = legacyPair()
  const [, req] = pair.request('tools/list')
  assert.throws(() => pair.server.progress(req.id, 1), SendError)
  assert.deepEqual(pair.server.pollTransmit(), EMPTY)
})

test('cancellation', T, () => {
  const pair = legacyPair()
  const [cid, req] = pair.request('tools/call', { name: 'slow' })
  pair.client.cancel(cid, 'no longer needed')
  pair.drive()
  assert.deepEqual(pair.take('server'), [{ kind: 'cancelled', id: req.id, reason: 'no longer needed' }])
  assert.equal(pair.server.requestInfo(req.id).cancelled, true)
  // The core freed the slot itself. The host's first (late) answer is harmless: nothing
  // is sent, nothing thrown, and it forgets the handle; a second answer is a mistake.
  pair.server.respond(req.id, { content: [] })
  assert.deepEqual(pair.server.pollTransmit(), EMPTY)
  assert.equal(pair.server.requestInfo(req.id), null)
  assert.throws(() => pair.server.respond(req.id, { content: [] }), RespondError)
  assert.deepEqual(pair.server.pollTransmit(), EMPTY)
  pair.drive()
  assert.deepEqual(pair.take('client'), [])
  // Cancelling a finished request of ours is one too.
  assert.throws(() => pair.client.cancel(cid), SendError)
})

test('request timeout (pollTimeout / handleTimeout)', T, () => {
  const pair = legacyPair() // requestTimeoutMs: 1000 is the client's default
  pair.now = 50
  const cid = pair.client.sendRequest(pair.now, 'tools/list')
  assert.equal(pair.client.pollTimeout(), 1050)
  pair.drive()
  assert.deepEqual(pair.take('server').map((e) => e.kind), ['request'])
  pair.advance(999) // now 1049: not due yet
  assert.deepEqual(pair.take('client'), [])
  pair.advance(1) // now 1050
  assert.deepEqual(pair.take('client'), [{ kind: 'timed_out', id: cid }])
  // The client told the server it gave up.
  assert.deepEqual(pair.take('server').map((e) => e.kind), ['cancelled'])
  assert.equal(pair.client.pollTimeout(), null)
})

test('per-request timeout', T, () => {
  const pair = legacyPair()
  const cid = pair.client.sendRequest(10, 'tools/list', null, { timeoutMs: 250 })
  assert.equal(pair.client.pollTimeout(), 260)
  pair.client.handleTimeout(259)
  assert.deepEqual(drain(pair.client), [])
  pair.client.handleTimeout(260)
  assert.deepEqual(drain(pair.client), [{ kind: 'timed_out', id: cid }])
})

test('EOF closes the session', T, () => {
  const pair = legacyPair()
  pair.server.handleEof(5)
  const evs = drain(pair.server)
  assert.equal(evs.length, 1)
  assert.equal(evs[0].kind, 'closed')
  assert.equal(evs[0].name, 'peer_closed')
  assert.ok(evs[0].text)
  assert.equal(pair.server.phase, 'closed')
  // Later input is ignored.
  feed(pair.server, 6, '{"jsonrpc":"2.0","id":5,"method":"ping"}\n')
  assert.deepEqual(pair.server.pollTransmit(), EMPTY)
})

test('local close', T, () => {
  const pair = legacyPair()
  pair.client.close()
  assert.deepEqual(drain(pair.client).map((e) => [e.kind, e.name]), [['closed', 'local']])
  assert.equal(pair.client.phase, 'closed')
  assert.throws(() => pair.client.sendRequest(0, 'tools/list'), SendError)
})

test('a malformed line, then a valid request', T, () => {
  const s = readyServer()
  let evs = feed(s, 0, '{"jsonrpc":"2.0","id":2,"method":\n')
  assert.deepEqual(evs.map((e) => [e.kind, e.name]), [['peer_violation', 'malformed']])
  assert.ok(evs[0].text)
  let [reply] = lines(s.pollTransmit())
  assert.equal(reply.error.code, -32700)
  assert.equal(reply.id, 2) // an id that could be read is echoed
  evs = feed(s, 0, 'not json at all\n')
  assert.deepEqual(evs.map((e) => [e.kind, e.name]), [['peer_violation', 'malformed']])
  ;[reply] = lines(s.pollTransmit())
  assert.equal(reply.error.code, -32700)
  assert.ok(!('id' in reply)) // no readable id: omitted, not null
  evs = feed(s, 0, '{"jsonrpc":"2.0","id":"r2","method":"tools/list"}\r\n')
  assert.deepEqual(evs.map((e) => [e.kind, e.method]), [['request', 'tools/list']])
  s.respond(evs[0].id, { tools: [] })
  assert.deepEqual(lines(s.pollTransmit()), [{ jsonrpc: '2.0', id: 'r2', result: { tools: [] } }])
})

test('line_too_long with a small maxLine, and the session keeps working', T, () => {
  const s = readyServer({ maxLine: 256 })
  const longLine = '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"' + 'a'.repeat(1000) + '"}}\n'
  let evs = feed(s, 0, longLine)
  assert.deepEqual(evs.map((e) => [e.kind, e.name]), [['peer_violation', 'line_too_long']])
  s.pollTransmit() // whatever error the peer is owed
  evs = feed(s, 0, '{"jsonrpc":"2.0","id":3,"method":"tools/list"}\n')
  assert.deepEqual(evs.map((e) => e.kind), ['request'])
  s.respond(evs[0].id, { tools: [] })
  assert.equal(lines(s.pollTransmit())[0].id, 3)
  assert.equal(s.phase, 'operating')
})

test('ping is answered by the session', T, () => {
  const s = readyServer()
  assert.deepEqual(feed(s, 0, '{"jsonrpc":"2.0","id":7,"method":"ping"}\n'), [])
  assert.deepEqual(lines(s.pollTransmit()), [{ jsonrpc: '2.0', id: 7, result: {} }])
})

test('handleBytes takes a Buffer, a Uint8Array or a string', T, () => {
  const ping = '{"jsonrpc":"2.0","id":8,"method":"ping"}\n'
  for (const data of [Buffer.from(ping), new TextEncoder().encode(ping), ping]) {
    const s = readyServer()
    assert.equal(s.handleBytes(0, data), Buffer.byteLength(ping))
    assert.deepEqual(lines(s.pollTransmit()), [{ jsonrpc: '2.0', id: 8, result: {} }])
  }
})

// ---- the 2026-07-28 era ----

test('input_required and answerInput (2026-07-28)', T, () => {
  const p = modernPair({ clientCaps: { elicitation: {} } })
  const [cid, req] = p.request('tools/call', { name: 'confirm', arguments: {} })
  const ask = { elicitation: { method: 'elicitation/create', params: { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } } } }
  p.server.respondInputRequired(req.id, ask, 'state-1')
  p.drive()
  assert.deepEqual(p.take('client'), [{ kind: 'input_required', id: cid, requests: ask }])
  p.client.answerInput(p.now, cid, { elicitation: { action: 'accept', content: {} } })
  p.drive()
  const retry = p.take('server')
  assert.equal(retry.length, 1)
  assert.equal(retry[0].kind, 'request')
  assert.equal(retry[0].method, 'tools/call')
  assert.equal(retry[0].params.name, 'confirm')
  assert.deepEqual(retry[0].params.inputResponses, { elicitation: { action: 'accept', content: {} } })
  assert.equal(retry[0].params.requestState, 'state-1')
  p.server.respond(retry[0].id, { content: [{ type: 'text', text: 'accept' }] })
  p.drive()
  // The handle stays the same across the retry.
  assert.deepEqual(p.take('client').map((e) => [e.kind, e.id]), [['response', cid]])
  // Answering a request that does not wait for input is a mistake.
  assert.throws(() => p.client.answerInput(p.now, cid, {}), SendError)
})

test('respondMissingCapability (2026-07-28)', T, () => {
  const p = modernPair({ clientCaps: {} })
  const [cid, req] = p.request('tools/call', { name: 'confirm' })
  p.server.respondMissingCapability(req.id, { elicitation: {} })
  p.drive()
  const evs = p.take('client')
  assert.equal(evs.length, 1)
  assert.equal(evs[0].kind, 'error_response')
  assert.equal(evs[0].id, cid)
  assert.equal(evs[0].code, -32021)
})

test('respondInputRequired is refused for a legacy request', T, () => {
  const pair = legacyPair()
  const [, req] = pair.request('tools/call', { name: 'confirm' })
  assert.throws(() => pair.server.respondInputRequired(req.id, { roots: { method: 'roots/list' } }), RespondError)
  assert.deepEqual(pair.server.pollTransmit(), EMPTY)
  pair.server.respond(req.id, { content: [] }) // still open
})

test('listen: subscriptions/listen and a change notification (2026-07-28)', T, () => {
  const p = modernPair()
  const sub = p.client.listen({ toolsListChanged: true })
  p.drive()
  assert.deepEqual(p.take('client'), [{ kind: 'subscription_acknowledged', id: sub, requests: { toolsListChanged: true } }])
  assert.equal(p.server.notify('notifications/tools/list_changed'), 1)
  p.drive()
  const evs = p.take('client')
  assert.deepEqual(evs.map((e) => [e.kind, e.method]), [['notification', 'notifications/tools/list_changed']])
  // Cancelling the stream ends it: nobody asks any more.
  p.client.cancel(sub)
  p.drive()
  assert.equal(p.server.notify('notifications/tools/list_changed'), 0)
  // listen is 2026-07-28 only.
  assert.throws(() => legacyPair().client.listen({ toolsListChanged: true }), SendError)
})

// ---- chunking invariance ----

const STREAM = Buffer.concat([
  Buffer.from(INIT + '\r\n'),
  Buffer.from(INITIALIZED + '\n'),
  Buffer.from('{"jsonrpc":"2.0","id":2,"method":"tools/list"}\r\n'),
  Buffer.from('this is not json\n'),
  Buffer.from('{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"echo",' +
    '"arguments":{"text":"hé"}}}\n'),
  Buffer.from('{"jsonrpc":"2.0","id":4,"method":"ping"}\r\n'),
  Buffer.from('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}\n'),
  Buffer.from('{"jsonrpc":"2.0","id":5,"method":"no/such/method"}\n'),
  Buffer.from('[]\n'),
  Buffer.from('{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"info"}}\n'),
  Buffer.from('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"x"}}\r\n')
])

/**
 * Feeds `chunks` to a fresh server; then answers the requests (in order) and ends the
 * stream. Returns {out: every byte sent, events: every event as JSON text}.
 */
function runChunked (chunks, maxLine) {
  const s = new Session('server', 'srv', '1.0', { tools: {}, logging: {} },
    maxLine === undefined ? { inboundSlots: 4 } : { inboundSlots: 4, maxLine })
  const out = []
  const events = []
  for (const chunk of chunks) {
    events.push(...feed(s, 0, chunk, out))
    out.push(s.pollTransmit())
  }
  for (const ev of events) {
    if (ev.kind === 'request') s.respond(ev.id, { tools: [], echo: ev.params ?? null })
  }
  out.push(s.pollTransmit())
  s.handleEof(1)
  events.push(...drain(s))
  out.push(s.pollTransmit())
  return { out: Buffer.concat(out), events: events.map((e) => JSON.stringify(e)) }
}

/** A small seeded PRNG (mulberry32): the same chunks on every run. */
function rng (seed) {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function randomChunks (data, random, most) {
  const chunks = []
  for (let pos = 0; pos < data.length;) {
    const n = 1 + Math.floor(random() * most)
    chunks.push(data.subarray(pos, pos + n))
    pos += n
  }
  return chunks
}

const bytewise = (data) => Array.from({ length: data.length }, (_, i) => data.subarray(i, i + 1))

test('chunking invariance: one chunk, byte by byte, random chunks, split CRLF', T, () => {
  const whole = runChunked([STREAM])
  // Sanity: the stream did what it was meant to.
  const evs = whole.events.map((e) => JSON.parse(e))
  assert.equal(evs.filter((e) => e.kind === 'request').length, 3)
  assert.ok(evs.some((e) => e.kind === 'peer_violation' && e.name === 'malformed'))
  assert.equal(evs.at(-1).kind, 'closed')
  const replies = lines(whole.out)
  assert.deepEqual(replies.map((r) => r.id ?? null), [1, null, 4, 5, null, 6, 2, 'three', 7])
  assert.equal(replies[1].error.code, -32700)
  assert.deepEqual(replies[7].result.echo, { name: 'echo', arguments: { text: 'hé' } })

  assert.deepEqual(runChunked(bytewise(STREAM)), whole)
  const random = rng(20240601)
  for (let i = 0; i < 25; i++) assert.deepEqual(runChunked(randomChunks(STREAM, random, 40)), whole)
  // Split right inside every CRLF.
  const chunks = []
  let start = 0
  for (let i = STREAM.indexOf(13); i !== -1; i = STREAM.indexOf(13, i + 1)) {
    chunks.push(STREAM.subarray(start, i + 1))
    start = i + 1
  }
  chunks.push(STREAM.subarray(start))
  assert.ok(chunks.length > 3)
  assert.deepEqual(runChunked(chunks), whole)
})

test('chunking invariance under back pressure', T, () => {
  // maxLine 256 makes small queues: handleBytes takes fewer bytes than offered, and
  // re-offering the rest gives the same bytes and events.
  let pings = ''
  for (let i = 10; i < 110; i++) pings += `{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`
  const stream = Buffer.from(INIT + '\n' + INITIALIZED + '\r\n' + pings +
    '{oops\n' + '{"jsonrpc":"2.0","id":"last","method":"tools/list"}\n')
  const s = new Session('server', 'srv', '1.0', { tools: {} }, { maxLine: 256 })
  assert.ok(s.handleBytes(0, stream) < stream.length) // the queue filled up
  const whole = runChunked([stream], 256)
  const ids = [1]
  for (let i = 10; i < 110; i++) ids.push(i)
  ids.push(null, 'last')
  assert.deepEqual(lines(whole.out).map((r) => r.id ?? null), ids)
  assert.deepEqual(runChunked(bytewise(stream), 256), whole)
  const random = rng(7)
  for (let i = 0; i < 10; i++) assert.deepEqual(runChunked(randomChunks(stream, random, 300), 256), whole)
})

test('QueueFull when the transmit queue is not written out', T, () => {
  const s = readyServer({ maxLine: 256 })
  assert.throws(() => {
    for (let i = 0; i < 1000; i++) s.log('error', `message ${i}`)
  }, QueueFull)
  const sent = lines(s.pollTransmit())
  assert.ok(sent.length > 1 && sent.length < 1000)
  assert.equal(s.log('error', 'room again'), true)
})

// ---- caller mistakes ----

test('RespondError for an unknown id', T, () => {
  const pair = legacyPair()
  assert.throws(() => pair.server.respond(123456, {}), RespondError)
  assert.throws(() => pair.server.respondError(123456, -32603, 'x'), RespondError)
})

test('RespondError for a reserved code', T, () => {
  const pair = legacyPair()
  const [, req] = pair.request('tools/list')
  assert.throws(() => pair.server.respondError(req.id, -32021, 'reserved for the session'), RespondError)
  pair.server.respond(req.id, { tools: [] }) // still open
})

test('SendError for a capability the peer did not declare', T, () => {
  // The server declares no prompts: the client may not ask for them.
  const p = new Pair({ clientVersions: ['2025-11-25'], serverCaps: { tools: {} } }).handshake()
  assert.throws(() => p.client.sendRequest(0, 'prompts/list'), SendError)
  assert.throws(() => p.client.sendRequest(0, 'resources/read', { uri: 'x' }), SendError)
  // The client declares no elicitation: the server may not ask for it.
  assert.throws(() => p.server.sendRequest(0, 'elicitation/create', { message: '?', requestedSchema: {} }), SendError)
  assert.deepEqual(p.client.pollTransmit(), EMPTY)
  assert.deepEqual(p.server.pollTransmit(), EMPTY)
})

test('SendError for the wrong direction', T, () => {
  const pair = legacyPair()
  assert.throws(() => pair.client.sendRequest(0, 'sampling/createMessage', { messages: [], maxTokens: 1 }), SendError)
  assert.throws(() => pair.server.sendRequest(0, 'tools/list'), SendError)
  assert.throws(() => pair.client.sendNotification('notifications/tools/list_changed'), SendError)
})

test('SendError before the handshake', T, () => {
  const c = new Session('client', 'c', '1', {}, { versions: ['2025-11-25'] })
  assert.throws(() => c.sendRequest(0, 'tools/list'), SendError)
})

test('TypeError for bad JSON, an unknown method or log level, bad times', T, () => {
  const pair = legacyPair()
  const [, req] = pair.request('tools/list')
  const bad = [
    () => pair.server.respond(req.id, '{not json'),
    () => pair.server.respond(req.id, Buffer.from([0xff, 0xfe])),
    () => pair.server.respond(req.id, '[1, 2]'),
    () => pair.server.respond(req.id, [1, 2]),
    () => pair.server.respond(req.id, 'null'),
    () => pair.server.respond(req.id, { x: NaN }),
    () => pair.server.respond(req.id, { x: 1n }),
    () => pair.server.respond(req.id, undefined),
    () => pair.server.respondError(req.id, -32000, 'x', Infinity),
    () => pair.client.sendRequest(0, 'no/such/method'),
    () => pair.client.sendRequest(0, 'tools/call', '[]'),
    () => pair.client.sendRequest(-1, 'tools/list'),
    () => pair.client.sendNotification('notifications/nope'),
    () => pair.server.log('loud', 'x'),
    () => pair.server.notify('tools/list'),
    () => pair.server.notify('notifications/resources/updated'),
    () => pair.server.handleTimeout(-5)
  ]
  bad.forEach((fn, i) => assert.throws(fn, TypeError, `case ${i} did not throw a TypeError`))
  // None of it finished the request or queued anything.
  assert.deepEqual(pair.server.pollTransmit(), EMPTY)
  assert.deepEqual(pair.client.pollTransmit(), EMPTY)
  pair.server.respond(req.id, { tools: [] })
})

test('log levels', T, () => {
  const pair = legacyPair()
  // No level set yet: everything passes.
  assert.equal(pair.server.log('debug', { n: 1 }, 'lg'), true)
  pair.drive()
  assert.deepEqual(pair.take('client'), [{
    kind: 'notification', method: 'notifications/message', params: { level: 'debug', logger: 'lg', data: { n: 1 } }
  }])
  const cid = pair.client.sendRequest(0, 'logging/setLevel', { level: 'warning' })
  pair.drive()
  assert.deepEqual(pair.take('client').map((e) => [e.kind, e.id]), [['response', cid]])
  assert.equal(pair.server.logLevel, 'warning')
  assert.equal(pair.server.log('info', 'dropped'), false)
  assert.equal(pair.server.log('error', 'kept'), true)
})

describe('ConfigError', () => {
  const cases = [
    ['role peer', ['peer', 's', '1', {}, {}]],
    ['an unknown version', ['server', 's', '1', {}, { versions: ['1999-01-01'] }]],
    ['one unknown version of two', ['server', 's', '1', {}, { versions: ['2025-11-25', '2025-13-01'] }]],
    ['maxLine 0', ['server', 's', '1', {}, { maxLine: 0 }]]
  ]
  for (const [label, args] of cases) {
    test(label, T, () => assert.throws(() => new Session(...args), ConfigError))
  }
})

test('capabilities must be an object', T, () => {
  assert.throws(() => new Session('server', 's', '1', '[1]'), TypeError)
  assert.throws(() => new Session('server', 's', '1', '{bad'), TypeError)
  assert.throws(() => new Session('server', 's', '1', [1]), TypeError)
  const s = new Session('server', 's', '1', '{"tools":{}}')
  assert.equal(s.role, 'server')
  assert.equal(s.phase, 'initializing')
  assert.equal(s.era, 'opening')
  assert.equal(s.version, null)
  assert.equal(s.logLevel, null)
  assert.equal(s.pollEvent(), null)
  assert.equal(s.pollTimeout(), null)
})

describe('sealed requestState', () => {
  const call = (id, state) => {
    const params = { name: 'deploy' }
    if (state !== undefined) Object.assign(params, { inputResponses: {}, requestState: state })
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
      'io.modelcontextprotocol/clientCapabilities': {}
    }
    return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }) + '\n'
  }
  // The core's rule (core/tests/sealed_state.rs): out sealed, back plain, tampered refused.
  test('round trip and tampering', T, () => {
    const s = new Session('server', 's', '1', { tools: {} }, { stateKey: Buffer.alloc(32, 7), stateTtlMs: 1000 })
    const [req] = feed(s, 0, call(1))
    s.respondInputRequired(req.id, null, 'step=1')
    const [out] = lines(s.pollTransmit())
    const sealed = out.result.requestState
    assert.ok(sealed.startsWith('s1.1000.') && sealed.endsWith('.step=1'), sealed)
    const [retry] = feed(s, 0, call(2, sealed))
    assert.equal(retry.params.requestState, 'step=1')
    const [bad] = feed(s, 0, call(3, sealed.replace('step=1', 'step=2')))
    assert.notEqual(bad.kind, 'request')
    assert.equal(lines(s.pollTransmit())[0].error.code, -32602)
    assert.throws(() => new Session('server', 's', '1', {}, { stateKey: Buffer.from('short') }), ConfigError)
  })
})
