'use strict'
// Runs the cross-language vectors in tests/vectors/*.jsonl (format: that folder's README)
// through the Node binding, as core/tests/vectors.rs does for Rust and
// ffi/tests-c/test_vectors.c for C: one scripted session per file, a fresh session each,
// events rendered in the vectors' vocabulary and compared with a subset match. A session
// line with a `server` member serves its catalog through the core's server layer
// (`ServerLayer`), as the Rust runner's common/served.rs does.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { readdirSync, readFileSync } = require('node:fs')
const { join } = require('node:path')
const { Session, ServerLayer, PicomcpError, ResultError } = require('../lib/index.js')
const { matches, NOTIFY } = require('./vector_support.js')

const DIR = join(__dirname, '..', '..', '..', 'tests', 'vectors')
// The Rust runner's limits (its StaticStorage and Config).
const LIMITS = { maxLine: 8192, inboundSlots: 8, outboundSlots: 8 }

/** `peer_closed` -> `PeerClosed`: the Rust variant name of a binding's snake_case name. */
const variant = (name) => name.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')

/** An event in the vectors' vocabulary (README: "Events as JSON"; calls: "The server application layer"). */
function eventJson (e) {
  switch (e.kind) {
    case 'negotiated': case 'ready': return { type: e.kind, version: e.version }
    case 'request': case 'notification': return { type: e.kind, method: e.method, params: e.params ?? null }
    case 'response': return { type: 'response', result: e.result }
    case 'error_response': return { type: 'error_response', code: e.code, message: e.message }
    case 'cancelled': return { type: 'cancelled', reason: e.reason ?? null }
    case 'progress': return { type: 'progress', progress: e.progress, total: e.total ?? null }
    case 'input_required': return { type: 'input_required', input_requests: e.requests ?? null }
    case 'subscription_acknowledged': return { type: 'subscription_acknowledged', notifications: e.requests }
    case 'tool_changed': return { type: 'tool_changed', name: e.tool, digests: { old: e.digests.old, new: e.digests.new } }
    case 'pins_incomplete': return { type: 'pins_incomplete', counts: { unpinned: e.unpinned, unreported: e.unreported } }
    case 'peer_violation': return { type: 'violation', kind: variant(e.name) }
    case 'closed': return { type: 'closed', reason: variant(e.name) }
    case 'call': switch (e.call) {
      case 'tool': return { type: 'call', call: 'tool', tool: e.index, arguments: e.arguments }
      case 'read': return { type: 'call', call: 'read', target: e.target, index: e.index, uri: e.uri, vars: e.vars ?? {} }
      case 'prompt': return { type: 'call', call: 'prompt', prompt: e.index, arguments: e.arguments }
      case 'complete': return { type: 'call', call: 'complete', target: e.target, index: e.index, argument: e.argument, value: e.value }
      default: return { type: 'call', call: e.call }
    }
    default: return { type: e.kind }
  }
}

function makeSession (spec, layer) {
  const caps = layer ? layer.capabilities : (spec.capabilities ?? {})
  const role = spec.role === 'client' ? 'client' : 'server'
  return new Session(role, spec.name ?? 'vec', spec.version ?? '0.0.0', caps, {
    ...LIMITS,
    instructions: spec.instructions,
    versions: spec.versions,
    requestTimeoutMs: spec.request_timeout_ms,
    probeTimeoutMs: spec.probe_timeout_ms,
    stateKey: spec.state_key === undefined ? undefined : Buffer.from(spec.state_key, 'utf8'),
    nowMs: 0
  })
}

/** The lines the session sent since the last call. */
function takeOutput (s) {
  const text = s.pollTransmit().toString('utf8')
  return text.split('\n').filter((l) => l.length)
}

/** The core's name for a refused command (`expect_error`): its variant, or the class. */
function kindOf (e) {
  if (!(e instanceof PicomcpError)) throw e
  return e.kind ?? e.name
}

/** A `respond_*` step, through the layer. */
function respond (layer, s, call, step, v) {
  switch (step) {
    case 'respond_tool': {
      const result = {}
      if (v.content !== undefined) result.content = v.content
      if (v.structured !== undefined) result.structuredContent = v.structured
      if (v.is_error === true) result.isError = true
      return layer.respondTool(s, call.id, call.index, result)
    }
    case 'respond_read': return layer.respondRead(s, call.id, v.contents ?? [])
    case 'respond_prompt': return layer.respondPrompt(s, call.id, call.index, v.messages ?? [])
    case 'respond_completion': return layer.respondCompletion(s, call.id, v)
  }
}

function run (file) {
  const steps = readFileSync(join(DIR, file), 'utf8').split('\n')
    .map((l, i) => [l, i + 1])
    .filter(([l]) => l.trim() && !l.startsWith('#'))
  const [first] = steps.shift()
  const spec = JSON.parse(first).session
  const layer = spec.server ? new ServerLayer(spec.server) : null
  const s = makeSession(spec, layer)
  let now = 0
  const sent = []
  const pending = [] // served sessions: [event JSON, call or request] the layer passed on
  let lastRequest = null
  let lastOutbound = null
  let lastInput = null
  let lastCall = null
  let lastError = null
  const pump = () => {
    for (let e = layer.pollEvent(s); e; e = layer.pollEvent(s)) {
      if (e.kind !== 'answered') pending.push([eventJson(e), e])
    }
  }
  for (const [line, lineNo] of steps) {
    const step = JSON.parse(line)
    const where = `${file}:${lineNo} ${line}`
    const [k, v] = Object.entries(step)[0]
    if (layer && k.startsWith('expect_')) pump()
    sent.push(...takeOutput(s))
    switch (k) {
      case 'recv': case 'recv_raw': {
        const data = Buffer.from(k === 'recv' ? v + '\n' : v)
        assert.equal(s.handleBytes(now, data), data.length, `${where}: backpressure`)
        break
      }
      case 'expect_send': {
        assert.ok(sent.length, `${where}: nothing was sent`)
        const actual = sent.shift()
        assert.ok(matches(v, JSON.parse(actual)), `${where}\n  sent: ${actual}`)
        break
      }
      case 'expect_send_exact': // equal, not a subset match
        assert.ok(sent.length, `${where}: nothing was sent`)
        assert.deepStrictEqual(JSON.parse(sent.shift()), v, where)
        break
      case 'expect_no_send':
        assert.deepEqual(sent, [], `${where}: sent`)
        break
      case 'expect_event': {
        let actual, e
        if (layer) {
          assert.ok(pending.length, `${where}: no event`)
          ;[actual, e] = pending.shift()
          if (e.kind === 'call') lastCall = e
        } else {
          e = s.pollEvent()
          assert.ok(e, `${where}: no event`)
          actual = eventJson(e)
          if (e.kind === 'input_required') lastInput = e.id
        }
        if (e.kind === 'request') lastRequest = e.id
        assert.ok(matches(v, actual), `${where}\n  event: ${JSON.stringify(actual)}`)
        break
      }
      case 'expect_no_event': {
        const e = layer ? pending[0] && pending[0][0] : s.pollEvent()
        assert.ok(!e, `${where}: event ${JSON.stringify(e && (layer ? e : eventJson(e)))}`)
        break
      }
      case 'expect_client_capabilities':
        assert.deepEqual(s.requestInfo(lastRequest).clientCapabilities, v, where)
        break
      case 'respond':
        assert.notEqual(lastRequest, null, `${where}: no request`)
        s.respond(lastRequest, v)
        break
      case 'respond_input_required':
        assert.notEqual(lastRequest, null, `${where}: no request`)
        s.respondInputRequired(lastRequest, v.input_requests, v.request_state)
        break
      case 'respond_error':
        assert.notEqual(lastRequest, null, `${where}: no request`)
        s.respondError(lastRequest, v.code, v.message ?? 'error')
        break
      case 'send_request':
        try {
          lastOutbound = s.sendRequest(now, v.method, v.params, { timeoutMs: v.timeout_ms, progress: v.progress === true })
        } catch (e) { lastError = kindOf(e) }
        break
      case 'send_notification':
        try { s.sendNotification(v.method, v.params) } catch (e) { lastError = kindOf(e) }
        break
      case 'cancel':
        assert.notEqual(lastOutbound, null, `${where}: no outbound request`)
        s.cancel(lastOutbound, v.reason)
        break
      case 'answer_input':
        assert.notEqual(lastInput, null, `${where}: no input_required`)
        s.answerInput(now, lastInput, v)
        break
      case 'notify':
        try {
          if (typeof v === 'string') s.notify(NOTIFY[v])
          else s.notify('notifications/resources/updated', v.resource_updated)
        } catch (e) { lastError = kindOf(e) }
        break
      case 'advance_ms':
        now += v
        s.handleTimeout(now)
        break
      case 'eof':
        s.handleEof(now)
        break
      case 'expect_error':
        assert.notEqual(lastError, null, `${where}: the command succeeded`)
        assert.ok(lastError.startsWith(v), `${where}: got ${lastError}`)
        lastError = null
        break
      case 'respond_tool': case 'respond_read': case 'respond_prompt': case 'respond_completion':
        assert.ok(layer, `${where}: ${k} needs a served session`)
        assert.ok(lastCall, `${where}: no call`)
        try {
          respond(layer, s, lastCall, k, v)
        } catch (e) {
          // The Rust runner's names: a ResultError variant, `Respond` for a session refusal.
          lastError = e instanceof ResultError ? e.kind : e instanceof PicomcpError ? 'Respond' : kindOf(e)
        }
        break
      default:
        assert.fail(`${where}: unknown step ${k}`)
    }
  }
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.jsonl')).sort()

test('every vector file is found', () => {
  assert.ok(files.length >= 7, JSON.stringify(files))
  assert.ok(files.includes('server_layer.jsonl'))
})

for (const file of files) test(file, () => run(file))
