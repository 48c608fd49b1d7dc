'use strict'
/**
 * `Server.httpHandler()`: the server over Streamable HTTP, as a `(req, res)` handler for
 * `node:http` (and Express, Connect, Fastify's raw mode: anything that gives Node's
 * `IncomingMessage` and `ServerResponse`).
 *
 * An adapter with no protocol logic: the core's endpoint (`Endpoint`) decides everything
 * about a request (checks, sessions and their ids, which slot serves it, JSON or SSE,
 * where every message goes, replay, keep-alive, expiry); this file reads the body, writes
 * what the endpoint says as it comes, keeps the clock and wakes waiting streams.
 *
 * Sessions: the endpoint names a slot of a pool; each slot holds its own core `Session`
 * driven by its own view of the `Server` (`Object.create(server)`: the registrations, the
 * layer and `state` are shared, the session, its running handlers, its questions to the
 * client and its timer are the slot's). Its output goes to `endpoint.collect` instead of
 * stdout; every collect wakes the streams waiting for output.
 */
const { randomBytes } = require('node:crypto')

const { now } = require('./clock.js')
// setTimeout's largest delay.
const MAX_DELAY = 2 ** 31 - 1

/** `[name, value, name, value, ...]` as Node's `writeHead` takes it. */
function head (res, status, headers, contentLength) {
  const all = [...headers]
  if (contentLength !== null && contentLength !== undefined) all.push('Content-Length', String(contentLength))
  res.writeHead(status, all)
}

/**
 * The request body as bytes: a raw body a framework already read (`req.rawBody`, or
 * `req.body` as a Buffer: `express.raw()`), else read from the stream (at most `limit`
 * bytes kept: the endpoint answers 413 beyond its limit). A body a parser already turned
 * into values cannot be given back byte for byte: null then.
 */
function readBody (req, limit) {
  if (Buffer.isBuffer(req.rawBody)) return Promise.resolve(req.rawBody)
  if (Buffer.isBuffer(req.body)) return Promise.resolve(req.body)
  if (req._body === true || req.readableEnded) return Promise.resolve(null)
  return new Promise((resolve) => {
    const chunks = []
    let size = 0
    req.on('data', (c) => {
      if (size > limit) return
      chunks.push(c)
      size += c.length
    })
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', () => resolve(undefined))
    req.on('aborted', () => resolve(undefined))
  })
}

class HttpServing {
  constructor (server, options) {
    const { Endpoint } = require('./index.js')
    this.server = server
    const { auth, ...rest } = options
    const o = { maxBody: server.maxLine, ...rest }
    if (server.versions && o.versions === undefined) o.versions = server.versions
    // `auth.verify(token)` (sync or async) is the host's; the rest configures the core.
    this.verify = null
    if (auth) {
      const { verify, ...config } = auth
      if (typeof verify !== 'function') throw new TypeError('httpHandler: auth.verify must be a function')
      this.verify = verify
      o.auth = config
    }
    this.maxBody = o.maxBody
    this.endpoint = new Endpoint(o)
    this.views = new Array(this.endpoint.slotCount).fill(null)
    this.waiting = new Set() // the pumps of streams that wait for output
    this.woken = false
    this.timer = null
    this.due = null
    this.closed = false
  }

  /** The views whose slot holds a live session. */
  live () {
    return this.views.filter((v, slot) => v !== null && !v.ended && this.endpoint.slotInUse(slot))
  }

  /** A fresh session (and view of the server) in `slot`. */
  fresh (slot) {
    const old = this.views[slot]
    if (old) this.retire(old)
    const { Session } = require('./index.js')
    const server = this.server
    const view = Object.create(server)
    Object.assign(view, {
      _http: null, // a view serves its own session (notify, isSubscribed)
      pending: new Map(),
      asks: new Map(),
      outq: [],
      batching: false,
      backlog: null,
      timer: null,
      ended: false,
      slot
    })
    view.session = new Session('server', server.name, server.version, server.capabilities, {
      instructions: server.instructions, versions: server.versions, maxLine: server.maxLine,
      inboundSlots: server.inboundSlots, outboundSlots: server.outboundSlots, nowMs: now(), ...server._stateOptions()
    })
    view._layer = () => server._layer()
    // The session's output goes to the endpoint (to the streams it names), not stdout.
    view._write = () => {
      if (view.ended || this.views[slot] !== view || !this.endpoint.slotInUse(slot)) {
        view.session.pollTransmit() // a session the endpoint ended: nobody to tell
        this.retire(view)
        return
      }
      this.endpoint.collect(now(), slot, view.session)
      this.wake()
    }
    this.views[slot] = view
    return view
  }

  /**
   * A view whose session the endpoint ended (expired, deleted, evicted, a 2026-07-28
   * request answered) or whose slot went to a new session: its handlers are cancelled, its
   * timer stopped, and its session's buffers freed at once (not when the garbage
   * collector gets to them: a session holds a few times `maxLine` bytes).
   */
  retire (view) {
    if (view.ended) return
    view.ended = true
    if (this.views[view.slot] === view) this.views[view.slot] = null
    clearTimeout(view.timer)
    setImmediate(() => view.session.release())
    const { McpError } = require('./server.js')
    for (const ctx of view.pending.values()) ctx.controller.abort(new McpError(-32000, 'session ended'))
    view.pending.clear()
    for (const ask of view.asks.values()) ask.reject(new McpError(-32000, 'session ended'))
    view.asks.clear()
  }

  /** Retires the views whose slot the endpoint has freed. */
  sweep () {
    for (const view of this.views) if (view && !this.endpoint.slotInUse(view.slot)) this.retire(view)
  }

  /** Hands a body to the slot's session and runs the handlers; false when it stays busy. */
  deliver (view, body) {
    for (let i = 0; i < 2; i++) {
      if (view.session.handleMessage(now(), body)) {
        view._pump()
        return true
      }
      view._pump()
    }
    return false
  }

  /** Every stream waiting for output looks again (once per tick), then the timer is re-armed. */
  wake () {
    if (this.woken) return
    this.woken = true
    queueMicrotask(() => {
      this.woken = false
      const pumps = [...this.waiting]
      this.waiting.clear()
      for (const pump of pumps) pump()
      this.arm()
    })
  }

  /** The endpoint's timer: session expiry and SSE keep-alives. */
  arm (fired = false) {
    if (this.closed) return
    const due = this.endpoint.pollTimeout()
    if (!fired && due === this.due) return
    clearTimeout(this.timer)
    this.due = due
    if (due === null) return
    // Still due right after handling it (a session kept by a connected stream): look again
    // in a second rather than spin.
    const delay = fired && due <= now() ? 1000 : Math.min(Math.max(0, due - now()), MAX_DELAY)
    this.timer = setTimeout(() => {
      this.endpoint.handleTimeout(now())
      this.sweep()
      const pumps = [...this.waiting]
      this.waiting.clear()
      for (const pump of pumps) pump()
      this.arm(true)
    }, delay)
    this.timer.unref()
  }

  close () {
    this.closed = true
    clearTimeout(this.timer)
    for (const view of this.views) if (view) this.retire(view)
  }

  /** The `(req, res)` handler. */
  async handle (req, res) {
    if (this.closed) {
      res.writeHead(503, ['Content-Length', '0'])
      return res.end()
    }
    const body = req.method === 'GET' || req.method === 'HEAD' ? Buffer.alloc(0) : await readBody(req, this.maxBody)
    if (body === undefined) return // the client went away
    if (body === null) {
      // A body parser (express.json()) ran first: the exact bytes are gone.
      const text = JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32603, message: 'Internal error: the MCP handler must be mounted before any body parser (or the raw body kept in req.rawBody)' }
      })
      this.server.diag('error', 'the request body was already parsed: mount httpHandler() before express.json(), or keep the raw body in req.rawBody')
      head(res, 500, ['Content-Type', 'application/json'], Buffer.byteLength(text))
      return res.end(text)
    }
    const ep = this.endpoint
    const target = req.originalUrl || req.url
    let authIn = null
    if (this.verify) {
      // The core says which token counts; the host's verifier (maybe async) checks it.
      const token = ep.bearerToken(req.method, target, req.rawHeaders)
      let claims = null
      if (token !== null) {
        try {
          claims = await this.verify(token)
        } catch (e) {
          this.server.diag('info', `token refused: ${e && e.message}`)
        }
      }
      authIn = { claims, layer: this.server._layer().layer }
    }
    const out = ep.handleRequest(now(), req.method, target, req.rawHeaders, body, randomBytes(ep.entropyLen), authIn)
    let stream = null
    if (out.kind === 'respond') {
      head(res, out.status, out.headers, out.body.length)
      res.end(out.body)
    } else if (out.kind === 'stream') {
      stream = out.stream
    } else {
      const view = out.fresh || !this.views[out.slot] || this.views[out.slot].ended ? this.fresh(out.slot) : this.views[out.slot]
      view._principal = out.principal ?? null
      view._scopes = out.principal ? out.principal.scopes : (this.verify ? [] : null)
      if (this.deliver(view, body)) {
        stream = out.stream ?? null
        if (stream === null) {
          res.writeHead(202, ['Content-Length', '0'])
          res.end()
        }
      } else {
        if (out.stream !== null && out.stream !== undefined) ep.detach(out.stream)
        res.writeHead(503, ['Content-Length', '0'])
        res.end()
      }
    }
    if (stream !== null) this.serve(stream, res)
    else this.sweep()
    this.arm()
  }

  /** Writes a stream's head and body as they come, until it ends or the client goes. */
  serve (stream, res) {
    const ep = this.endpoint
    let done = false
    let blocked = false
    const pump = () => {
      if (done || blocked) return
      for (;;) {
        const p = ep.pollResponse(now(), stream)
        if (p.kind === 'head') {
          head(res, p.status, p.headers, p.contentLength)
          if (p.streaming) res.flushHeaders()
        } else if (p.kind === 'body') {
          const more = res.write(p.data)
          ep.advance(stream, p.data.length)
          if (!more) {
            // The client reads slowly: the endpoint's buffer holds the rest.
            blocked = true
            res.once('drain', () => { blocked = false; pump() })
            return
          }
        } else if (p.kind === 'wait') {
          this.waiting.add(pump)
          return
        } else {
          done = true
          this.waiting.delete(pump)
          res.end()
          this.sweep()
          return
        }
      }
    }
    res.on('close', () => {
      if (done) return
      done = true
      this.waiting.delete(pump)
      ep.detach(stream)
      this.sweep()
      this.arm()
    })
    pump()
  }
}

/**
 * The handler for `server`; `options` are the endpoint's (see `Endpoint`). It has
 * `.endpoint` and `.close()` (stops its timers and cancels running handlers).
 */
function httpHandler (server, options = {}) {
  if (server._http) throw new Error('httpHandler: this server already has an HTTP handler')
  const serving = new HttpServing(server, options)
  server._http = serving
  // A broken definition throws here, not at the first request; the endpoint checks the
  // tools' Mcp-Param-* headers (and is told again when they change).
  serving.endpoint.setTools(server._layer().layer)
  for (const fn of server.startup) {
    Promise.resolve().then(() => fn(server)).catch((e) => server.diag('error', `startup function failed: ${e && e.stack}`))
  }
  const handler = (req, res) => {
    serving.handle(req, res).catch((e) => {
      server.diag('error', `HTTP request failed: ${(e && e.stack) || e}`)
      if (!res.headersSent) res.writeHead(500, ['Content-Length', '0'])
      res.end()
    })
  }
  handler.endpoint = serving.endpoint
  handler.close = () => serving.close()
  return handler
}

module.exports = { httpHandler, readBody }
