// Type declarations for picomcp (lib/index.js, lib/server.js, lib/errors.js).
// Hand-written: test/types.test.mjs fails when they and the runtime disagree.

import type { NativeEndpoint, NativeServer, NativeSession } from '../native'

// ---- values ----

/** Any JSON value as JavaScript (what `JSON.parse` returns). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }
/** A JSON object as JavaScript, as events and handlers receive it. */
export type JsonObject = { [key: string]: any }
/**
 * A JSON object going in: a JavaScript object (stringified), or its JSON text as a string
 * or a Buffer. It must be an object; anything else throws a TypeError.
 */
export type JsonInput = object | string

/** The protocol revisions the core knows. */
export type ProtocolVersion = '2024-11-05' | '2025-03-26' | '2025-06-18' | '2025-11-25' | '2026-07-28'
export type Role = 'server' | 'client'
export type Phase = 'initializing' | 'awaiting_initialized' | 'operating' | 'closed'
/** `opening` until the first exchange decides; `legacy` (initialize) or `modern` (2026-07-28). */
export type Era = 'opening' | 'legacy' | 'modern'
/** MCP log levels (RFC 5424 names), least severe first. */
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency'
/** The changes a server can announce with `notify`; `resources/updated` takes a uri. */
export type ChangeNotification =
  | 'notifications/tools/list_changed'
  | 'notifications/prompts/list_changed'
  | 'notifications/resources/list_changed'
  | 'notifications/resources/updated'

/** One difference between protocol revisions: a row of the core's feature table. */
export type Feature =
  | 'batches'
  | 'tool_annotations'
  | 'audio_content'
  | 'progress_message'
  | 'completions_capability'
  | 'title'
  | 'output_schema'
  | 'structured_content'
  | 'resource_links'
  | 'completion_context'
  | 'elicitation'
  | 'elicitation_modes'
  | 'elicitation_enums'
  | 'icons'
  | 'argument_errors_as_tool_results'
  | 'sampling_tools'
  | 'error_without_id'
  | 'tasks'
  | 'tool_execution'
  | 'url_elicitation_required_error'
  | 'server_requests'
  | 'input_required'
  | 'result_type'
  | 'resource_not_found_invalid_params'

/** The protocol revisions the core knows, oldest first. */
export declare const PROTOCOL_VERSIONS: ProtocolVersion[]
/** Every feature name of the core's table, in table order. */
export declare const FEATURES: Feature[]
/**
 * The features protocol revision `version` has (`'output_schema'`,
 * `'argument_errors_as_tool_results'`, ...): the core's table of what each revision
 * changes. Ask it instead of comparing revisions. Throws a TypeError for an unknown one.
 */
export declare function features(version: ProtocolVersion | string): Feature[]
/** Options of `rootsContain`. */
export interface RootsOptions {
  /** Compare names ignoring case (macOS, Windows). Default false. */
  caseInsensitive?: boolean
  /** Windows paths: `\` separators, drive letters. Default false. */
  windows?: boolean
}
/**
 * Whether `target` (an absolute path or a `file:` URI) lies inside one of `roots` (the
 * `file:` URIs of the client's `roots/list`): the index of the first root that contains
 * it, or null. The core's rules: `..` may not leave the root, `%2e%2e` is `..`; a `%2F`
 * inside a name, NUL, bad escapes, a foreign host or a query throw a TypeError.
 */
export declare function rootsContain(roots: string[], target: string, options?: RootsOptions): number | null
/** The package version. */
export declare const version: string

// ---- the session ----

/** Options of `new Session(...)`; every member is optional. */
export interface SessionOptions {
  /** Server: the `instructions` sent in the handshake. */
  instructions?: string
  /** Accepted revisions (default: all five, both eras). */
  versions?: ProtocolVersion[]
  /** Longest line, in bytes, either way. */
  maxLine?: number
  /** Deepest JSON nesting accepted. */
  maxDepth?: number
  /** Longest request id accepted from the peer, in bytes. */
  maxIdLen?: number
  /** Requests of the peer open at once (default 16). */
  inboundSlots?: number
  /** Our requests open at once (default 16). */
  outboundSlots?: number
  /** Default timeout of our requests (default: none). */
  requestTimeoutMs?: number
  /** Client: how long to wait for the `server/discover` answer before `initialize`. */
  probeTimeoutMs?: number
  /** Server, 2026-07-28: seals `requestState` (HMAC-SHA256; at least 16 bytes). */
  stateKey?: Buffer
  /** Server, 2026-07-28: how long a sealed `requestState` stays valid (default 600000 ms). */
  stateTtlMs?: number
  /** The time the session starts at (default 0). */
  nowMs?: number
}

/** Options of `Session.sendRequest`. */
export interface RequestOptions {
  /** Gives up after this long (a `timed_out` event; the peer is told). */
  timeoutMs?: number
  /** Asks the peer for progress (`progress` events). */
  progress?: boolean
  /** Progress restarts the timeout. */
  resetTimeoutOnProgress?: boolean
  /** With `resetTimeoutOnProgress`: the limit however much progress arrives. */
  maxTotalMs?: number
}

/** What the session knows of the peer's open request (`Session.requestInfo`). */
export interface RequestInfo {
  method: string
  /** Sent in the 2026-07-28 era. */
  modern: boolean
  /** 2026-07-28: the log level the request asked for. */
  logLevel?: string | null
  hasProgressToken: boolean
  cancelled: boolean
  /**
   * The client capabilities that count for the request, as the core read them (the flags
   * its capability gate checks; `elicitation: {}` as `{form: {}}`): what a 2026-07-28
   * request declared, else the session's from `initialize`.
   */
  clientCapabilities: JsonObject
}

export type EventKind =
  | 'request'
  | 'notification'
  | 'response'
  | 'error_response'
  | 'timed_out'
  | 'cancelled'
  | 'progress'
  | 'negotiated'
  | 'ready'
  | 'input_required'
  | 'subscription_acknowledged'
  | 'invalid_result'
  | 'subscription_ended'
  | 'tool_changed'
  | 'pins_incomplete'
  | 'peer_violation'
  | 'closed'
  | 'call'
  | 'answered'
  | 'unknown'

/**
 * Something that happened on the session (`Session.pollEvent()`). `kind` says which; the
 * other members are present only where that kind has them.
 */
export interface Event {
  kind: EventKind
  /** The request handle: the peer's request (`request`, `cancelled`) or ours (the rest). */
  id?: number
  /** `request`, `notification`: the wire method; `peer_violation`: the method it names, if any. */
  method?: string
  /** `request`, `notification`, `progress`: the params object. */
  params?: JsonObject
  /** `response` (and the rejected result of `invalid_result`). */
  result?: JsonObject
  /** `error_response`: the JSON-RPC error. */
  code?: number
  message?: string
  data?: any
  /** `cancelled`: the peer's reason. */
  reason?: string
  /** `progress`. */
  progress?: number
  total?: number
  /** `negotiated`, `ready`: the revision. */
  version?: ProtocolVersion
  /** `negotiated`: the peer's side of the handshake. */
  peer?: JsonObject
  /** `input_required`: the `inputRequests` map; `subscription_acknowledged`: the filter. */
  requests?: JsonObject
  /** `peer_violation`, `closed`: a short name (`malformed`, `peer_closed`, `local`, ...). */
  name?: string
  /**
   * `peer_violation`, `closed`: a sentence for people; `tool_changed`: the tool's name;
   * `pins_incomplete`: what went unchecked, as a sentence.
   */
  text?: string
  /** `tool_changed`: the name of the tool that differs from its pin. */
  tool?: string
  /** `tool_changed`: the pinned digest and the new one, each 32 lowercase hex digits. */
  digests?: { old: string, new: string }
  /** `pins_incomplete`: how many tools found no free pin slot. */
  unpinned?: number
  /** `pins_incomplete`: how many changes were not reported yet. */
  unreported?: number
  // ---- `ServerLayer.pollEvent`: `call` (a checked call) and `answered` (the layer answered) ----
  /** `call`: which call. */
  call?: 'tool' | 'read' | 'prompt' | 'complete'
  /** `call`: the index of the definition in its table (`tools`, `prompts`, or as `target` says). */
  index?: number
  /** `read`: `resource` or `template`; `complete`: `prompt` or `template`. */
  target?: 'resource' | 'template' | 'prompt'
  /** `tool`, `prompt`: the checked arguments (`{}` when none were given). */
  arguments?: JsonObject
  /** `tool`: the request's `_meta`. */
  meta?: JsonObject
  /** `tool`: the `default` of each argument the request left out, as the `inputSchema` gives it. */
  defaults?: JsonObject
  /** `read`: the URI, decoded. */
  uri?: string
  /** `read` of a template: its variables as matched (still percent-encoded). */
  vars?: { [name: string]: string }
  /** `complete`: the argument (or template variable) being completed, and what was typed. */
  argument?: string
  value?: string
  /** `complete`: the request's `context` (`{arguments: {...}}`). */
  context?: JsonObject
  // ---- 2026-07-28 `call`s (`tool`, `read`, `prompt`): what a retry carries (MRTR) ----
  /** The client's answers by key (`inputResponses`), when it sent some. */
  inputResponses?: JsonObject
  /**
   * The `requestState` it echoed: verified and unsealed by the session when it has a
   * state key (`stateKey`); the client's own text otherwise (never trust it then).
   */
  requestState?: string
  /** The -32602 message when `inputResponses` is not an object or `requestState` not a string. */
  retryError?: string
}

/**
 * One MCP connection, sans-IO. After every input (`handleBytes`, `handleEof`,
 * `handleTimeout`) and command: take `pollEvent()` until null, write `pollTransmit()` to the
 * peer, and call `handleTimeout(now)` when `pollTimeout()` says. Times are any monotonic
 * milliseconds. Caller mistakes throw; a misbehaving peer is an event.
 */
export declare class Session {
  /** Throws ConfigError for a bad role, version list or limit; TypeError for bad capabilities. */
  constructor(role: Role, name: string, version: string, capabilities?: JsonInput, options?: SessionOptions)
  /** The native session underneath (JSON as text). */
  readonly native: NativeSession
  /** `server` or `client`. */
  get role(): Role
  /** Where the lifecycle is. */
  get phase(): Phase
  /** The negotiated revision, or null before negotiation. */
  get version(): ProtocolVersion | null
  /** Which protocol era the connection is in. */
  get era(): Era
  /** Server, legacy era: the level set with `logging/setLevel`, if any. */
  get logLevel(): LogLevel | null
  /** True while the peer's request `id` waits for our answer. */
  isOpen(id: number): boolean
  /** True when somebody subscribed to `uri`. */
  isSubscribed(uri: string): boolean
  /** What the session knows of the peer's open request `id`; null once answered. */
  requestInfo(id: number): RequestInfo | null
  /** Feeds bytes from the peer; returns how many were taken (fewer: drain, then re-offer). */
  handleBytes(nowMs: number, data: Uint8Array | string): number
  /**
   * Takes one whole message (an HTTP body: one JSON-RPC message or a 2025-03-26 batch);
   * false when the session has no room for it yet (drain events, answer, offer it again).
   */
  handleMessage(nowMs: number, data: Uint8Array | string): boolean
  /** The peer closed its stream. */
  handleEof(nowMs: number): void
  /** Time passed: expire timeouts. */
  handleTimeout(nowMs: number): void
  /** Everything queued for the peer (framed lines; empty Buffer when nothing is queued). */
  pollTransmit(): Buffer
  /** `pollTransmit` as a string (empty when nothing is queued): what the stdio `Server` writes. */
  pollTransmitText(): string
  /** The next event, or null. */
  pollEvent(): Event | null
  /** When `handleTimeout` is next due, or null. */
  pollTimeout(): number | null
  /** Answers the peer's request `id` with a result object. */
  respond(id: number, result: JsonInput): void
  /** Answers the peer's request `id` with a JSON-RPC error; `data` is any JSON value (null or undefined: none). */
  respondError(id: number, code: number, message: string, data?: unknown): void
  /** 2026-07-28: answers -32021 naming the client capabilities the request lacked. */
  respondMissingCapability(id: number, required: JsonInput): void
  /** 2026-07-28: answers `input_required` with questions for the client (MRTR). */
  respondInputRequired(id: number, inputRequests?: JsonInput | null, requestState?: string | null): void
  /** Progress on the peer's request (only if it asked; values must increase). */
  progress(id: number, progress: number, total?: number | null, message?: string | null): void
  /** Server: a log message; returns whether it was sent (the client's level lets it through). */
  log(level: LogLevel, data: unknown, logger?: string | null, id?: number | null): boolean
  /** Server: announces a change to whoever asked; returns how many notifications were queued. */
  notify(change: ChangeNotification, uri?: string | null): number
  /** Sends a request; returns its handle (the `id` of the events that answer it). */
  sendRequest(nowMs: number, method: string, params?: JsonInput | null, options?: RequestOptions | null): number
  /** Sends a notification. */
  sendNotification(method: string, params?: JsonInput | null): void
  /** Cancels our request `id` (the peer is told; no event follows). */
  cancel(id: number, reason?: string | null): void
  /** Client, 2026-07-28: answers an `input_required` event; the request is sent again. */
  answerInput(nowMs: number, id: number, responses: JsonInput): void
  /** Client, 2026-07-28: opens a `subscriptions/listen` stream; returns its handle. */
  listen(notifications: JsonInput): number
  /** Ends the session locally (a `closed` event named `local`). */
  close(): void
  /** Frees the session's buffers now, not at garbage collection (it is closed and takes nothing after). */
  release(): void
}

// ---- the core's Streamable HTTP endpoint ----

/** How an `Endpoint` is set up (the core's defaults for what is left out). */
export interface EndpointOptions {
  /** The MCP path; other paths get 404. Default `/mcp`. */
  path?: string
  /** Check `Host`/`Origin` against the loopback names and `allowedHosts` (403 otherwise). Default true. */
  checkHosts?: boolean
  /** Host names accepted besides `localhost`, `127.0.0.1` and `[::1]`. */
  allowedHosts?: string[]
  /** The largest body taken (413 beyond), and the parse limit of bodies. Default 1 MiB. */
  maxBody?: number
  /** A legacy session unused this long expires. Default 600000. */
  sessionIdleMs?: number
  /** An idle SSE stream gets a comment this often. Default 15000. */
  keepaliveMs?: number
  /** The `retry` hint of the priming event. Default 1000. */
  retryMs?: number
  /** JSON, SSE, or whichever the request needs (default). */
  responseMode?: 'auto' | 'json' | 'sse'
  /** Offer the GET stream of legacy sessions (405 when off). Default true. */
  getStream?: boolean
  /** The revisions served (default all). */
  versions?: string[]
  /** An OAuth 2.1 protected resource (docs/DESIGN.md, "Authorization"). */
  auth?: AuthOptions
  /** Session slots (default 32). */
  slots?: number
  /** Response streams open at once (default 64). */
  streams?: number
  /** Bytes of each stream's buffer (default `maxBody` + 4096). */
  streamBytes?: number
}

/** What to do with one request. */
/** The endpoint as an OAuth 2.1 protected resource. */
export interface AuthOptions {
  /** The canonical resource URI: the metadata's `resource`, the tokens' audience. */
  resource: string
  /** Issuer URLs of the authorization servers (at least one). */
  authorizationServers: string[]
  /** Every scope name the server knows (at most 64). */
  scopes?: string[]
  /** The scopes the metadata advertises. */
  scopesSupported?: string[]
  /** Scopes every request needs (space-delimited). */
  required?: string
  /** Clock skew tolerated on `exp`/`nbf`, seconds (default 60). */
  leewayS?: number
  /** A token without `exp` is invalid (default true). */
  requireExpiry?: boolean
  resourceName?: string
}

/** `httpHandler({ auth })`: `AuthOptions` and the host's token check. */
export interface HttpAuthOptions extends AuthOptions {
  /**
   * Checks a Bearer token (signature and issuer, or introspection) and returns its claims
   * (`sub`, `client_id`/`azp`, `aud`, `exp`, `nbf`, `scope`/`scp`), or null to reject it;
   * the core then checks audience, expiry and scopes.
   */
  verify(token: string): JsonObject | null | Promise<JsonObject | null>
}

/** The verified caller of a request (never the token). */
export interface Principal {
  subject: string
  clientId: string
  /** The granted scopes (among `AuthOptions.scopes`). */
  scopes: string[]
  /** Unix seconds. */
  expiresAt?: number
}

export interface EndpointOutcome {
  /** deliver, stream under `auth`: the verified caller. */
  principal?: Principal
  kind: 'respond' | 'deliver' | 'stream'
  /** respond: the status. */
  status?: number
  /** respond: header names and values, alternating. */
  headers?: string[]
  /** respond: the body. */
  body?: Buffer
  /** deliver: the session slot. */
  slot?: number
  /** deliver: start a new session in the slot first. */
  fresh?: boolean
  /** deliver, stream: the stream to serve (deliver without one: answer 202). */
  stream?: number
}

/** The next thing to write for a stream. */
export interface EndpointPoll {
  kind: 'head' | 'body' | 'wait' | 'end'
  /** head: the status. */
  status?: number
  /** head: header names and values, alternating (no framing headers). */
  headers?: string[]
  /** head: the body's length when fixed. */
  contentLength?: number
  /** head: true for a stream (SSE), written as it comes. */
  streaming?: boolean
  /** body: bytes to write, then `advance(stream, data.length)`. */
  data?: Buffer
}

/** The endpoint's counters. */
export interface EndpointStats {
  refused: number
  sessionsOpened: number
  sessionsExpired: number
  sessionsEvicted: number
  sessionsDeleted: number
  unroutable: number
  overflowed: number
  resumeMisses: number
}

/**
 * The core's Streamable HTTP endpoint, server role: every rule of both eras between an
 * HTTP request and the sessions (a pool, by slot) that serve it. `Server.httpHandler()`
 * is it for `node:http`.
 */
export declare class Endpoint {
  /** Throws ConfigError for options it cannot work with. */
  constructor(options?: EndpointOptions)
  /** The native endpoint underneath. */
  readonly native: NativeEndpoint
  /** Bytes of entropy `handleRequest` takes. */
  get entropyLen(): number
  /** The number of session slots. */
  get slotCount(): number
  /** Legacy sessions open now. */
  get sessions(): number
  /** Streams open now. */
  get openStreams(): number
  /** True when `slot` holds a live session or serves a request. */
  slotInUse(slot: number): boolean
  stats(): EndpointStats
  /**
   * The tools served (those of `layer`): the `x-mcp-header` annotations of their input
   * schemas are checked as `Mcp-Param-*` headers of 2026-07-28 `tools/call`s. Again
   * whenever the tools change (`httpHandler` does both).
   */
  setTools(layer: ServerLayer): void
  /**
   * One request (`rawHeaders` as Node gives them; `entropy`: `entropyLen` random bytes).
   * Under `auth`: the claims the verifier made of `bearerToken(...)` (null: rejected), now
   * in Unix seconds, and the layer whose per-definition scopes apply.
   */
  handleRequest(nowMs: number, method: string, target: string, rawHeaders: string[], body: Uint8Array | string, entropy: Uint8Array,
    auth?: { claims?: JsonObject | null, unixS?: number, layer?: ServerLayer } | null): EndpointOutcome
  /** The Bearer token the endpoint would take (Authorization header only), or null. */
  bearerToken(method: string, target: string, rawHeaders: string[]): string | null
  /** Routes the output of the slot's session to its streams; after any activity of the session. */
  collect(nowMs: number, slot: number, session: Session): void
  /** The next thing to write for `stream`. */
  pollResponse(nowMs: number, stream: number): EndpointPoll
  /** `n` bytes of the last body were written. */
  advance(stream: number, n: number): void
  /** The connection of `stream` went away before its end. */
  detach(stream: number): void
  /** When `handleTimeout` is next due, or null. */
  pollTimeout(): number | null
  /** Time passed: idle sessions expire, keep-alive comments fall due. */
  handleTimeout(nowMs: number): void
}

/** What the HTTP handler reads of a request (Node's `IncomingMessage`, Express's `req`). */
export interface HttpRequest {
  method?: string
  url?: string
  rawHeaders: string[]
  on(event: string, listener: (...args: any[]) => void): unknown
}
/** What the HTTP handler uses of a response (Node's `ServerResponse`, Express's `res`). */
export interface HttpResponse {
  writeHead(status: number, headers?: any): unknown
  write(chunk: any): boolean
  end(chunk?: any): unknown
  flushHeaders(): void
  readonly headersSent: boolean
  on(event: string, listener: (...args: any[]) => void): unknown
  once(event: string, listener: (...args: any[]) => void): unknown
}

/** What `Server.httpHandler()` gives: a `(req, res)` handler for `node:http` or Express. */
export interface HttpHandler {
  (req: HttpRequest, res: HttpResponse): void
  /** The core endpoint it serves. */
  readonly endpoint: Endpoint
  /** Stops its timers and cancels the handlers still running. */
  close(): void
}

// ---- the core's server application layer ----

/**
 * A catalog of definitions with the protocol's field names (JSON members as JavaScript
 * values). `completable` marks the templates and prompt arguments whose values the host
 * completes.
 */
export interface Catalog {
  tools?: JsonObject[]
  resources?: JsonObject[]
  resourceTemplates?: JsonObject[]
  prompts?: JsonObject[]
}

/** Options of `new ServerLayer(...)`. */
export interface ServerLayerOptions {
  /** Definitions per page of a list (default 100). */
  pageSize?: number
  /** Declare `listChanged` (default true). */
  listChanged?: boolean
  /** Declare `resources.subscribe` (default false). */
  subscribe?: boolean
  /** Declare `logging` (default true). */
  logging?: boolean
}

/** A tool result as the layer takes it. */
export interface ToolAnswer {
  content?: JsonObject[]
  structuredContent?: JsonObject
  isError?: boolean
  _meta?: JsonObject
}

/**
 * The core's server application layer over a catalog: it answers the lists (with
 * cursors), checks calls (arguments against `inputSchema`, URIs against templates,
 * required prompt arguments) and shapes the answers for the negotiated revision. A broken
 * definition throws a ConfigError here.
 */
export declare class ServerLayer {
  constructor(catalog?: Catalog, options?: ServerLayerOptions)
  /** The native layer underneath (JSON as text). */
  readonly native: NativeServer
  /** The capabilities that what is registered implies, for the session. */
  get capabilities(): JsonObject
  /** The session's next event through the layer (`call`, `answered`, or the session's own), or null. */
  /** `scopes`: the caller's grant (HTTP with auth): lists hide, calls refuse, the rest. */
  pollEvent(session: Session, scopes?: string[] | null): Event | null
  /**
   * Every event `pollEvent` would give now, in order, or null: one call for a chunk of
   * input. May end early after an `answered` event (the transmit queue is getting full):
   * write out `pollTransmit()` and poll again.
   */
  pollEvents(session: Session, scopes?: string[] | null): Event[] | null
  /** Answers a tool call; a refused result throws ResultError (nothing sent). */
  respondTool(session: Session, id: number, tool: number, result: ToolAnswer): void
  /** Answers a tool call with one text block (`respondTool` with `{content: [{type: 'text', text}]}`). */
  respondToolText(session: Session, id: number, tool: number, text: string): void
  /** Answers a read: `{uri, mimeType?, text | blob}` items. */
  respondRead(session: Session, id: number, contents: JsonObject[]): void
  /** Answers a prompt: `{role, content}` messages (the description is the definition's). */
  respondPrompt(session: Session, id: number, prompt: number, messages: JsonObject[]): void
  /** Answers a completion (at most 100 values are sent). */
  respondCompletion(session: Session, id: number, completion: { values: Iterable<string>, total?: number, hasMore?: boolean }): void
}

// ---- errors ----

/** The base class of the package's errors. */
export declare class PicomcpError extends Error {
  constructor(message: string, kind?: string)
  /** The core's name for what went wrong (`NotInVersion`, `Full`, `InvalidStructured`, ...), when known. */
  kind?: string
}
/** The session configuration is invalid (thrown by `new Session(...)`). */
export declare class ConfigError extends PicomcpError {}
/** A request, notification, log or progress message cannot be sent now. Nothing was queued. */
export declare class SendError extends PicomcpError {}
/** A request cannot be answered that way. Nothing was queued. */
export declare class RespondError extends PicomcpError {}
/** The transmit queue has no room: write out `pollTransmit()` and try again. */
export declare class QueueFull extends PicomcpError {}
/** The server layer refused an answer (`kind`: the core's reason). Nothing was sent; the request is still open. */
export declare class ResultError extends PicomcpError {}

// ---- the stdio server helper ----

/** A JSON Schema (the core validates arguments against it: see docs/DESIGN.md for the keywords). */
export interface JsonSchema {
  type?: string | string[]
  properties?: { [name: string]: JsonSchema }
  required?: string[]
  minimum?: number
  maximum?: number
  additionalProperties?: boolean | JsonSchema
  [keyword: string]: unknown
}

/** Diagnostic levels of the server's stderr (`--log-level`), most severe first. */
export type DiagLevel = 'error' | 'warn' | 'info' | 'debug'

export interface ServerOptions {
  /** Sent to the client in the handshake. */
  instructions?: string
  /** Accepted revisions (default: all five). */
  versions?: ProtocolVersion[]
  /** Longest line in bytes (default 1 MiB; `--max-line`). */
  maxLine?: number
  /** Declare `logging` (default true). */
  logging?: boolean
  inboundSlots?: number
  outboundSlots?: number
  /** stderr diagnostics up to this level (default `warn`; `--log-level`). */
  logLevel?: DiagLevel
  /** Definitions per page of a list (default 100). */
  pageSize?: number
  /** Hide the messages of errors a handler throws (`ToolError` messages are still sent); the stack still goes to stderr. */
  maskErrors?: boolean
  /**
   * Runs before the first request is read; what it returns (or an async generator's first
   * `yield`) is `server.state` and `ctx.state`. A generator's code after the `yield` runs
   * after the last answer is written (the cleanup).
   */
  lifespan?: (server: Server) => unknown
  /**
   * The key (at least 16 bytes) the core seals 2026-07-28 `requestState` with (`ctx.ask`'s
   * `state`) and verifies it by on the retry. Default: 32 random bytes per `Server`;
   * processes behind one load balancer share one.
   */
  stateKey?: Uint8Array
  /** How long a sealed `requestState` stays valid, in ms (default 600000). */
  stateTtlMs?: number
}

/** A readable byte stream, such as `process.stdin`. */
export interface InputStream {
  on(event: string, listener: (...args: any[]) => void): unknown
}
/** A writable byte stream, such as `process.stdout`. */
export interface OutputStream {
  write(chunk: Uint8Array | string, callback?: (error?: Error | null) => void): unknown
  on(event: string, listener: (...args: any[]) => void): unknown
}

/** A whole `tools/call` result (the core shapes it for the revision). */
export interface ToolResult {
  content?: JsonObject[]
  structuredContent?: JsonObject
  isError?: boolean
  _meta?: JsonObject
}
/**
 * A string (one text block), a content block from `text`/`image`/`audio`/`resourceLink`,
 * an array (one block per item), `undefined`/`null` (empty content), a whole result (an
 * object with `content` or `structuredContent`) or any other object (structured content,
 * also sent as JSON text).
 */
export type ToolOutput = string | number | boolean | null | undefined | void | ContentBlock | unknown[] | ToolResult | JsonObject
export type ToolHandler<A = JsonObject> = (args: A, ctx: Context) => ToolOutput | Promise<ToolOutput>

/** A zod schema of either major version (zod itself is an optional peer dependency). */
export type ZodLike = { _zod: { output: unknown } } | { _output: unknown }
/** `{ key: zodSchema, ... }`, as the TypeScript SDK's `McpServer` takes. */
export type ZodShape = { [key: string]: ZodLike }
/** What a zod schema parses to. */
export type ZodOutput<S> = S extends { _zod: { output: infer O } } ? O : S extends { _output: infer O } ? O : unknown
/** The handler's argument type for a schema option: zod's output, else a JSON object. */
export type SchemaArgs<S> = S extends ZodLike ? ZodOutput<S> : S extends ZodShape ? { [K in keyof S]: ZodOutput<S[K]> } : JsonObject
/** A schema option: JSON Schema, a zod schema or a zod raw shape. */
export type SchemaOption = JsonSchema | ZodLike | ZodShape

export interface ToolOptions<S extends SchemaOption = SchemaOption> {
  title?: string
  description?: string
  /**
   * Checked by the core before the handler runs (missing arguments get their `default`);
   * default `{type: 'object'}`. A zod schema is listed as JSON Schema and then parses the
   * checked arguments (the handler's argument type is zod's output).
   */
  inputSchema?: S
  /** Structured content is checked against it by the core (JSON Schema or zod). */
  outputSchema?: SchemaOption
  annotations?: JsonObject
  icons?: JsonObject[]
  execution?: JsonObject
  _meta?: JsonObject
  /** OAuth scopes a caller needs over HTTP with `auth` (unlisted and 403 otherwise). */
  scopes?: string | string[]
}

/** A string (text), a Buffer/Uint8Array (base64 blob), a whole contents array, or an object (its JSON). */
export type ResourceOutput = string | Uint8Array | JsonObject[] | JsonObject
/** `vars`: the template's variables (`{}` for a plain resource), typed as `variables` declares. */
export type ResourceHandler<V = { [name: string]: string }> = (uri: string, ctx: Context, vars: V) => ResourceOutput | Promise<ResourceOutput>
export interface ResourceOptions<V extends SchemaOption = SchemaOption> {
  /**
   * The types of a template's variables (zod, or JSON Schema: an object schema or its `properties` map): numbers and
   * booleans arrive converted; a value that does not fit is "resource not found".
   */
  variables?: V
  /** Default: the uri. */
  name?: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
  annotations?: JsonObject
  icons?: JsonObject[]
  _meta?: JsonObject
  /** OAuth scopes a caller needs over HTTP with `auth`. */
  scopes?: string | string[]
}

export interface PromptArgument {
  name: string
  title?: string
  description?: string
  /** Checked before the handler runs (-32602 when missing). */
  required?: boolean
}
/** An array of messages (a string is a user text message) or an object with `messages`; a string is one user message. */
export type PromptOutput = (JsonObject | string)[] | JsonObject | string
export type PromptHandler = (args: { [name: string]: string }, ctx: Context) => PromptOutput | Promise<PromptOutput>
export interface PromptOptions {
  title?: string
  description?: string
  /** The listed arguments, or a zod raw shape of strings (optional ones are not required). */
  arguments?: PromptArgument[] | ZodShape
  /** OAuth scopes a caller needs over HTTP with `auth`. */
  scopes?: string | string[]
}

/** The values for an argument being typed; at most 100 are sent. */
export type CompletionHandler = (value: string, contextArgs: { [name: string]: string }) => Iterable<string>

/** Questions a server may ask the client with `Context.ask`. */
export type AskMethod = 'sampling/createMessage' | 'elicitation/create' | 'roots/list'

/**
 * An MCP server: register tools, resources and prompts, then `run()` on stdio.
 * Capabilities are derived from what is registered. Both eras are served on one connection.
 */
export declare class Server {
  constructor(name: string, version: string, options?: ServerOptions)
  readonly name: string
  readonly version: string
  maxLine: number
  logging: boolean
  logLevel: DiagLevel
  /** The session of the connection being served (null before `serve`). */
  session: Session | null
  /** What the `lifespan` function gave, while serving. */
  state: unknown
  /** Registers `fn(args, ctx)` as a tool; a wrong definition throws here (ConfigError, TypeError). */
  tool<S extends SchemaOption = JsonSchema>(name: string, opts: ToolOptions<S>, fn: ToolHandler<SchemaArgs<S>>): this
  tool(name: string, fn: ToolHandler): this
  /** Registers `fn(uri, ctx, vars)` as the reader of a resource, or of a template when `uri` has `{variables}`. */
  resource<V extends SchemaOption = never>(uri: string, opts: ResourceOptions<V>, fn: ResourceHandler<[V] extends [never] ? { [name: string]: string } : SchemaArgs<V>>): this
  resource(uri: string, fn: ResourceHandler): this
  /** Registers `fn(args, ctx)` as a prompt. */
  prompt(name: string, opts: PromptOptions, fn: PromptHandler): this
  prompt(name: string, fn: PromptHandler): this
  /** Registers `fn(value, contextArgs)` to complete an argument of a prompt or template (TypeError when unknown). */
  completion(ref: string, argument: string, fn: CompletionHandler): this
  /** Registers `fn(server)` to run once serving starts. */
  onStartup(fn: (server: Server) => void): this
  /** The capabilities derived from what is registered. */
  get capabilities(): JsonObject
  /** Announces a change to whoever asked for it; returns how many notifications were queued. */
  notify(change: ChangeNotification, uri?: string): number
  /** True when the client subscribed to `uri`. */
  isSubscribed(uri: string): boolean
  /** Sends a request to the client and resolves with its result (rejects with McpError). */
  request(method: string, params?: JsonObject, options?: { timeoutMs?: number }): Promise<JsonObject>
  /** A diagnostic line on stderr, when the server's log level lets it through. */
  diag(level: DiagLevel, message: string): void
  /** Serves stdin/stdout until EOF; resolves with the exit status (2 for bad arguments). */
  run(argv?: string[]): Promise<number>
  /** Serves one connection on a readable and a writable stream; resolves with 0 after EOF. */
  serve(input: InputStream, output: OutputStream): Promise<number>
  /**
   * The server over Streamable HTTP: a `(req, res)` handler for `node:http` (or Express,
   * mounted before any body parser, or with the raw body in `req.rawBody`). One per server.
   */
  httpHandler(options?: Omit<EndpointOptions, 'auth'> & { auth?: HttpAuthOptions }): HttpHandler
  /** Serves Streamable HTTP on `host:port` (path `/mcp`) until that server closes; resolves with 0. */
  serveHttp(options?: EndpointOptions & { host?: string, port?: number }): Promise<number>
}

/** What a handler may do about the request it serves. */
/** Options of `ctx.ask`. */
export interface AskOptions {
  /** The key of the question in `inputRequests` (default: `elicitation`, `sampling` or `roots`). */
  key?: string
  /** 2026-07-28: the `requestState` of the `input_required` result (sealed by the core). */
  state?: string
  /** Legacy era: how long to wait for the client's answer (default 60000). */
  timeoutMs?: number
}

/** One question of `ctx.askAll`. */
export interface InputRequest {
  method: AskMethod | string
  params?: JsonObject
}

export declare class Context {
  constructor(server: Server, id: number, method: string, params: JsonObject, call?: Event)
  readonly server: Server
  /** The session's handle of the request. */
  readonly requestId: number
  readonly method: string
  readonly params: JsonObject
  /** The negotiated protocol revision. */
  get version(): ProtocolVersion | null
  /** The verified caller over HTTP with `httpHandler({ auth })`; null otherwise. */
  readonly principal: Principal | null
  /**
   * 2026-07-28: the `requestState` the client sent back with this retry (null on a first
   * try and in the legacy era), verified and unsealed by the core with the server's
   * `stateKey`. A session without a state key passes the client's text: never trust it then.
   */
  readonly requestState: string | null
  /** True when the request is served under 2026-07-28 (questions are `input_required`). */
  get modern(): boolean
  /**
   * The client capabilities, as the core read them (what its capability gate checks, the
   * same as Python's): the request's (2026-07-28) or the session's (legacy).
   */
  get clientCapabilities(): JsonObject
  get controller(): AbortController
  /** Aborts when the client cancels this request. */
  get signal(): AbortSignal
  /** The server's session. */
  get session(): Session
  /** What the server's `lifespan` function gave. */
  get state(): unknown
  /** True once the client cancelled this request. */
  get cancelled(): boolean
  /** True when the client asked for progress on this request. */
  get wantsProgress(): boolean
  /** Reports progress if the client asked for it; returns whether it was sent. */
  progress(progress: number, total?: number, message?: string): boolean
  /** A log message tied to this request, if the client's level lets it through. */
  log(level: LogLevel, data: unknown, logger?: string): boolean
  /** Waits `ms`; rejects with the abort reason when the request is cancelled. */
  sleep(ms: number): Promise<void>
  /**
   * Asks the client and resolves with its answer. Legacy era: a request to the client.
   * 2026-07-28: without an answer under `key` in the retry's `inputResponses`, the handler
   * ends with an `input_required` result asking it (with `state`); the retry runs the
   * handler again and this resolves with the answer.
   */
  ask(method: AskMethod | string, params?: JsonObject, options?: AskOptions): Promise<JsonObject>
  /**
   * Asks several questions at once and resolves with `{key: answer}`. 2026-07-28: once every
   * key is answered in `inputResponses`; else the handler ends with ONE `input_required`
   * result asking the unanswered keys (with `state`). Legacy era: requests to the client.
   */
  askAll<K extends string>(requests: { [key in K]: InputRequest }, options?: { state?: string, timeoutMs?: number }): Promise<{ [key in K]: JsonObject }>
}

/** Throw from a handler to answer with a JSON-RPC error. */
export declare class McpError extends Error {
  constructor(code: number, message: string, data?: unknown)
  code: number
  data: unknown
}

/** Throw from a tool to report a failed call: a result with `isError: true` (no stack on stderr). */
export declare class ToolError extends Error {
  constructor(message: string)
}

/** Throw from a resource reader: the URI names no resource (-32002; -32602 from 2026-07-28). */
export declare class ResourceNotFound extends McpError {
  constructor(uri?: string, message?: string)
  uri: string | undefined
}

/**
 * What `ctx.ask` / `ctx.askAll` throw in 2026-07-28 to end the handler with an
 * `input_required` result (`requests`: `{key: {method, params}}`, `state`). Not a failure:
 * a handler that catches every error must throw it on.
 */
export declare class InputRequired extends Error {
  constructor(requests: { [key: string]: InputRequest }, state?: string | null)
  requests: { [key: string]: InputRequest }
  state: string | null | undefined
}

/** A content block of a tool result. */
export interface ContentBlock {
  type: 'text' | 'image' | 'audio' | 'resource_link' | 'resource'
  [key: string]: unknown
}
/** A text content block. */
export declare function text(text: string): ContentBlock
/** An image content block: bytes or base64 text (default `image/png`). */
export declare function image(data: Uint8Array | string, mimeType?: string): ContentBlock
/** An audio content block: bytes or base64 text (default `audio/wav`). */
export declare function audio(data: Uint8Array | string, mimeType?: string): ContentBlock
/** A link to a resource (2025-06-18 on); `name` defaults to the uri. */
export declare function resourceLink(uri: string, opts?: { name?: string, title?: string, description?: string, mimeType?: string, size?: number }): ContentBlock
/** An embedded resource: text, or bytes as a blob. */
export declare function embeddedResource(uri: string, body: string | Uint8Array, mimeType?: string): ContentBlock
