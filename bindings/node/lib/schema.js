'use strict'
/**
 * Schemas given to `Server.tool` and `Server.resource`: plain JSON Schema, a zod schema
 * (v3 or v4; zod is an optional peer dependency, never loaded here) or a zod "raw shape"
 * (`{ title: z.string() }`, as the TypeScript SDK's `McpServer` takes).
 *
 * Only *describes*: the core validates every call against the JSON Schema made here before
 * a handler runs. zod then parses the checked arguments, for what JSON Schema cannot say
 * (refinements, transforms, defaults computed by zod).
 *
 * zod to JSON Schema:
 * - zod v4 (and any Standard JSON Schema library): `schema['~standard'].jsonSchema`, else
 *   `schema.toJSONSchema()`;
 * - zod v3: `zod-to-json-schema` when the application has it installed, else the small
 *   converter below (the common types; anything else is a TypeError at registration that
 *   names the type).
 */

/** True for a zod schema of either major version (or any Standard Schema). */
function isZod (s) {
  return s !== null && typeof s === 'object' && (('_zod' in s) || ('_def' in s && typeof s.safeParse === 'function') || ('~standard' in s))
}

/** True for `{ key: zodSchema, ... }` with at least one key: a zod raw shape. */
function isShape (s) {
  if (s === null || typeof s !== 'object' || Array.isArray(s) || isZod(s)) return false
  const values = Object.values(s)
  return values.length > 0 && values.every(isZod)
}

/** A zod v3 schema as JSON Schema (the common types). `where` names it in errors. */
function fromZod3 (s, where) {
  const d = s._def
  const out = convert3(d, where)
  if (d.description !== undefined && out.description === undefined) out.description = d.description
  return out
}

function convert3 (d, where) {
  const checks = d.checks || []
  switch (d.typeName) {
    case 'ZodString': {
      const o = { type: 'string' }
      for (const c of checks) {
        if (c.kind === 'min') o.minLength = c.value
        else if (c.kind === 'max') o.maxLength = c.value
        else if (c.kind === 'length') o.minLength = o.maxLength = c.value
        else if (c.kind === 'regex') o.pattern = c.regex.source
        else if (c.kind === 'email') o.format = 'email'
        else if (c.kind === 'url') o.format = 'uri'
        else if (c.kind === 'uuid') o.format = 'uuid'
        else if (c.kind === 'datetime') o.format = 'date-time'
      }
      return o
    }
    case 'ZodNumber': {
      const o = { type: checks.some((c) => c.kind === 'int') ? 'integer' : 'number' }
      for (const c of checks) {
        if (c.kind === 'min') o[c.inclusive ? 'minimum' : 'exclusiveMinimum'] = c.value
        else if (c.kind === 'max') o[c.inclusive ? 'maximum' : 'exclusiveMaximum'] = c.value
        else if (c.kind === 'multipleOf') o.multipleOf = c.value
      }
      return o
    }
    case 'ZodBigInt': return { type: 'integer' }
    case 'ZodBoolean': return { type: 'boolean' }
    case 'ZodNull': return { type: 'null' }
    case 'ZodAny': case 'ZodUnknown': return {}
    case 'ZodLiteral': return { const: d.value }
    case 'ZodEnum': return { type: 'string', enum: [...d.values] }
    case 'ZodNativeEnum': {
      const values = Object.entries(d.values).filter(([k]) => typeof d.values[d.values[k]] !== 'number').map(([, v]) => v)
      return { enum: values }
    }
    case 'ZodArray': {
      const o = { type: 'array', items: fromZod3(d.type, `${where}[]`) }
      if (d.minLength) o.minItems = d.minLength.value
      if (d.maxLength) o.maxItems = d.maxLength.value
      if (d.exactLength) { o.minItems = d.exactLength.value; o.maxItems = d.exactLength.value }
      return o
    }
    case 'ZodTuple': return { type: 'array', prefixItems: d.items.map((x, i) => fromZod3(x, `${where}[${i}]`)), minItems: d.items.length, ...(d.rest ? {} : { maxItems: d.items.length }) }
    case 'ZodObject': {
      const shape = typeof d.shape === 'function' ? d.shape() : d.shape
      const o = objectOf(shape, (v, k) => fromZod3(v, `${where}.${k}`), (v) => v.isOptional())
      if (d.unknownKeys === 'strict') o.additionalProperties = false
      else if (d.catchall && d.catchall._def.typeName !== 'ZodNever') o.additionalProperties = fromZod3(d.catchall, `${where}.*`)
      return o
    }
    case 'ZodRecord': return { type: 'object', additionalProperties: fromZod3(d.valueType, `${where}.*`) }
    case 'ZodUnion': case 'ZodDiscriminatedUnion': {
      const options = Array.isArray(d.options) ? d.options : [...d.options.values()]
      return { anyOf: options.map((x, i) => fromZod3(x, `${where}|${i}`)) }
    }
    case 'ZodIntersection': return { allOf: [fromZod3(d.left, where), fromZod3(d.right, where)] }
    case 'ZodOptional': return fromZod3(d.innerType, where)
    case 'ZodNullable': return { anyOf: [fromZod3(d.innerType, where), { type: 'null' }] }
    case 'ZodDefault': return { ...fromZod3(d.innerType, where), default: d.defaultValue() }
    case 'ZodEffects': return fromZod3(d.schema, where)
    case 'ZodCatch': case 'ZodReadonly': case 'ZodBranded': return fromZod3(d.innerType || d.type, where)
    case 'ZodPipeline': return fromZod3(d.in, where)
    case 'ZodLazy': return fromZod3(d.getter(), where)
    default:
      throw new TypeError(`${where}: the zod type ${d.typeName} has no JSON Schema here; ` +
        'use zod v4, install zod-to-json-schema, or give JSON Schema')
  }
}

function objectOf (shape, convert, isOptional) {
  const properties = {}
  const required = []
  for (const [k, v] of Object.entries(shape)) {
    properties[k] = convert(v, k)
    if (!isOptional(v)) required.push(k)
  }
  const o = { type: 'object', properties }
  if (required.length) o.required = required
  return o
}

/** `zod-to-json-schema` from the application, if installed (zod v3 only). */
let zodToJsonSchema
function external () {
  if (zodToJsonSchema === undefined) {
    zodToJsonSchema = null
    const { createRequire } = require('node:module')
    const from = [require, process.argv[1] && createRequire(require('node:path').resolve(process.argv[1]))]
    for (const r of from) {
      try { if (r) { zodToJsonSchema = r('zod-to-json-schema').zodToJsonSchema; break } } catch {}
    }
  }
  return zodToJsonSchema
}

/** One zod schema (either version) as JSON Schema; `io` is 'input' or 'output'. */
function fromZod (s, where, io) {
  let out
  const std = s['~standard']
  if (std && std.jsonSchema && typeof std.jsonSchema[io] === 'function') {
    out = std.jsonSchema[io]({ target: 'draft-2020-12' })
  } else if (typeof s.toJSONSchema === 'function') {
    out = s.toJSONSchema({ io })
  } else if (s._def && s._def.typeName) {
    const ext = external()
    out = ext ? ext(s, { target: 'jsonSchema2019-09', $refStrategy: 'none' }) : fromZod3(s, where)
  } else {
    throw new TypeError(`${where}: a schema library without JSON Schema output; give JSON Schema`)
  }
  out = { ...out }
  delete out.$schema
  return tidy(out)
}

/** Drops the safe-integer bounds zod v4 writes on every `int()` (noise in every listing). */
function tidy (s) {
  if (Array.isArray(s)) return s.map(tidy)
  if (s === null || typeof s !== 'object') return s
  const out = {}
  for (const [k, v] of Object.entries(s)) {
    if ((k === 'minimum' && v === -Number.MAX_SAFE_INTEGER) || (k === 'maximum' && v === Number.MAX_SAFE_INTEGER)) continue
    out[k] = tidy(v)
  }
  return out
}

/**
 * What a definition's schema option becomes: `{ json, parse }` where `json` is the JSON
 * Schema the core checks and lists, and `parse(value)` (or null) runs zod on the checked
 * value, returning `{ ok, value, message }`.
 */
function describe (schema, where, io = 'input') {
  if (schema === undefined || schema === null) return { json: undefined, parse: null }
  if (typeof schema !== 'object' || Array.isArray(schema)) throw new TypeError(`${where} must be a JSON Schema object or a zod schema`)
  // `{}`: an empty raw shape (no arguments), as the TypeScript SDK reads it.
  if (Object.keys(schema).length === 0 && Object.getPrototypeOf(schema) === Object.prototype) return { json: { type: 'object', properties: {} }, parse: null }
  if (isShape(schema)) {
    const json = objectOf(schema, (v, k) => fromZod(v, `${where}.${k}`, io), (v) => optional(v))
    return { json, parse: shapeParser(schema) }
  }
  if (isZod(schema)) {
    return { json: fromZod(schema, where, io), parse: (value) => result(schema.safeParse(value)) }
  }
  return { json: schema, parse: null }
}

/** Whether a zod schema accepts `undefined` (an optional property). */
function optional (s) {
  if (typeof s.isOptional === 'function') return s.isOptional()
  return s.safeParse(undefined).success
}

function result (r) {
  if (r.success) return { ok: true, value: r.data }
  const issues = r.error && r.error.issues ? r.error.issues : []
  const message = issues.length
    ? issues.map((i) => (i.path && i.path.length ? `${i.path.join('.')}: ` : '') + i.message).join('; ')
    : String(r.error && r.error.message)
  return { ok: false, message }
}

/**
 * The parser of a raw shape: each member's schema on its value (the keys listed once, at
 * registration). The value comes back as it is when zod changed nothing (the common case:
 * no copy per call), else a copy with what zod made of the changed members.
 */
function shapeParser (shape) {
  const keys = Object.keys(shape)
  const schemas = keys.map((k) => shape[k])
  return (value) => {
    let out = null
    let problems = null
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]
      const r = schemas[i].safeParse(value[k])
      if (!r.success) {
        (problems || (problems = [])).push(`${k}: ${result(r).message}`)
      } else if (r.data !== value[k] && (r.data !== undefined || k in value)) {
        if (out === null) out = { ...value }
        out[k] = r.data
      }
    }
    return problems ? { ok: false, message: problems.join('; ') } : { ok: true, value: out ?? value }
  }
}

/**
 * Template variables, matched by the core (still percent-encoded), as the types their
 * schema gives: `integer`/`number` become numbers, `boolean` true/false, the rest strings
 * (decoded). `null` when a value does not fit (the URI names no resource).
 */
function typedVars (vars, schema) {
  const out = {}
  // An object schema's `properties`, or (JSON Schema given as a map) the map itself.
  const json = (schema && schema.json) || {}
  const props = json.properties || (json.type === undefined ? json : {})
  for (const [k, raw] of Object.entries(vars)) {
    let v
    try { v = decodeURIComponent(raw) } catch { return null }
    const type = props[k] && props[k].type
    if (type === 'integer' || type === 'number') {
      if (!/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(v)) return null
      v = Number(v)
      if (!Number.isFinite(v) || (type === 'integer' && !Number.isInteger(v))) return null
    } else if (type === 'boolean') {
      if (v !== 'true' && v !== 'false') return null
      v = v === 'true'
    }
    out[k] = v
  }
  if (schema && schema.parse) {
    const r = schema.parse(out)
    return r.ok ? r.value : null
  }
  return out
}

module.exports = { describe, typedVars, isZod, isShape }
