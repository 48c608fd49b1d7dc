'use strict'
/**
 * What handlers return, as the results the core's layer takes, and the content helpers.
 * The core shapes every result for the negotiated revision (it drops what the revision
 * lacks and checks structured content against the tool's `outputSchema`); this file only
 * turns JavaScript values into the protocol's fields.
 */

/** Marks a content block made by a helper below. */
const BLOCK = Symbol('picomcp.contentBlock')
const BLOCK_TYPES = new Set(['text', 'image', 'audio', 'resource_link', 'resource'])

function block (b) {
  Object.defineProperty(b, BLOCK, { value: true })
  return b
}

const base64 = (data) => (typeof data === 'string' ? data : Buffer.from(data).toString('base64'))

/** A text content block. */
const text = (t) => block({ type: 'text', text: String(t) })
/** An image content block: `data` is a Buffer/Uint8Array or base64 text. */
const image = (data, mimeType = 'image/png') => block({ type: 'image', data: base64(data), mimeType })
/** An audio content block: `data` is a Buffer/Uint8Array or base64 text. */
const audio = (data, mimeType = 'audio/wav') => block({ type: 'audio', data: base64(data), mimeType })
/** A link to a resource (2025-06-18 on): `opts` name (default: the uri), title, description, mimeType, size. */
const resourceLink = (uri, opts = {}) => block({ type: 'resource_link', uri, name: opts.name ?? uri, ...opts })
/** An embedded resource: `body` a string (text) or Buffer/Uint8Array (blob). */
const embeddedResource = (uri, body, mimeType) => {
  const resource = { uri }
  if (mimeType) resource.mimeType = mimeType
  if (body instanceof Uint8Array) resource.blob = base64(body)
  else resource.text = String(body)
  return block({ type: 'resource', resource })
}

const isBlock = (v) => v !== null && typeof v === 'object' && (v[BLOCK] === true || (typeof v.type === 'string' && BLOCK_TYPES.has(v.type)))
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array)

/** One item of a returned array as a content block. */
function toBlock (v) {
  if (isBlock(v)) return v
  if (typeof v === 'string') return { type: 'text', text: v }
  if (v === undefined) return { type: 'text', text: 'null' }
  return { type: 'text', text: JSON.stringify(v) }
}

/**
 * A tool's return value as a result:
 * - a string (or number, boolean) is one text block;
 * - a content block made by `text`/`image`/`audio`/`resourceLink`/`embeddedResource` is that block;
 * - an array is one block per item (strings become text blocks, objects their JSON text);
 * - `undefined`/`null` is empty content;
 * - an object with `content` or `structuredContent` is a whole result;
 * - any other object is structured content (the core checks it against the `outputSchema`
 *   and also writes it as a JSON text block).
 */
function toolResult (out) {
  if (out === undefined || out === null) return { content: [] }
  if (Array.isArray(out)) return { content: out.map(toBlock) }
  if (isBlock(out) && out[BLOCK] === true) return { content: [out] }
  if (isPlainObject(out)) {
    if (Array.isArray(out.content) || 'structuredContent' in out) return out
    return { structuredContent: out }
  }
  return { content: [{ type: 'text', text: String(out) }] }
}

/** A resource reader's return value as contents: string (text), bytes (blob) or a contents array. */
function contents (uri, mime, body) {
  if (Array.isArray(body)) return body
  const item = { uri }
  if (mime) item.mimeType = mime
  if (body instanceof Uint8Array) item.blob = Buffer.from(body).toString('base64')
  else if (body === undefined || body === null) item.text = ''
  else if (typeof body === 'object') item.text = JSON.stringify(body)
  else item.text = String(body)
  return [item]
}

/** A prompt's return value as messages: an array (strings become user text messages) or `{messages}`; a string is one user message. */
function messages (out) {
  const list = Array.isArray(out) ? out : typeof out === 'string' ? [out] : out && out.messages
  if (!Array.isArray(list)) return list
  return list.map((m) => (typeof m === 'string' ? { role: 'user', content: { type: 'text', text: m } } : m))
}

module.exports = { text, image, audio, resourceLink, embeddedResource, toolResult, contents, messages }
