'use strict'
/**
 * A stdio MCP server in a few lines, on top of the core `Session` and the core's server
 * application layer (`ServerLayer`).
 *
 * The helper only calls the core: framing, JSON-RPC, the lifecycle of both eras,
 * capability checks, `ping`, `logging/setLevel`, subscriptions and cancellation
 * bookkeeping stay in the session; the lists (with cursors), argument validation against
 * `inputSchema`, template matching, required prompt arguments and the shape of every
 * result stay in the layer. The helper adds the handler callables, their async dispatch
 * and type conversion, and the stdin/stdout loop.
 *
 * Handlers take `(args, ctx)` and may return a value or a Promise:
 * - a tool's return value becomes a result as `results.js` says (string: text; object:
 *   structured content; array: one block per item; undefined/null: empty content); a
 *   thrown error is an `isError: true` result with its message (its stack goes to
 *   stderr), `McpError` a JSON-RPC error. Arguments the request left out get the
 *   `default` their `inputSchema` gives; a zod schema then parses them;
 * - a resource returns a string (text), a Buffer/Uint8Array (base64 blob) or a contents
 *   array; it throws `ResourceNotFound` for a URI that names nothing;
 * - a prompt returns an array of messages or an object with `messages`.
 * `ctx.signal` aborts when the client cancels the request; nothing more is sent for it.
 * Any of them may ask the client (`ctx.ask`, `ctx.askAll`): a request to the client in
 * the legacy era, an `input_required` result and a retry in 2026-07-28 (MRTR).
 * Definitions are checked when registered (by the core); a wrong one (a name used
 * twice, say) throws there.
 */
// Keys come from the addon (the system's generator): `node:crypto` is not loaded for stdio.
const { randomBytes, releaseBuffer } = require('./addon.js').load()
const { RespondError, ResultError, ConfigError } = require('./errors.js')
const { toolResult, contents, messages } = require('./results.js')
const { describe, typedVars, isShape } = require('./schema.js')
const { guardStdout } = require('./stdout.js')
const { Context, McpError, ToolError, ResourceNotFound, InputRequired, ASKS, isObject } = require('./context.js')
// The requests that may be answered with `input_required` (MODERN §8.2).
const MRTR_METHODS = ['tools/call', 'prompts/get', 'resources/read']

const INTERNAL_ERROR = -32603
const LEVELS = ['error', 'warn', 'info', 'debug']

const { now } = require('./clock.js')

const toolError = (message) => ({ content: [{ type: 'text', text: message }], isError: true })
/** A tool's return value as what `answer` takes: a string stays (one text block), else `toolResult`. */
const shaped = (v) => (typeof v === 'string' ? v : toolResult(v))

/**
 * The calls of a batch of events that the client cancelled later in the same batch
 * (their indexes), or null: the core has finished them already, so no handler runs (as
 * if the cancellation had come first). Calls are matched to the nearest later
 * `cancelled` of their id (a slot's id may be used again after it).
 */
function dropped (evs) {
  let any = false
  for (let i = 0; i < evs.length; i++) if (evs[i].kind === 'cancelled') { any = true; break }
  if (!any) return null
  const later = new Set()
  const skip = new Set()
  for (let i = evs.length - 1; i >= 0; i--) {
    const ev = evs[i]
    if (ev.kind === 'cancelled') later.add(ev.id)
    else if (ev.kind === 'call' && later.delete(ev.id)) skip.add(i)
  }
  return skip
}

/** The definition of `d` that the layer reads: the members it lists, as given. */
function pick (d, keys) {
  const out = {}
  for (const k of keys) if (d[k] !== undefined && d[k] !== null) out[k] = d[k]
  // `scopes`: the OAuth scopes a caller needs over HTTP with `auth` (a string or a list).
  if (Array.isArray(out.scopes)) out.scopes = out.scopes.join(' ')
  return out
}

const TOOL_KEYS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'icons', 'execution', '_meta', 'scopes']
const RESOURCE_KEYS = ['uri', 'name', 'title', 'description', 'mimeType', 'size', 'annotations', 'icons', '_meta', 'scopes']
const PROMPT_KEYS = ['name', 'title', 'description', 'icons', '_meta', 'scopes']
const ARGUMENT_KEYS = ['name', 'title', 'description', 'required']

/** The arguments of a registration, checked before anything else. */
function checkArgs (where, name, opts, fn, what) {
  if (typeof name !== 'string' || !name) throw new TypeError(`${where}: the ${what} must be a non-empty string`)
  const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v)
  if (fn === undefined && typeof opts !== 'object') throw new TypeError(`${where}: the handler must be a function, not ${kind(opts)}`)
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) throw new TypeError(`${where}: the options must be an object, not ${kind(opts)}`)
  if (typeof fn !== 'function') throw new TypeError(`${where}: the handler must be a function, not ${kind(fn)}`)
}

/**
 * One definition checked by the core (a one-entry catalog), so that a wrong one throws at
 * registration. The core's message names the entry by its index in the table; here it is
 * named by its name.
 */
function check (where, catalog, index = 0) {
  const { ServerLayer } = require('./index.js')
  try {
    return new ServerLayer(catalog)
  } catch (e) {
    const prefix = new RegExp(`^(?:server catalog: \\w+\\[${index}\\]\\.?|(?:tool|resource template|resource|prompt) ${index}: )`)
    const message = `${where}: ${String(e.message).replace(prefix, '')}`
    if (e instanceof ConfigError) throw new ConfigError(message, e.kind)
    if (e instanceof TypeError) throw new TypeError(message)
    throw e
  }
}

/**
 * A name registered twice: the core's check of the earlier definition and this one
 * together throws its ConfigError ("used by an earlier entry too"), the same text as
 * the Python helper's.
 */
function checkDuplicate (where, table, earlier, def) {
  if (earlier) check(where, { [table]: [earlier, def] }, 1)
}

/**
 * An MCP server: register tools, resources and prompts, then `run()` on stdio.
 * Capabilities are derived from what is registered (by the core's layer), so nothing is
 * declared that is not implemented. Both eras are served on one connection.
 */
class Server {
  /**
   * `stateKey` (Buffer, at least 16 bytes; default 32 random bytes per Server): the key
   * the core seals 2026-07-28 `requestState` with (`ctx.ask`'s `state`) and verifies it
   * by on the retry. Processes that serve one client behind a load balancer share one.
   * `stateTtlMs`: how long a sealed state stays valid (the core's default: 10 minutes).
   */
  constructor (name, version, {
    instructions, versions, maxLine = 1 << 20, logging = true, inboundSlots = 64, outboundSlots = 16,
    logLevel = 'warn', pageSize, maskErrors = false, lifespan, stateKey, stateTtlMs
  } = {}) {
    Object.assign(this, { name, version, instructions, versions, maxLine, logging, inboundSlots, outboundSlots, logLevel, pageSize, maskErrors })
    if (lifespan !== undefined && typeof lifespan !== 'function') throw new TypeError('lifespan must be a function')
    this.lifespan = lifespan
    if (stateKey !== undefined && !(stateKey instanceof Uint8Array)) throw new TypeError('stateKey must be a Buffer')
    this.stateKey = stateKey === undefined ? randomBytes(32) : Buffer.from(stateKey)
    this.stateTtlMs = stateTtlMs
    // The core checks the key (and the TTL) now, not at the first request.
    const { Session } = require('./index.js')
    new Session('server', 'state-key-check', '0', {}, { maxLine: 256, inboundSlots: 1, outboundSlots: 1, ...this._stateOptions() }).release()
    /** What the lifespan function gave (also `ctx.state`), while serving. */
    this.state = undefined
    this.tools = new Map()
    this.resources = new Map()
    this.templates = []
    this.prompts = new Map()
    this.session = null
    this.pending = new Map() // request id -> Context of a handler still running
    this.asks = new Map() // our request id -> {resolve, reject}
    this.startup = []
    this.served = null // the core's layer for what is registered, and its tables; rebuilt after a change
  }

  /**
   * Registers `fn(args, ctx)` as a tool (`tool(name, fn)` without options takes any
   * arguments). `opts`: description, inputSchema and outputSchema (JSON Schema, a zod
   * schema or a zod raw shape), title, annotations, icons, _meta, scopes (the OAuth scopes a
   * caller needs over HTTP with `auth`: unlisted and refused with 403 otherwise). A wrong
   * definition throws here (the core's check).
   */
  tool (name, opts, fn) {
    if (typeof opts === 'function' && fn === undefined) [opts, fn] = [{}, opts]
    const where = `tool ${JSON.stringify(name)}`
    checkArgs(where, name, opts, fn, 'name')
    const input = describe(opts.inputSchema, `${where}: inputSchema`, 'input')
    const output = describe(opts.outputSchema, `${where}: outputSchema`, 'output')
    const t = { ...opts, name, fn, inputSchema: input.json ?? { type: 'object' }, outputSchema: output.json, parse: input.parse }
    check(where, { tools: [pick(t, TOOL_KEYS)] })
    const earlier = this.tools.get(name)
    checkDuplicate(where, 'tools', earlier && pick(earlier, TOOL_KEYS), pick(t, TOOL_KEYS))
    this.tools.set(name, t)
    return this._changed()
  }

  /**
   * Registers `fn(uri, ctx, vars)` as the reader of a resource, or of a template when `uri`
   * has `{variables}`. `opts.variables`: the variables' types (a zod raw shape or schema, or
   * a JSON Schema object): `vars` then holds numbers and booleans as declared (decoded
   * strings otherwise), and a value that does not fit is "resource not found".
   */
  resource (uri, opts, fn) {
    if (typeof opts === 'function' && fn === undefined) [opts, fn] = [{}, opts]
    const template = typeof uri === 'string' && uri.includes('{')
    const where = `${template ? 'resource template' : 'resource'} ${JSON.stringify(uri)}`
    checkArgs(where, uri, opts, fn, 'uri')
    const { variables, ...rest } = opts
    const r = { uri, fn, name: uri, ...rest, complete: new Map(), variables: variables === undefined ? null : describe(variables, `${where}: variables`) }
    if (template) {
      const def = (x) => ({ uriTemplate: x.uri, ...pick(x, RESOURCE_KEYS.slice(1)) })
      check(where, { resourceTemplates: [def(r)] })
      const earlier = this.templates.find((t) => t.uri === uri)
      checkDuplicate(where, 'resourceTemplates', earlier && def(earlier), def(r))
      this.templates.push(r)
    } else {
      check(where, { resources: [pick(r, RESOURCE_KEYS)] })
      const earlier = this.resources.get(uri)
      checkDuplicate(where, 'resources', earlier && pick(earlier, RESOURCE_KEYS), pick(r, RESOURCE_KEYS))
      this.resources.set(uri, r)
    }
    return this._changed()
  }

  /**
   * Registers `fn(args, ctx)` as a prompt; `opts.arguments` is the listed array (required
   * ones are checked) or a zod raw shape of strings (optional ones not required).
   */
  prompt (name, opts, fn) {
    if (typeof opts === 'function' && fn === undefined) [opts, fn] = [{}, opts]
    const where = `prompt ${JSON.stringify(name)}`
    checkArgs(where, name, opts, fn, 'name')
    let args = opts.arguments ?? []
    if (isShape(args)) {
      const json = describe(args, `${where}: arguments`).json
      args = Object.entries(json.properties).map(([k, v]) => ({
        name: k, ...(v.description ? { description: v.description } : {}), required: (json.required || []).includes(k)
      }))
    }
    const p = { name, fn, ...opts, arguments: args, complete: new Map() }
    const def = (x) => ({ ...pick(x, PROMPT_KEYS), arguments: Array.isArray(x.arguments) ? x.arguments.map((a) => pick(a || {}, ARGUMENT_KEYS)) : x.arguments })
    check(where, { prompts: [def(p)] })
    const earlier = this.prompts.get(name)
    checkDuplicate(where, 'prompts', earlier && def(earlier), def(p))
    this.prompts.set(name, p)
    return this._changed()
  }

  /** Registers `fn(value, contextArgs) -> string[]` to complete an argument of a prompt or template. */
  completion (ref, argument, fn) {
    const target = this.prompts.get(ref) || this.templates.find((t) => t.uri === ref)
    if (!target) throw new TypeError(`completion for unknown prompt or template ${ref}`)
    target.complete.set(argument, fn)
    return this._changed()
  }

  /** Registers `fn(server)` to run once serving starts. */
  onStartup (fn) {
    if (typeof fn !== 'function') throw new TypeError('onStartup: fn must be a function')
    this.startup.push(fn)
    return this
  }

  /** The capabilities derived (by the core's layer) from what is registered. */
  get capabilities () { return this._layer().layer.capabilities }

  /**
   * A registration changed the tables: while serving, the layer is rebuilt at once (a
   * broken definition throws here), and the HTTP endpoint told the tools.
   */
  _changed () {
    this.served = null
    if (this.session || this._http) this._layer()
    if (this._http) this._http.endpoint.setTools(this.served.layer)
    return this
  }

  /** The `Session` options of the 2026-07-28 `requestState` seal. */
  _stateOptions () {
    return this.stateTtlMs === undefined ? { stateKey: this.stateKey } : { stateKey: this.stateKey, stateTtlMs: this.stateTtlMs }
  }

  /**
   * The core's layer for what is registered now, with the tables its call indexes name.
   * Built once, and again after a registration (a broken definition throws here: at start-up).
   */
  _layer () {
    if (this.served) return this.served
    const { ServerLayer } = require('./index.js')
    const tools = [...this.tools.values()]
    const resources = [...this.resources.values()]
    const templates = [...this.templates]
    const prompts = [...this.prompts.values()]
    const catalog = {
      tools: tools.map((t) => pick(t, TOOL_KEYS)),
      resources: resources.map((r) => pick(r, RESOURCE_KEYS)),
      resourceTemplates: templates.map((t) => ({ uriTemplate: t.uri, ...pick(t, RESOURCE_KEYS.slice(1)), completable: t.complete.size > 0 })),
      prompts: prompts.map((p) => ({
        ...pick(p, PROMPT_KEYS),
        arguments: (p.arguments || []).map((a) => ({ ...pick(a, ARGUMENT_KEYS), completable: p.complete.has(a.name) }))
      }))
    }
    const layer = new ServerLayer(catalog, { subscribe: true, logging: this.logging, pageSize: this.pageSize })
    this.served = { layer, tools, resources, templates, prompts }
    return this.served
  }

  /**
   * Announces a change to whoever asked for it; returns how many notifications were
   * queued. Over HTTP: to every live session.
   */
  notify (change, uri) {
    if (this._http) return this._http.live().reduce((n, view) => n + view.notify(change, uri), 0)
    return this._command(() => this._serving().notify(change, uri))
  }

  /** True when somebody (over HTTP: any live session) subscribed to `uri`. */
  isSubscribed (uri) {
    if (this._http) return this._http.live().some((view) => view.isSubscribed(uri))
    return !!this.session && this.session.isSubscribed(uri)
  }

  _serving () {
    if (!this.session) throw new Error('the server is not serving yet (call run() or serve() first)')
    return this.session
  }

  /** Sends a request to the client and resolves with its result. */
  request (method, params, { timeoutMs = 60000, signal } = {}) {
    const id = this._command(() => this._serving().sendRequest(now(), method, params, { timeoutMs }))
    return new Promise((resolve, reject) => {
      this.asks.set(id, { resolve, reject })
      // `signal` aborted (the tool call waiting for the answer was cancelled): withdraw
      // the question.
      if (signal) {
        signal.addEventListener('abort', () => {
          if (!this.asks.delete(id)) return
          try { this._command(() => this.session.cancel(id, 'the tool call was cancelled')) } catch {}
          reject(signal.reason)
        }, { once: true })
      }
    })
  }

  /**
   * The server over Streamable HTTP: a `(req, res)` handler for `node:http` (or Express:
   * mount it before any body parser, e.g. `app.all('/mcp', handler)` ahead of
   * `express.json()`, or keep the raw body in `req.rawBody`: the exact bytes are
   * needed). Both eras; one session per legacy client (`Mcp-Session-Id`) and per
   * 2026-07-28 request in flight, from a pool of `slots`. `options` are the core
   * endpoint's: path ('/mcp'), allowedHosts (loopback names only by default: DNS
   * rebinding), maxBody (the server's maxLine), responseMode, slots, streams, ...
   * `auth`: an OAuth 2.1 protected resource, `{ verify, resource, authorizationServers,
   * scopes, scopesSupported?, required?, leewayS?, resourceName? }`; `verify(token)`
   * (sync or async) checks the signature (e.g. jose's `jwtVerify` with
   * `createRemoteJWKSet`) and returns the claims, or null; the core checks audience,
   * expiry and scopes. Handlers see `ctx.principal`, never the token.
   * The handler has `.endpoint` and `.close()`. One handler per server.
   */
  httpHandler (options = {}) {
    return require('./http.js').httpHandler(this, options)
  }

  /**
   * Serves Streamable HTTP on `http://host:port/mcp` (with the `lifespan`, like `serve`)
   * until the returned server closes; resolves with the exit status. `options` as for
   * `httpHandler`.
   */
  async serveHttp ({ host = '127.0.0.1', port = 0, ...options } = {}) {
    const http = require('node:http')
    if (this.lifespan) {
      const got = this.lifespan(this)
      if (got && typeof got.next === 'function' && typeof got[Symbol.asyncIterator] === 'function') {
        this._lifespan = got
        this.state = (await got.next()).value
      } else {
        this.state = await got
      }
    }
    const handler = this.httpHandler(options)
    const server = http.createServer(handler)
    this.httpServer = server
    await new Promise((resolve, reject) => { server.once('error', reject); server.listen(port, host, resolve) })
    const addr = server.address()
    const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address
    this.diag('info', `${this.name} ${this.version} on http://${shown}:${addr.port}${options.path || '/mcp'}`)
    await new Promise((resolve) => server.once('close', resolve))
    handler.close()
    if (this._lifespan) {
      const gen = this._lifespan
      this._lifespan = null
      try { if (!(await gen.next()).done) await gen.return() } catch (e) { this.diag('error', `lifespan cleanup failed: ${(e && e.stack) || e}`) }
    }
    return 0
  }

  /** A diagnostic line on stderr, when `--log-level` lets it through. */
  diag (level, message) {
    if (LEVELS.indexOf(level) <= LEVELS.indexOf(this.logLevel)) process.stderr.write(`${this.name}: ${level}: ${message}\n`)
  }

  /**
   * Serves stdin/stdout until EOF; resolves with the exit status. Parses `--max-line BYTES`
   * and `--log-level LEVEL` from `argv`.
   */
  async run (argv = process.argv.slice(2)) {
    try {
      this._parseArgs(argv)
    } catch (e) {
      process.stderr.write(`${this.name}: ${e.message}\nusage: ${this.name} [--max-line BYTES] [--log-level ${LEVELS.join('|')}] [--http HOST:PORT]\n`)
      return 2
    }
    // `httpAuth`: `httpHandler`'s `auth` for `--http` (a demo sets it from its own flags).
    if (this.httpAddress) return this.serveHttp(this.httpAuth ? { ...this.httpAddress, auth: this.httpAuth } : this.httpAddress)
    // Only the protocol writes to stdout while serving: console.log and friends go to stderr.
    const guard = guardStdout()
    try {
      return await this.serve(process.stdin, guard.output)
    } finally {
      guard.restore()
    }
  }

  _parseArgs (argv) {
    for (let i = 0; i < argv.length; i++) {
      const [name, inline] = argv[i].split(/=(.*)/s)
      if (name !== '--max-line' && name !== '--log-level' && name !== '--http') throw new Error(`unknown argument ${argv[i]}`)
      const value = inline !== undefined ? inline : argv[++i]
      if (value === undefined) throw new Error(`${name} needs a value`)
      if (name === '--http') {
        const m = /^(.*):(\d+)$/.exec(value)
        if (!m || Number(m[2]) > 65535) throw new Error('--http needs HOST:PORT (e.g. 127.0.0.1:8000)')
        this.httpAddress = { host: m[1].replace(/^\[(.*)\]$/, '$1'), port: Number(m[2]) }
      } else if (name === '--max-line') {
        const n = Number(value)
        if (!/^\d+$/.test(value) || n < 256 || n > 2 ** 30) throw new Error(`--max-line must be a number of bytes from 256 to ${2 ** 30}`)
        this.maxLine = n
      } else {
        if (!LEVELS.includes(value)) throw new Error(`unknown log level ${value}`)
        this.logLevel = value
      }
    }
  }

  /**
   * Serves one connection on a readable and a writable stream. With a `lifespan`, its
   * setup runs (and finishes) before the first byte is read; its cleanup after the last
   * answer is written.
   */
  async serve (input, output) {
    if (this.lifespan) {
      const got = this.lifespan(this)
      if (got && typeof got.next === 'function' && typeof got[Symbol.asyncIterator] === 'function') {
        // An async generator: what it yields is the state; the rest of it is the cleanup.
        this._lifespan = got
        this.state = (await got.next()).value
      } else {
        this.state = await got
      }
    }
    try {
      return await this._serve(input, output)
    } finally {
      if (this._lifespan) {
        const gen = this._lifespan
        this._lifespan = null
        try { if (!(await gen.next()).done) await gen.return() } catch (e) { this.diag('error', `lifespan cleanup failed: ${(e && e.stack) || e}`) }
      }
    }
  }

  _serve (input, output) {
    const { Session } = require('./index.js')
    this.input = input
    // process.stdin's chunks are made for us alone (any other stream's may be the caller's).
    this.ownInput = input === process.stdin
    this.output = output
    this.backlog = null // bytes the session could not take yet
    this.outq = [] // output taken from the session, written at the end of a pump
    this.batching = false
    this.waitingOutput = false // the client has not read what we wrote
    this.session = new Session('server', this.name, this.version, this.capabilities, {
      instructions: this.instructions, versions: this.versions, maxLine: this.maxLine,
      inboundSlots: this.inboundSlots, outboundSlots: this.outboundSlots, nowMs: now(), ...this._stateOptions()
    })
    this.diag('info', `${this.name} ${this.version} on stdio, max line ${this.maxLine} bytes`)
    for (const fn of this.startup) {
      Promise.resolve().then(() => fn(this)).catch((e) => this.diag('error', `startup function failed: ${e && e.stack}`))
    }
    return new Promise((resolve) => {
      this.resolve = resolve
      input.on('data', (chunk) => this._feed(chunk))
      input.on('end', () => { this.inputEnded = true; this._maybeEnd() })
      input.on('error', (e) => { this.diag('error', `cannot read stdin: ${e.message}`); this.inputEnded = true; this._maybeEnd() })
      output.on('error', (e) => {
        // The client closed its end: nothing more can be written; keep serving the input
        // (it ends soon) instead of waiting for a 'drain' that never comes.
        this.diag('warn', `cannot write stdout: ${e.message}`)
        this.outputBroken = true
        this.waitingOutput = false
        this._flow()
      })
    })
  }

  /** Offers bytes to the session; what it cannot take yet waits in `backlog`. */
  _feed (data) {
    const chunk = data
    while (data.length) {
      const taken = this.session.handleBytes(now(), data)
      data = data.subarray(taken)
      this._pump()
      if (!data.length) break
      // A closed session takes nothing more: drop the rest (EOF still ends the run).
      if (this.session.phase === 'closed') { data = data.subarray(data.length); break }
      // Nothing taken: the session waits for us (a 2025-03-26 batch whose members are
      // still running). Keep the rest until a handler finishes.
      if (!taken) break
    }
    this.backlog = data.length ? data : null
    // A chunk of our stdin, taken whole, that is its buffer's only view: nobody else holds
    // it, so its memory goes back now, not at the next scavenge (`releaseBuffer`).
    if (!this.backlog && this.ownInput && chunk.byteOffset === 0 && chunk.length === chunk.buffer.byteLength) releaseBuffer(chunk.buffer)
    this._flow()
  }

  _retryBacklog () {
    if (this.backlog) {
      const data = this.backlog
      this.backlog = null
      this._feed(data)
    }
    this._maybeEnd()
  }

  /** Reads input only while the client reads our output and the session takes bytes. */
  _flow () {
    if (!this.input || this.ended) return
    if (this.waitingOutput || this.backlog) {
      if (!this.input.isPaused()) this.input.pause()
    } else if (this.input.isPaused()) {
      this.input.resume()
    }
  }

  async _maybeEnd () {
    if (!this.inputEnded || this.backlog || this.ended) return
    this.ended = true
    this.session.handleEof(now())
    this._pump()
    // End of input: work already running still owes its answer.
    while (this.pending.size) await Promise.allSettled([...this.pending.values()].map((c) => c.done))
    this._pump()
    clearTimeout(this.timer)
    this.diag('info', 'end of input; exiting')
    if (this.outputBroken) return this.resolve(0)
    this.output.write('', () => this.resolve(0))
  }

  /**
   * Writes what the session queued and re-arms the timer for its next deadline. Inside a
   * pump both wait for its end: one write (and one timer) for all the answers of a chunk
   * of input, instead of one per answer.
   */
  _flush (force = false) {
    // Inside a pump the output waits for its end (one write for the whole chunk), unless
    // the transmit queue is full (`force`): then it is taken now.
    if (this.batching) {
      if (force) this._write()
      return
    }
    this._write()
    clearTimeout(this.timer)
    const due = this.session.pollTimeout()
    if (due !== null && !this.ended) {
      this.timer = setTimeout(() => {
        this.session.handleTimeout(now())
        this._pump()
        this._retryBacklog()
      }, Math.min(Math.max(0, due - now()), 2 ** 31 - 1)) // setTimeout's largest delay
    }
  }

  /** Writes what the session queued. */
  _write () {
    // As a string: a Buffer per write is memory outside the JavaScript heap that is freed
    // only by the next scavenge, so between scavenges the malloc heap grows with every
    // chunk answered (about 10 MiB at 64 pings in flight); a string is young garbage of
    // the heap itself, and the stream writes it without copying it into a Buffer.
    const out = this.session.pollTransmitText()
    if (out.length) this.outq.push(out)
    if (this.batching || !this.outq.length) return
    const data = this.outq.length === 1 ? this.outq[0] : this.outq.join('')
    this.outq = []
    if (!this.outputBroken && !this.output.write(data) && !this.waitingOutput) {
      // Backpressure: while the client does not read what we wrote, stop reading its
      // requests, so answers never pile up in memory without bound.
      this.waitingOutput = true
      this.output.once('drain', () => { this.waitingOutput = false; this._flow() })
      this._flow()
    }
  }

  /** Runs a session command; a full transmit queue is written out once first. */
  _command (fn) {
    let result
    try {
      result = fn()
    } catch (e) {
      if (e.name !== 'QueueFull') throw e
      this._flush(true)
      result = fn()
    }
    this._flush()
    return result
  }

  /**
   * Takes every event through the core's layer (dispatching calls), then writes what is
   * queued, once. The events come in batches (`pollEvents`: one call for a chunk of
   * input); a batch ends early when what the layer answered itself fills the transmit
   * queue, which is taken out before the next batch.
   */
  _pump () {
    const { layer } = this._layer()
    const outer = !this.batching
    this.batching = true
    try {
      for (let evs = layer.pollEvents(this.session, this._scopes); evs; evs = layer.pollEvents(this.session, this._scopes)) {
        const skip = dropped(evs)
        let answered = false
        for (let i = 0; i < evs.length; i++) {
          const ev = evs[i]
          if (ev.kind === 'answered') answered = true
          else if (skip === null || !skip.has(i)) this._onEvent(ev)
        }
        if (answered) this._write()
      }
    } finally {
      if (outer) this.batching = false
    }
    this._flush()
  }

  _onEvent (ev) {
    switch (ev.kind) {
      case 'call': return this._onCall(ev)
      // The core answers initialize, ping, logging/setLevel, subscriptions and
      // server/discover, the layer the lists and the calls' checks; anything else
      // reaching us is not implemented.
      case 'request': return this._answerError(ev.id, -32601, 'Method not found')
      case 'cancelled': {
        const ctx = this.pending.get(ev.id)
        // Nothing is owed for it any more: the end of input does not wait for it.
        if (ctx) { this.pending.delete(ev.id); ctx.controller.abort(new McpError(-32800, 'Request cancelled')) }
        // The core already finished the request and freed its slot.
        return this.diag('debug', `request ${ev.id} cancelled (${ev.reason})`)
      }
      case 'response': case 'error_response': case 'timed_out': {
        const ask = this.asks.get(ev.id)
        if (!ask) return
        this.asks.delete(ev.id)
        if (ev.kind === 'response') ask.resolve(ev.result)
        else if (ev.kind === 'error_response') ask.reject(new McpError(ev.code, ev.message, ev.data))
        else ask.reject(new McpError(-32001, 'the client did not answer in time'))
        return
      }
      case 'negotiated':
        return this.diag('info', `protocol ${ev.version}, client ${JSON.stringify(ev.peer && ev.peer.clientInfo)}`)
      case 'peer_violation': return this.diag('info', `peer violation: ${ev.text}`)
      case 'closed':
        this.diag('info', `session closed: ${ev.text}`)
        for (const ask of this.asks.values()) ask.reject(new McpError(-32000, 'connection closed'))
        this.asks.clear()
    }
  }

  /** Runs the handler of a checked call and answers with what it returns. */
  _onCall (ev) {
    const tables = this._layer()
    const ctx = new Context(this, ev.id, ev.method, ev.params || {}, ev)
    const { layer } = tables
    const session = this.session
    let run, answer
    switch (ev.call) {
      case 'tool': {
        const tool = tables.tools[ev.index]
        let args = ev.arguments || {}
        // The defaults of arguments left out, as the inputSchema gives them (on a copy:
        // `args` may be `ctx.params.arguments` itself).
        const defaults = ev.defaults
        if (defaults) {
          for (const k in defaults) {
            if (Object.hasOwn(args, k)) continue
            if (args === ev.arguments) args = { ...args }
            args[k] = defaults[k]
          }
        }
        // A thrown error is a failed call the model sees (isError), not a JSON-RPC error;
        // its stack goes to stderr. McpError and ctx.ask's question go on to _failed.
        const failed = (e) => {
          if (e instanceof McpError || e instanceof InputRequired || ctx._aborted()) throw e
          if (!(e instanceof ToolError)) this.diag('error', `tool ${tool.name} failed: ${(e && e.stack) || e}`)
          const message = e instanceof Error ? e.message : String(e)
          return toolError(this.maskErrors && !(e instanceof ToolError) ? `Error in tool ${tool.name}` : message)
        }
        run = () => {
          let out
          try {
            let input = args
            if (tool.parse) {
              const r = tool.parse(args)
              if (!r.ok) return toolError(`Invalid arguments for tool ${tool.name}: ${r.message}`)
              input = r.value
            }
            out = tool.fn(input, ctx)
          } catch (e) {
            return failed(e)
          }
          if (out instanceof Promise) return out.then(shaped, failed)
          return shaped(out)
        }
        // A string (the common case) goes to the core as it is: one text block.
        answer = (result) => {
          try {
            if (typeof result === 'string') layer.respondToolText(session, ev.id, ev.index, result)
            else layer.respondTool(session, ev.id, ev.index, result)
          } catch (e) {
            if (!(e instanceof ResultError) && !(e instanceof TypeError)) throw e
            // The handler's result is not one the tool may give: the model sees why.
            this.diag('warn', `tool ${tool.name}: ${e.message}`)
            layer.respondTool(session, ev.id, ev.index, { content: [{ type: 'text', text: `Internal error: ${e.message}` }], isError: true })
          }
        }
        break
      }
      case 'read': {
        const res = ev.target === 'template' ? tables.templates[ev.index] : tables.resources[ev.index]
        run = () => {
          let vars = { ...(ev.vars || {}) }
          if (res.variables) {
            vars = typedVars(vars, res.variables)
            if (vars === null) throw new ResourceNotFound(ev.uri)
          }
          return res.fn(ev.uri, ctx, vars)
        }
        answer = (body) => layer.respondRead(session, ev.id, contents(ev.uri, res.mimeType, body))
        break
      }
      case 'prompt': {
        const prompt = tables.prompts[ev.index]
        run = () => prompt.fn(ev.arguments || {}, ctx)
        answer = (out) => layer.respondPrompt(session, ev.id, ev.index, messages(out))
        break
      }
      case 'complete': {
        const target = ev.target === 'template' ? tables.templates[ev.index] : tables.prompts[ev.index]
        const fn = target.complete.get(ev.argument)
        const context = ev.context
        const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)
        const contextArgs = isObj(context) && isObj(context.arguments) ? context.arguments : {}
        run = () => (fn ? fn(ev.value ?? '', contextArgs) : [])
        answer = (values) => {
          const all = [...(values ?? [])]
          layer.respondCompletion(session, ev.id, { values: all, total: all.length, hasMore: all.length > 100 })
        }
        break
      }
      default:
        return this._answerError(ev.id, INTERNAL_ERROR, `Internal error: unknown call ${ev.call}`)
    }
    let out
    try {
      out = run()
    } catch (e) {
      return this._failed(ctx, e)
    }
    if (!(out instanceof Promise)) return this._answer(ctx, answer, out)
    this.pending.set(ev.id, ctx)
    ctx.done = out.then((v) => { if (!ctx._aborted()) this._answer(ctx, answer, v) }, (e) => { if (!ctx._aborted()) this._failed(ctx, e) })
      .finally(() => { this.pending.delete(ev.id); this._pump(); this._retryBacklog() })
  }

  _failed (ctx, e) {
    if (e instanceof InputRequired) {
      try {
        this._command(() => this.session.respondInputRequired(ctx.requestId, e.requests, e.state))
      } catch (err) {
        // The core refused the question. InputNotAllowed in a request that may ask
        // (MODERN §8.2): the request did not declare a client capability a question needs,
        // -32021 naming those it lacks (all asked ones when the core refused for a finer
        // reason, an undeclared elicitation mode). Anything else is -32603 (as in Python).
        const declared = ctx.clientCapabilities
        const asked = {}
        const required = {}
        for (const q of Object.values(e.requests)) {
          const cap = (ASKS[q.method] || [])[1]
          if (cap) asked[cap] = {}
          if (cap && !isObject(declared[cap])) required[cap] = {}
        }
        if (err instanceof RespondError && err.kind === 'InputNotAllowed' && MRTR_METHODS.includes(ctx.method) && Object.keys(asked).length) {
          if (!Object.keys(required).length) Object.assign(required, asked)
          try {
            this._command(() => this.session.respondMissingCapability(ctx.requestId, required))
          } catch (err2) {
            this.diag('warn', `cannot answer request ${ctx.requestId}: ${err2.message}`)
          }
        } else { // a question that cannot be sent (not JSON, another method, ...)
          this.diag('error', `cannot ask in request ${ctx.requestId} (${ctx.method}): ${err && err.message}`)
          this._answerError(ctx.requestId, INTERNAL_ERROR, `Internal error: cannot ask the client in ${ctx.method}: ${err && err.message}`)
        }
      }
    } else if (e instanceof ResourceNotFound) {
      const uri = e.uri ?? ctx.params.uri
      this._answerError(ctx.requestId, e.code, e.uri === undefined ? `Resource not found: ${uri}` : e.message, { uri })
    } else if (e instanceof McpError) {
      this._answerError(ctx.requestId, e.code, e.message, e.data)
    } else {
      this.diag('error', `${ctx.method} failed: ${(e && e.stack) || e}`)
      this._answerError(ctx.requestId, INTERNAL_ERROR, this.maskErrors ? 'Internal error' : `Internal error: ${e && e.message}`)
    }
  }

  /** Answers a call with what its handler returned (through `answer`, a layer respond). */
  _answer (ctx, answer, value) {
    try {
      this._command(() => answer(value))
    } catch (e) {
      this.diag('warn', `cannot answer request ${ctx.requestId}: ${e.message}`)
      this._answerError(ctx.requestId, INTERNAL_ERROR, `Internal error: cannot send the result: ${e.message}`)
    }
  }

  _answerError (id, code, message, data) {
    try {
      if (!Number.isInteger(code) || code < -(2 ** 31) || code >= 2 ** 31) throw new TypeError(`error code ${code} is not a 32-bit integer`)
      this._command(() => this.session.respondError(id, code, message, data))
      return
    } catch (e) {
      // A code the core refuses (reserved, out of range), data that is not JSON: the
      // request still gets an answer.
      this.diag('warn', `cannot answer request ${id} with error ${code}: ${e.message}`)
    }
    try {
      this._command(() => this.session.respondError(id, INTERNAL_ERROR, `Internal error: ${message}`))
    } catch (e) {
      this.diag('warn', `cannot answer request ${id}: ${e.message}`)
    }
  }

}

module.exports = { Server, Context, McpError, ToolError, ResourceNotFound, InputRequired }
