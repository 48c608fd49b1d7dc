'use strict'
/**
 * picomcp for Node: the picomcp core session (Rust, sans-IO) and a stdio server helper.
 *
 * - `Session`: one MCP connection. Feed it bytes and the time; take framed output, events
 *   and deadlines out. It owns framing, JSON-RPC, both protocol eras, negotiation and
 *   capability enforcement, ids, cancellation, progress and timeouts, for both roles.
 * - `ServerLayer`: the core's server application layer over a session: it answers the
 *   lists, checks calls (arguments against `inputSchema`, URIs against templates, required
 *   prompt arguments) and shapes the answers, for the negotiated revision.
 * - `Server` (./server.js): a stdio server in a few lines, built on both.
 */
const native = require('./addon.js').load() // a clear error when the addon is missing
const { PicomcpError, ConfigError, SendError, RespondError, QueueFull, ResultError, call } = require('./errors.js')

const text = (v) => (typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('utf8') : stringify(v))
const optText = (v) => (v === undefined || v === null ? null : text(v))

function strict (k, x) {
  if (typeof x === 'number' && !Number.isFinite(x)) throw new TypeError('NaN and Infinity are not JSON')
  if (typeof x === 'bigint') throw new TypeError('BigInt is not JSON')
  return x
}

/**
 * True when `v` (plain data, not too deep) holds no NaN, Infinity nor BigInt: then the
 * plain `JSON.stringify` (V8's fast path) writes it as `strict` would. Anything unusual
 * (a `toJSON`, deep nesting, a cycle) takes the checked path.
 */
function plain (v, depth) {
  switch (typeof v) {
    case 'number': return Number.isFinite(v)
    case 'string': case 'boolean': case 'undefined': return true
    case 'object':
      if (v === null) return true
      if (depth > 64 || typeof v.toJSON === 'function') return false
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) if (!plain(v[i], depth + 1)) return false
        return true
      }
      for (const k in v) if (!plain(v[k], depth + 1)) return false
      return true
    default: return typeof v === 'function' || typeof v === 'symbol'
  }
}

function stringify (v) {
  const t = plain(v, 0) ? JSON.stringify(v) : JSON.stringify(v, strict)
  if (t === undefined) throw new TypeError('not a JSON value: ' + typeof v)
  return t
}

/**
 * An event as JavaScript values: each `…Json` member of the native event (`params`,
 * `result`, `data`, `peer`, `requests` and a call's `arguments`, `meta`, `defaults`,
 * `context`) parsed, under its name without `Json`. The native event has only the members
 * its kind sets.
 */
function toEvent (e) {
  const out = {}
  for (const k in e) {
    const v = e[k]
    if (v === undefined || v === null) continue
    if (k.endsWith('Json')) out[k.slice(0, -4)] = JSON.parse(v)
    else out[k] = v
  }
  return out
}

/**
 * One MCP connection, sans-IO. After every input (`handleBytes`, `handleEof`,
 * `handleTimeout`) and command: take `pollEvent()` until null, write `pollTransmit()` to
 * the peer, and call `handleTimeout(now)` when `pollTimeout()` says. Times are any
 * monotonic milliseconds.
 *
 * JSON going in: results, params and capabilities are objects (or JSON text, since they
 * must be objects); error and log `data` is any JSON value (a string is a JSON string).
 */
class Session {
  /**
   * @param {'server'|'client'} role
   * @param {string} name
   * @param {string} version
   * @param {object|string} [capabilities]
   * @param {object} [options] instructions, versions, maxLine, maxDepth, maxIdLen,
   *   inboundSlots, outboundSlots, requestTimeoutMs, probeTimeoutMs, stateKey (Buffer),
   *   stateTtlMs, nowMs
   */
  constructor (role, name, version, capabilities = {}, options = {}) {
    this.native = call(() => new native.NativeSession({
      ...options, role, name, version, capabilitiesJson: text(capabilities)
    }))
  }

  get role () { return this.native.role }
  get phase () { return this.native.phase }
  get version () { return this.native.version }
  get era () { return this.native.era }
  get logLevel () { return this.native.logLevel }
  isOpen (id) { return this.native.isOpen(id) }
  isSubscribed (uri) { return this.native.isSubscribed(uri) }
  requestInfo (id) {
    const i = this.native.requestInfo(id)
    if (!i) return null
    const { clientCapabilitiesJson, ...info } = i
    return { ...info, clientCapabilities: JSON.parse(clientCapabilitiesJson) }
  }

  /** Feeds bytes from the peer; returns how many were taken (fewer: drain, then re-offer). */
  handleBytes (nowMs, data) { return call(() => this.native.handleBytes(nowMs, Buffer.isBuffer(data) ? data : Buffer.from(data))) }
  /**
   * Takes one whole message (an HTTP body: one JSON-RPC message or a 2025-03-26 batch);
   * false when the session has no room for it yet (drain events, answer, offer it again).
   */
  handleMessage (nowMs, data) { return call(() => this.native.handleMessage(nowMs, Buffer.isBuffer(data) ? data : Buffer.from(data))) }
  handleEof (nowMs) { call(() => this.native.handleEof(nowMs)) }
  handleTimeout (nowMs) { call(() => this.native.handleTimeout(nowMs)) }

  /** Everything queued for the peer (framed lines; empty Buffer when nothing is queued). */
  pollTransmit () { return this.native.pollTransmit() }
  /**
   * `pollTransmit` as a string (empty when nothing is queued): what the stdio `Server`
   * writes (a string is garbage of the JavaScript heap; a Buffer per write waits outside
   * it for the next scavenge).
   */
  pollTransmitText () { return this.native.pollTransmitText() }
  /** The next event, or null. */
  pollEvent () { const e = this.native.pollEvent(); return e ? toEvent(e) : null }
  /** When `handleTimeout` is next due, or null. */
  pollTimeout () { return this.native.pollTimeout() }

  respond (id, result) { call(() => this.native.respond(id, text(result))) }
  /** `data` null or undefined: no `data` member. */
  respondError (id, code, message, data) { call(() => this.native.respondError(id, code, message, data == null ? null : stringify(data))) }
  respondMissingCapability (id, required) { call(() => this.native.respondMissingCapability(id, text(required))) }
  respondInputRequired (id, inputRequests, requestState) {
    call(() => this.native.respondInputRequired(id, optText(inputRequests), requestState ?? null))
  }

  progress (id, progress, total, message) { call(() => this.native.progress(id, progress, total ?? null, message ?? null)) }
  /** Returns whether the message was sent (the client's level lets it through). */
  log (level, data, logger, id) { return call(() => this.native.log(level, stringify(data), logger ?? null, id ?? null)) }
  notify (change, uri) { return call(() => this.native.notify(change, uri ?? null)) }

  /** Sends a request; returns its handle. `options`: timeoutMs, progress, resetTimeoutOnProgress, maxTotalMs. */
  sendRequest (nowMs, method, params, options) {
    return call(() => this.native.sendRequest(nowMs, method, optText(params), options ?? null))
  }

  sendNotification (method, params) { call(() => this.native.sendNotification(method, optText(params))) }
  cancel (id, reason) { call(() => this.native.cancel(id, reason ?? null)) }
  answerInput (nowMs, id, responses) { call(() => this.native.answerInput(nowMs, id, text(responses))) }
  listen (notifications) { return call(() => this.native.listen(text(notifications))) }
  close () { this.native.close() }
  /** Frees the session's buffers now (it is closed and takes nothing after). */
  release () { call(() => this.native.release()) }
}

/**
 * The core's server application layer (`picomcp::server`) for a catalog of definitions,
 * driven over a `Session` whose capabilities are `layer.capabilities`.
 *
 * `catalog`: `{tools, resources, resourceTemplates, prompts}` with the protocol's field
 * names (`inputSchema`, `mimeType`, `_meta`, ...), plus `completable: true` on the
 * templates and prompt arguments whose values the host completes. The core checks every
 * definition once, here: a broken one throws a `ConfigError` naming it.
 * `options`: `pageSize` (100), `listChanged` (true), `subscribe` (false), `logging` (true).
 *
 * Poll the session's events through `pollEvent(session)`: the layer answers the lists
 * and every call that fails its checks itself (an `answered` event: write out
 * `pollTransmit()`), a checked call is a `call` event (`call`: `tool`, `read`, `prompt` or
 * `complete`, `index` in its table, and the call's values), anything else is the
 * session's event. Answer a call with `respondTool`, `respondRead`, `respondPrompt` or
 * `respondCompletion`; a refused answer throws a `ResultError` and sends nothing.
 */
class ServerLayer {
  constructor (catalog = {}, { pageSize, listChanged, subscribe, logging } = {}) {
    const options = { page_size: pageSize, list_changed: listChanged, subscribe, logging }
    const all = { ...catalog }
    for (const [k, v] of Object.entries(options)) if (v !== undefined) all[k] = v
    this.native = call(() => new native.NativeServer(stringify(all)))
  }

  /** The server capabilities that what is registered implies. */
  get capabilities () { return JSON.parse(this.native.capabilitiesJson()) }
  /** The session's next event through the layer, or null. */
  pollEvent (session, scopes = null) { const e = this.native.pollEvent(session.native, scopes ?? null); return e ? toEvent(e) : null }
  /**
   * Every event `pollEvent` would give now, in order (an array, or null when there is
   * none): one call and one `JSON.parse` for a whole chunk of input. It may end early after
   * an `answered` event when the transmit queue is getting full: write out
   * `pollTransmit()` and poll again.
   */
  pollEvents (session, scopes = null) {
    const t = this.native.pollEvents(session.native, scopes ?? null)
    if (t === null) return null
    // The last element lists the calls whose `arguments` are their `params.arguments`
    // (sent once): put them back.
    const evs = JSON.parse(t)
    const same = evs.pop()
    for (let i = 0; i < same.length; i++) { const ev = evs[same[i]]; ev.arguments = ev.params.arguments }
    return evs
  }
  /**
   * Answers a tool call: `{content?, structuredContent?, isError?, _meta?}`. Structured
   * content is checked against the tool's `outputSchema` and, without `content`, also
   * written as a JSON text block.
   */
  respondTool (session, id, tool, result) { call(() => this.native.respondTool(session.native, id, tool, stringify(result))) }
  /** Answers a tool call with one text block: `respondTool(..., {content: [{type: 'text', text}]})`, quicker. */
  respondToolText (session, id, tool, text) {
    if (typeof text !== 'string') throw new TypeError('respondToolText: text must be a string')
    call(() => this.native.respondToolText(session.native, id, tool, text))
  }
  /** Answers a read: an array of `{uri, mimeType?, text | blob}`. */
  respondRead (session, id, contents) { call(() => this.native.respondRead(session.native, id, stringify(contents))) }
  /** Answers a prompt: an array of `{role, content}` (the description is the definition's). */
  respondPrompt (session, id, prompt, messages) { call(() => this.native.respondPrompt(session.native, id, prompt, stringify(messages))) }
  /** Answers a completion: `values` (at most 100 are sent), `total`, `hasMore`. */
  respondCompletion (session, id, { values, total, hasMore } = {}) {
    call(() => this.native.respondCompletion(session.native, id, [...(values ?? [])].map(String), total ?? null, hasMore ?? null))
  }
}

/**
 * The core's Streamable HTTP endpoint (`picomcp::http::endpoint`), server role: every
 * rule of both eras between an HTTP request and the sessions that serve it. The host owns
 * a pool of sessions by slot; the endpoint owns the slot table and the response streams.
 *
 * 1. `handleRequest(nowMs, method, target, rawHeaders, body, entropy)`: `respond` (write
 *    `status`, `headers`, `body`; done), `deliver` (start a new session in `slot` first
 *    when `fresh`; `session.handleMessage(body)`, run the application, `collect`; then
 *    serve `stream`, or answer 202 when it is null) or `stream` (a GET stream).
 * 2. `collect(nowMs, slot, session)` after any activity of the slot's session.
 * 3. `pollResponse(nowMs, stream)`: `head` (once), `body` (write `data`, then
 *    `advance(stream, data.length)`), `wait` (until the next `collect` or timeout) or
 *    `end`. `detach(stream)` when the connection goes first.
 * 4. `pollTimeout()` / `handleTimeout(nowMs)`: idle sessions and SSE keep-alives.
 *
 * `options`: path ('/mcp'), checkHosts (true), allowedHosts, maxBody (1 MiB),
 * sessionIdleMs, keepaliveMs, retryMs, responseMode ('auto' | 'json' | 'sse'), getStream,
 * versions, slots (32), streams (64), streamBytes (maxBody + 4096), auth (`{ resource,
 * authorizationServers, scopes, scopesSupported, required, leewayS, requireExpiry,
 * resourceName }`: an OAuth 2.1 protected resource; docs/DESIGN.md, "Authorization").
 * `server.httpHandler()` (./server.js) is this for `node:http`.
 */
class Endpoint {
  constructor (options = {}) { this.native = call(() => new native.NativeEndpoint(options)) }
  /** Bytes of entropy `handleRequest` takes (use `crypto.randomBytes`). */
  get entropyLen () { return this.native.entropyLen }
  get slotCount () { return this.native.slotCount }
  /** Legacy sessions open now. */
  get sessions () { return this.native.sessions }
  /** Streams open now. */
  get openStreams () { return this.native.openStreams }
  slotInUse (slot) { return this.native.slotInUse(slot) }
  stats () { return this.native.stats() }
  /**
   * The tools served, as a `ServerLayer` (its tools): the `x-mcp-header` annotations of
   * their input schemas are checked as `Mcp-Param-*` headers of 2026-07-28 `tools/call`s
   * (400 when one is missing or does not match). Again whenever the tools change.
   */
  setTools (layer) { this.native.setTools(layer.native) }
  /**
   * `auth` (under the `auth` option): `{ claims, unixS, layer }`: the claims object the
   * host's verifier made of `bearerToken(...)` (null: rejected), now in Unix seconds
   * (default the clock), the `ServerLayer` whose per-definition scopes apply.
   */
  handleRequest (nowMs, method, target, rawHeaders, body, entropy, auth = null) {
    const claims = auth && auth.claims ? JSON.stringify(auth.claims) : null
    return call(() => this.native.handleRequest(nowMs, method, target, rawHeaders, Buffer.isBuffer(body) ? body : Buffer.from(body ?? ''), entropy,
      claims, auth && auth.unixS != null ? auth.unixS : null, auth && auth.layer ? auth.layer.native : null))
  }

  /** The Bearer token the endpoint would take (Authorization header only), or null. */
  bearerToken (method, target, rawHeaders) { return this.native.bearerToken(method, target, rawHeaders) ?? null }

  collect (nowMs, slot, session) { call(() => this.native.collect(nowMs, slot, session.native)) }
  pollResponse (nowMs, stream) { return call(() => this.native.pollResponse(nowMs, stream)) }
  advance (stream, n) { this.native.advance(stream, n) }
  detach (stream) { this.native.detach(stream) }
  pollTimeout () { return this.native.pollTimeout() }
  handleTimeout (nowMs) { call(() => this.native.handleTimeout(nowMs)) }
}

module.exports = {
  Session,
  ServerLayer,
  Endpoint,
  PicomcpError,
  ConfigError,
  SendError,
  RespondError,
  QueueFull,
  ResultError,
  PROTOCOL_VERSIONS: native.protocolVersions(),
  FEATURES: native.featureNames(),
  /** The names of the features protocol revision `version` has (the core's table). */
  features: (version) => call(() => native.features(version)),
  /**
   * The index of the first of `roots` (file: URIs) that contains `target` (a path or
   * file: URI), or null; options `{ caseInsensitive, windows }`. TypeError when it
   * cannot judge (the core's `picomcp::uri::roots` rules).
   */
  rootsContain: (roots, target, options) => call(() =>
    native.rootsContain(roots, target, options?.caseInsensitive ?? false, options?.windows ?? false)),
  version: require('../package.json').version
}
// The server helper needs Session; load it last.
Object.assign(module.exports, require('./server.js'))
// Content blocks for tool results: text, image, audio, resourceLink, embeddedResource.
const { text: textBlock, image, audio, resourceLink, embeddedResource } = require('./results.js')
Object.assign(module.exports, { text: textBlock, image, audio, resourceLink, embeddedResource })
