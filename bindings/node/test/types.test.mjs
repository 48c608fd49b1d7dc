// Drift checks: lib/index.d.ts (hand-written) and native.d.ts (generated) against what the
// modules actually export. The .d.ts files are read with simple regexes: declarations are
// expected one member per line, as they are written.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const INDEX_DTS = join(ROOT, 'lib', 'index.d.ts')
const NATIVE_DTS = join(ROOT, 'native.d.ts')
const runtime = require('../lib/index.js')
const native = require('../native.js')

/** The declaration text without comments. */
function source (path) {
  return readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
}

const VALUE_KINDS = new Set(['class', 'function', 'const', 'let', 'var', 'enum'])

/** Top-level exports: {values: Set of value names, types: Set of type-only names}. */
function exportsOf (text) {
  const values = new Set()
  const types = new Set()
  const re = /^export\s+(?:declare\s+)?(?:abstract\s+)?(class|function|const|let|var|enum|interface|type|namespace)\s+([A-Za-z_$][\w$]*)/gm
  for (const m of text.matchAll(re)) (VALUE_KINDS.has(m[1]) ? values : types).add(m[2])
  for (const m of text.matchAll(/^export\s+(type\s+)?\{([^}]*)\}/gm)) {
    for (const part of m[2].split(',')) {
      const name = part.trim().split(/\s+as\s+/).pop().trim()
      if (name) (m[1] ? types : values).add(name)
    }
  }
  return { values, types }
}

/** The body of `class name` (between its braces), or null. */
function classBody (text, name) {
  const m = new RegExp(`^export\\s+(?:declare\\s+)?class\\s+${name}\\b[^{]*\\{`, 'm').exec(text)
  if (!m) return null
  let depth = 1
  const start = m.index + m[0].length
  for (let i = start; i < text.length; i++) {
    if (text[i] === '{') depth++
    else if (text[i] === '}' && --depth === 0) return text.slice(start, i)
  }
  throw new Error(`unbalanced braces in class ${name}`)
}

/** `extends X` of `class name`, or null. */
function superclassOf (text, name) {
  const m = new RegExp(`^export\\s+(?:declare\\s+)?class\\s+${name}\\s+extends\\s+([\\w$.]+)`, 'm').exec(text)
  return m ? m[1] : null
}

/**
 * The members declared in a class body (at its top nesting level), as maps from name to
 * kind: `members` ('method' | 'getter' | 'setter' | 'property') and `statics`.
 */
function membersOf (body) {
  const members = new Map()
  const statics = new Map()
  let depth = 0
  for (const line of body.split('\n')) {
    if (depth === 0) {
      const m = /^\s*((?:(?:public|static|readonly|declare|abstract)\s+)*)(?:(get|set)\s+)?([A-Za-z_$][\w$]*)\s*\??\s*([(<:])/.exec(line)
      if (m && !/\b(private|protected)\b/.test(m[1])) {
        const kind = m[2] === 'get' ? 'getter' : m[2] === 'set' ? 'setter' : m[4] === ':' ? 'property' : 'method'
        const into = /\bstatic\b/.test(m[1]) ? statics : members
        // A getter and setter pair is an accessor; an overload repeats the method.
        if (!(into.get(m[3]) === 'getter' && kind === 'setter')) into.set(m[3], kind)
      }
    }
    for (const c of line) {
      if (c === '{' || c === '(') depth++
      else if (c === '}' || c === ')') depth--
    }
  }
  return { members, statics }
}

/** Public methods and accessors of a runtime prototype (or constructor, for statics). */
function runtimeMembers (obj, skip) {
  const out = new Map()
  for (const name of Object.getOwnPropertyNames(obj)) {
    if (skip.has(name) || name.startsWith('_')) continue
    const d = Object.getOwnPropertyDescriptor(obj, name)
    if (d.get) out.set(name, 'getter')
    else if (d.set) out.set(name, 'setter')
    else if (typeof d.value === 'function') out.set(name, 'method')
    else out.set(name, 'property')
  }
  return out
}

const PROTO_SKIP = new Set(['constructor'])
const STATIC_SKIP = new Set(['length', 'name', 'prototype', 'arguments', 'caller'])

const sorted = (xs) => [...xs].sort()
const callable = (map) => new Map([...map].filter(([, k]) => k !== 'property'))

/** Compares a runtime class with its declaration; returns the declared members. */
function checkClass (text, file, name, cls) {
  const body = classBody(text, name)
  assert.ok(body !== null, `${file} declares no class ${name}`)
  const { members, statics } = membersOf(body)
  const declared = callable(members)
  const actual = runtimeMembers(cls.prototype, PROTO_SKIP)
  const missing = sorted([...actual.keys()].filter((k) => !declared.has(k)))
  const extra = sorted([...declared.keys()].filter((k) => !actual.has(k) && k !== 'constructor'))
  assert.deepEqual(missing, [], `${name}: on the runtime prototype but not declared in ${file}`)
  assert.deepEqual(extra, [], `${name}: declared in ${file} but not on the runtime prototype`)
  for (const [k, kind] of actual) assert.equal(declared.get(k), kind, `${name}.${k} is a ${kind} at runtime`)
  const actualStatics = runtimeMembers(cls, STATIC_SKIP)
  assert.deepEqual(sorted(callable(statics).keys()), sorted(actualStatics.keys()), `${name}: static members differ`)
  return members
}

const indexText = source(INDEX_DTS)
const nativeText = source(NATIVE_DTS)

test('index.d.ts declares every runtime export, and nothing more', () => {
  const { values, types } = exportsOf(indexText)
  const names = Object.keys(runtime)
  assert.deepEqual(sorted(names.filter((n) => !values.has(n))), [], 'exported by lib/index.js but not declared as a value in index.d.ts')
  assert.deepEqual(sorted([...values].filter((n) => !names.includes(n))), [], 'declared in index.d.ts but not exported by lib/index.js')
  for (const n of types) assert.ok(!names.includes(n), `${n} is a runtime value but declared as a type only`)
  // Each value is declared as the right kind.
  for (const n of names) {
    const m = new RegExp(`^export\\s+(?:declare\\s+)?(class|function|const|let|var)\\s+${n}\\b`, 'm').exec(indexText)
    assert.ok(m, `${n} is not declared`)
    const v = runtime[n]
    if (m[1] === 'class') assert.ok(typeof v === 'function' && /^class\b/.test(Function.prototype.toString.call(v)), `${n} is not a class at runtime`)
    else if (m[1] === 'function') assert.equal(typeof v, 'function', `${n} is not a function at runtime`)
    else assert.notEqual(typeof v, 'function', `${n} is a function at runtime, declared as a ${m[1]}`)
  }
})

test('Session, ServerLayer, Endpoint, Server and Context: the declared methods and getters are the runtime ones', () => {
  for (const name of ['Session', 'ServerLayer', 'Endpoint', 'Server', 'Context']) checkClass(indexText, 'index.d.ts', name, runtime[name])
})

test('error classes: declared with the runtime superclass and no extra methods', () => {
  for (const name of ['PicomcpError', 'ConfigError', 'SendError', 'RespondError', 'QueueFull', 'ResultError', 'McpError', 'ToolError']) {
    const cls = runtime[name]
    const sup = superclassOf(indexText, name)
    assert.ok(sup, `${name} declares no superclass`)
    const expected = sup === 'Error' ? Error : runtime[sup]
    assert.equal(Object.getPrototypeOf(cls), expected, `${name} extends ${sup} in index.d.ts but not at runtime`)
    checkClass(indexText, 'index.d.ts', name, cls)
  }
})

test('declared instance properties exist on instances', () => {
  const session = new runtime.Session('client', 'c', '1')
  const server = new runtime.Server('s', '1')
  const layer = new runtime.ServerLayer({})
  const context = new runtime.Context({ session: { version: '2025-11-25' } }, 1, 'tools/call', {})
  const instances = {
    Session: session,
    Server: server,
    ServerLayer: layer,
    Context: context,
    McpError: new runtime.McpError(-1, 'x', {}),
    ToolError: new runtime.ToolError('x')
  }
  for (const [name, obj] of Object.entries(instances)) {
    const { members } = membersOf(classBody(indexText, name))
    for (const [k, kind] of members) {
      if (kind === 'property') assert.ok(k in obj, `${name}.${k} is declared but instances have no such property`)
    }
  }
})

test('ProtocolVersion lists exactly PROTOCOL_VERSIONS', () => {
  const m = /^export\s+type\s+ProtocolVersion\s*=([^\n]*(?:\n\s*\|[^\n]*)*)/m.exec(indexText)
  assert.ok(m, 'index.d.ts declares no ProtocolVersion')
  const declared = [...m[1].matchAll(/'([^']*)'/g)].map((x) => x[1])
  assert.deepEqual(declared, runtime.PROTOCOL_VERSIONS)
})

test('Feature lists exactly FEATURES, in table order', () => {
  const m = /^export\s+type\s+Feature\s*=([^\n]*(?:\n\s*\|[^\n]*)*)/m.exec(indexText)
  assert.ok(m, 'index.d.ts declares no Feature')
  const declared = [...m[1].matchAll(/'([^']*)'/g)].map((x) => x[1])
  assert.deepEqual(declared, runtime.FEATURES)
})

test('native.d.ts declares every member of the runtime NativeSession and NativeServer and every native export', () => {
  checkClass(nativeText, 'native.d.ts', 'NativeSession', native.NativeSession)
  checkClass(nativeText, 'native.d.ts', 'NativeServer', native.NativeServer)
  const { values } = exportsOf(nativeText)
  assert.deepEqual(sorted(values), sorted(Object.keys(native)))
})

test('the regex parser sees what it should (self-check)', () => {
  const { members, statics } = membersOf(`
    constructor(a: string)
    readonly a: number
    b?: string
    get c(): number
    set c(v: number)
    d(x: { y: number }): void
    e<T>(x: T): T
    static f(): void
    private g(): void
    h(
      x: number
    ): void
  `)
  assert.deepEqual([...members], [['constructor', 'method'], ['a', 'property'], ['b', 'property'], ['c', 'getter'], ['d', 'method'], ['e', 'method'], ['h', 'method']])
  assert.deepEqual([...statics], [['f', 'method']])
  const { values, types } = exportsOf('export declare class A {}\nexport function b(): void\nexport declare const c: 1\nexport interface D {}\nexport type E = 1\nexport { f, g as h }\n')
  assert.deepEqual(sorted(values), ['A', 'b', 'c', 'f', 'h'])
  assert.deepEqual(sorted(types), ['D', 'E'])
})

// The TypeScript compiler comes with the napi-rs CLI (a dev dependency); without it the
// declarations are still checked above, only not compiled.
let ts = null
try { ts = require('typescript') } catch {}

test('index.d.ts compiles and types a typical use (TypeScript, when installed)', { skip: ts ? false : 'typescript is not installed' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'picomcp-types-'))
  try {
    // No @types/node here: a minimal Buffer stands in for it.
    writeFileSync(join(dir, 'node-shim.d.ts'), 'declare class Buffer extends Uint8Array { toString(encoding?: string): string }\n')
    writeFileSync(join(dir, 'use.ts'), `
import { Session, Server, ServerLayer, Context, McpError, ToolError, ResultError, PROTOCOL_VERSIONS, version,
  PicomcpError, QueueFull, type Event, type RequestInfo } from ${JSON.stringify(join(ROOT, 'lib', 'index'))}
const s = new Session('client', 'c', '1', {}, { versions: ['2025-11-25'], nowMs: 0, requestTimeoutMs: 10 })
const id: number = s.sendRequest(0, 'tools/list', {}, { timeoutMs: 5, progress: true })
const ev: Event | null = s.pollEvent()
if (ev !== null && ev.kind === 'response' && ev.id === id) console.log(ev.result?.tools)
const out: Buffer = s.pollTransmit()
const taken: number = s.handleBytes(0, out) + s.handleBytes(0, 'text')
const due: number | null = s.pollTimeout()
const info: RequestInfo | null = s.requestInfo(1)
const era: 'opening' | 'legacy' | 'modern' = s.era
s.respond(1, { tools: [] }); s.respond(1, '{}'); s.respondError(1, -32000, 'x', { a: 1 })
const sent: boolean = s.log('warning', { a: 1 }, 'logger', 1)
const app = new Server('x', '1', { logLevel: 'error', maxLine: 4096 })
app.tool('echo', { inputSchema: { type: 'object', required: ['text'] } }, (args, ctx: Context) => String(args.text))
  .tool('slow', {}, async (args, ctx) => { await ctx.sleep(1); ctx.progress(1, 2, 'half'); return [{ type: 'text', text: 'x' }] })
  .resource('a://{id}', { mimeType: 'text/plain' }, async (uri, ctx, vars) => vars.id)
  .prompt('p', { arguments: [{ name: 'who', required: true }] }, (args) => [{ role: 'user', content: { type: 'text', text: args.who } }])
  .completion('p', 'who', (value) => ['a', 'b'])
  .tool('asks', {}, async (args, ctx) => {
    const who = await ctx.ask('elicitation/create', { message: 'Who?' }, { key: 'who', state: 'one' })
    const both = await ctx.askAll({ a: { method: 'roots/list' }, b: { method: 'sampling/createMessage', params: {} } }, { state: 'two' })
    const st: string | null = ctx.requestState
    const declared: object = ctx.clientCapabilities
    return [String(who.action), String(both.a.roots), String(both.b.model), String(st), String(ctx.modern), String(declared)].join()
  })
new Server('k', '1', { stateKey: new Uint8Array(32), stateTtlMs: 1000 })
const caps: object = app.capabilities
const served: Promise<number> = app.serve({ on () { return this } }, { write () { return true }, on () { return this } })
const err: PicomcpError = new QueueFull('x')
const m = new McpError(-1, 'x', { a: 1 }); const code: number = m.code
const t: Error = new ToolError('x')
const layer = new ServerLayer({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }, { pageSize: 10 })
const call: Event | null = layer.pollEvent(s)
if (call !== null && call.kind === 'call' && call.call === 'tool') layer.respondTool(s, call.id ?? 0, call.index ?? 0, { content: [{ type: 'text', text: 'x' }] })
layer.respondCompletion(s, 1, { values: ['a'], total: 1 })
const refused: string | undefined = new ResultError('x', 'InvalidStructured').kind
const v: string = PROTOCOL_VERSIONS[0] + version
`)
    const program = ts.createProgram([join(dir, 'node-shim.d.ts'), join(dir, 'use.ts'), INDEX_DTS], {
      noEmit: true,
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: []
    })
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : ''
      return where + ts.flattenDiagnosticMessageText(d.messageText, '\n')
    })
    assert.deepEqual(problems, [])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('index.d.ts infers a tool handler\'s arguments from a zod schema (v4 and v3), and template variables', { skip: ts ? false : 'typescript is not installed' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'picomcp-types-zod-'))
  try {
    writeFileSync(join(dir, 'node-shim.d.ts'), 'declare class Buffer extends Uint8Array { toString(encoding?: string): string }\n')
    writeFileSync(join(dir, 'use.ts'), `
import { Server, ResourceNotFound, image } from ${JSON.stringify(join(ROOT, 'lib', 'index'))}
import { z } from ${JSON.stringify(join(ROOT, 'node_modules', 'zod', 'index.js'))}
import { z as z3 } from ${JSON.stringify(join(ROOT, 'node_modules', 'zod', 'v3', 'index.js'))}
const app = new Server('x', '1')
app.tool('shape', { inputSchema: { title: z.string(), limit: z.number().default(10) } }, ({ title, limit }) => {
  const t: string = title
  const n: number = limit
  // @ts-expect-error: title is a string
  const wrong: number = title
  return { t, n, wrong }
})
app.tool('object', { inputSchema: z.object({ tags: z.array(z.string()) }) }, (args, ctx) => args.tags.map((s) => s.toUpperCase()))
app.tool('v3', { inputSchema: { n: z3.number() } }, ({ n }) => n.toFixed(1))
app.tool('json', { inputSchema: { type: 'object', properties: { a: { type: 'string' } } } }, (args) => String(args.a))
app.tool('bare', () => undefined)
app.tool('img', {}, () => image('AAAA', 'image/png'))
app.resource('note://{id}', { variables: { id: z.number().int() } }, (uri, ctx, { id }) => {
  const n: number = id
  if (n > 3) throw new ResourceNotFound(uri)
  return 'x'
})
app.resource('plain://{id}', {}, (uri, ctx, vars) => vars.id.toUpperCase())
app.prompt('p', { arguments: { topic: z.string() } }, (args) => 'about ' + args.topic)
`)
    const program = ts.createProgram([join(dir, 'node-shim.d.ts'), join(dir, 'use.ts'), INDEX_DTS], {
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: []
    })
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : ''
      return where + ts.flattenDiagnosticMessageText(d.messageText, '\n')
    })
    assert.deepEqual(problems, [])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
