'use strict'
/**
 * What a handler of the `Server` helper (./server.js) gets and throws: the request's
 * `Context` (progress, logging, cancellation, asking the client in both eras) and the
 * errors that shape its answer (`McpError`, `ToolError`, `ResourceNotFound`, and
 * `InputRequired`, which ends a 2026-07-28 handler with an `input_required` result).
 */

const INVALID_PARAMS = -32602
const native = require('./addon.js').load()
// The default input-request key of each question a server may ask, and the client
// capability it needs.
const ASKS = {
  'sampling/createMessage': ['sampling', 'sampling'],
  'elicitation/create': ['elicitation', 'elicitation'],
  'roots/list': ['roots', 'roots']
}
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Throw from a handler to answer with a JSON-RPC error. */
class McpError extends Error {
  constructor (code, message, data) { super(message); this.name = 'McpError'; this.code = code; this.data = data }
}
/** Throw from a tool to report a failed call: a result with `isError: true` (no stack on stderr). */
class ToolError extends Error {
  constructor (message) { super(message); this.name = 'ToolError' }
}
/** Throw from a resource reader: the URI names no resource (-32002; -32602 from 2026-07-28). */
class ResourceNotFound extends McpError {
  constructor (uri, message) {
    super(-32002, message ?? `Resource not found: ${uri}`, uri === undefined ? undefined : { uri })
    this.name = 'ResourceNotFound'
    this.uri = uri
  }
}
/**
 * Thrown by `ctx.ask` / `ctx.askAll` in 2026-07-28: the questions (`{key: {method,
 * params}}`) and the state go back as one `input_required` result. Not an error of the
 * handler: let it through (a `catch` that swallows it keeps the question from the client).
 */
class InputRequired extends Error {
  constructor (requests, state) {
    super(`input required: ${Object.keys(requests).join(', ')}`)
    this.name = 'InputRequired'
    this.requests = requests
    this.state = state
  }
}

/** What a handler may do about the request it serves. */
class Context {
  /**
   * `call`: what the core read from a 2026-07-28 call (the `call` event's
   * `inputResponses`, `requestState`, `retryError`).
   */
  constructor (server, id, method, params, call = {}) {
    this.server = server
    this.requestId = id
    this.method = method
    this.params = params
    /**
     * 2026-07-28: the `requestState` the client sent back with this retry (null on a
     * first try and in the legacy era). The session verified and unsealed it with the
     * server's `stateKey` (a tampered, foreign or expired one never reaches a handler):
     * it is a state this server gave for this request. A session made without a state
     * key passes the client's text as is: never trust it then.
     */
    this.requestState = call.requestState ?? null
    this._responses = call.inputResponses ?? null
    this._retryError = call.retryError ?? null
    /**
     * The verified caller over HTTP with `httpHandler({ auth })`: `{ subject, clientId,
     * scopes, expiresAt }`; null otherwise. Never the token.
     */
    this.principal = server._principal ?? null
    this._controller = null // made on first use: most handlers never look at it
  }

  /** The negotiated protocol revision. */
  get version () { return this.server.session.version }

  get controller () { return this._controller || (this._controller = new AbortController()) }
  /** Aborts when the client cancels this request. */
  get signal () { return this.controller.signal }
  _aborted () { return this._controller !== null && this._controller.signal.aborted }

  get session () { return this.server.session }
  /** True when the request is served under 2026-07-28 (questions are `input_required`). */
  get modern () { const i = this.session.requestInfo(this.requestId); return !!(i && i.modern) }
  /**
   * The client capabilities that count for this request, as the core read them (what its
   * capability gate checks; the same answer as in Python): in 2026-07-28 those the request
   * declared (`_meta`), in the legacy era those of the session's `initialize`. `{}` once
   * the request is answered.
   */
  get clientCapabilities () { const i = this.session.requestInfo(this.requestId); return i ? i.clientCapabilities : {} }
  /** What the server's `lifespan` function gave. */
  get state () { return this.server.state }
  /** True once the client cancelled this request. */
  get cancelled () { const i = this.session.requestInfo(this.requestId); return !i || i.cancelled }
  /** True when the client asked for progress on this request. */
  get wantsProgress () { const i = this.session.requestInfo(this.requestId); return !!(i && i.hasProgressToken && !i.cancelled) }

  /** Reports progress if the client asked for it; returns whether it was sent. */
  progress (progress, total, message) {
    if (!this.wantsProgress) return false
    this.server._command(() => this.session.progress(this.requestId, progress, total, message))
    return true
  }

  /** A log message tied to this request, if the client's level lets it through. */
  log (level, data, logger) {
    if (!this.server.logging) return false
    return this.server._command(() => this.session.log(level, data, logger, this.requestId))
  }

  /** Waits `ms`; rejects with an AbortError when the request is cancelled. */
  sleep (ms) {
    return new Promise((resolve, reject) => {
      if (this.signal.aborted) return reject(this.signal.reason)
      const t = setTimeout(() => { this.signal.removeEventListener('abort', onAbort); resolve() }, ms)
      const onAbort = () => { clearTimeout(t); reject(this.signal.reason) }
      this.signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  /**
   * Asks the client (`sampling/createMessage`, `elicitation/create`, `roots/list`) and
   * resolves with its result. Legacy era: a request to the client (McpError for an error
   * answer or a timeout; SendError when the client lacks the capability). 2026-07-28: when
   * the retry's `inputResponses` hold no answer under `key`, the handler ends here with an
   * `input_required` result asking it (with `state` as its `requestState`), or -32021 when
   * the request did not declare the capability; the client retries with the answer, the
   * handler runs again from the start, and this call resolves with that answer.
   * `key` defaults to the kind of question (`elicitation`, `sampling`, `roots`). With
   * `state`, an answer counts only when the retry echoed that state (the core's rule, as
   * in Python): give each round of a handler its own state.
   */
  async ask (method, params, { key, state, timeoutMs = 60000 } = {}) {
    if (typeof method !== 'string') throw new TypeError('ask: method must be a string')
    if (!this.modern) return this.server.request(method, params ?? {}, { timeoutMs, signal: this.signal })
    const k = key ?? (ASKS[method] || [method])[0]
    return (await this.askAll({ [k]: { method, params } }, { state }))[k]
  }

  /**
   * Asks several questions at once: `requests` is `{key: {method, params}}`; resolves with
   * `{key: answer}`. 2026-07-28: resolves when the retry's `inputResponses` answer every
   * key; otherwise the handler ends with ONE `input_required` result asking the keys still
   * unanswered (and `state` as its `requestState`; -32021 naming the capabilities the
   * request did not declare). A retry carries the answers to the last `input_required`
   * only: a handler that asks over several rounds keeps what it learnt in `state` (see
   * `ctx.requestState`). Legacy era: the requests go to the client together.
   */
  async askAll (requests, { state, timeoutMs = 60000 } = {}) {
    if (!isObject(requests) || !Object.keys(requests).length) throw new TypeError('askAll: requests must be an object of {method, params} by key')
    for (const [k, q] of Object.entries(requests)) {
      if (!isObject(q) || typeof q.method !== 'string') throw new TypeError(`askAll: request ${JSON.stringify(k)} must be {method, params}`)
    }
    if (state !== undefined && state !== null && typeof state !== 'string') throw new TypeError('ask: state must be a string')
    if (!this.modern) {
      const keys = Object.keys(requests)
      const answers = await Promise.all(keys.map((k) =>
        this.server.request(requests[k].method, requests[k].params ?? {}, { timeoutMs, signal: this.signal })))
      return Object.fromEntries(keys.map((k, i) => [k, answers[i]]))
    }
    if (this._retryError) throw new McpError(INVALID_PARAMS, this._retryError)
    // Which answers count is the core's rule (`Retry::answer`, as in Python): an object,
    // and with `state` only when the retry echoed exactly that state (the round's own).
    const answered = new Set(this._responses
      ? native.retryAnswered(JSON.stringify({ inputResponses: this._responses, requestState: this.requestState }), Object.keys(requests), state ?? null)
      : [])
    const answers = {}
    const missing = {}
    for (const [k, q] of Object.entries(requests)) {
      if (answered.has(k)) answers[k] = this._responses[k]
      else missing[k] = { method: q.method, params: q.params ?? {} }
    }
    if (Object.keys(missing).length) throw new InputRequired(missing, state ?? null)
    return answers
  }
}

module.exports = { Context, McpError, ToolError, ResourceNotFound, InputRequired, ASKS, isObject }
