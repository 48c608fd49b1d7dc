// The Server helper as a user meets it (issue 13): registration mistakes throw at
// registration, return values and thrown errors become results as in Python, zod schemas
// (v3 and v4), typed template variables, the lifespan, stdout kept for the protocol, both
// module systems, and the package installed from an `npm pack` tarball.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esm from 'picomcp' // the package's own name: its `exports` map, `import` condition

const require = createRequire(import.meta.url)
const picomcp = require('picomcp') // the `require` condition
const { Server, ConfigError, ToolError, ResourceNotFound, image, text } = picomcp
const { toolResult } = require('../lib/results.js')
const { describe: describeSchema } = require('../lib/schema.js')
const { z } = require('zod')
const z3 = require('zod/v3').z

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const T = { timeout: 60_000 }

/** Runs `source` (an ES module serving stdio) with `lines` on stdin: {messages, stdout, stderr, status}. */
function runServer (source, lines) {
  const dir = mkdtempSync(join(tmpdir(), 'picomcp-helper-'))
  try {
    const file = join(dir, 'server.mjs')
    writeFileSync(file, source.replaceAll('PICOMCP', JSON.stringify(join(ROOT, 'lib', 'index.mjs'))))
    const r = spawnSync(process.execPath, [file], {
      input: lines.map((l) => JSON.stringify(l) + '\n').join(''), encoding: 'utf8', timeout: 30_000
    })
    // Every line of stdout must be a protocol message (tests that print outside run() say which lines are not).
    const messages = r.stdout.split('\n').filter((l) => l && !/^(before|after) serving/.test(l)).map((l) => JSON.parse(l))
    return { messages, byId: Object.fromEntries(messages.filter((m) => 'id' in m).map((m) => [m.id, m])), stdout: r.stdout, stderr: r.stderr, status: r.status }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
const init = (version = '2025-11-25') => [
  { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '0' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' }
]
const call = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })

describe('both module systems', () => {
  test('import and require give the same objects; the ESM entry exports every name', () => {
    const names = Object.keys(picomcp).sort()
    assert.deepEqual(Object.keys(esm).filter((k) => k !== 'default').sort(), names)
    for (const k of names) assert.equal(esm[k], picomcp[k], k)
    assert.equal(esm.default, picomcp)
    assert.equal(typeof esm.Server, 'function')
    assert.equal(typeof esm.Session, 'function')
  })
})

describe('registration mistakes throw at registration', () => {
  const app = new Server('s', '1')
  test('a handler that is not a function, and missing options', () => {
    assert.throws(() => app.tool('t', 'x'), { name: 'TypeError', message: 'tool "t": the handler must be a function, not string' })
    assert.throws(() => app.tool('t', {}), { name: 'TypeError', message: 'tool "t": the handler must be a function, not undefined' })
    assert.throws(() => app.tool('t', { description: 'x' }, {}), { name: 'TypeError', message: 'tool "t": the handler must be a function, not object' })
    assert.throws(() => app.tool('', () => 'x'), { message: 'tool "": the name must be a non-empty string' })
    assert.throws(() => app.resource('test://a', {}), { message: 'resource "test://a": the handler must be a function, not undefined' })
    assert.throws(() => app.prompt('p', null, () => []), { message: 'prompt "p": the options must be an object, not null' })
  })
  test('definitions the core refuses name the definition', () => {
    assert.throws(() => app.tool('t', { inputSchema: { type: 'object', properties: { a: { type: 'strin' } } } }, () => 'x'), (e) =>
      e instanceof ConfigError && e.message.startsWith('tool "t": inputSchema: invalid schema: schema /properties/a/type'))
    assert.throws(() => app.resource('test://{a}{b}', {}, () => 'x'), (e) =>
      e instanceof ConfigError && e.message.startsWith('resource template "test://{a}{b}": uriTemplate: invalid URI template'))
    assert.throws(() => app.tool('t', { annotations: 'x' }, () => 'x'), /tool "t": annotations/)
    assert.equal(app.tools.size + app.templates.length, 0)
  })
  test('tool(name, fn) takes any arguments; inputSchema {} is an empty shape', () => {
    const a = new Server('s', '1').tool('t', () => 'x').tool('u', { inputSchema: {} }, () => 'x')
    assert.deepEqual(a.tools.get('t').inputSchema, { type: 'object' })
    assert.deepEqual(a.tools.get('u').inputSchema, { type: 'object', properties: {} })
  })
})

describe('return values', () => {
  test('as in Python', () => {
    assert.deepEqual(toolResult('hi'), { content: [{ type: 'text', text: 'hi' }] })
    assert.deepEqual(toolResult(3), { content: [{ type: 'text', text: '3' }] })
    assert.deepEqual(toolResult(undefined), { content: [] })
    assert.deepEqual(toolResult(null), { content: [] })
    assert.deepEqual(toolResult({ a: 1 }), { structuredContent: { a: 1 } })
    assert.deepEqual(toolResult({ content: [], isError: true }), { content: [], isError: true })
    assert.deepEqual(toolResult(['a', { b: 1 }, text('c')]), { content: [{ type: 'text', text: 'a' }, { type: 'text', text: '{"b":1}' }, { type: 'text', text: 'c' }] })
    assert.deepEqual(toolResult(image(Buffer.from([1, 2]), 'image/png')), { content: [{ type: 'image', data: 'AQI=', mimeType: 'image/png' }] })
  })
})

describe('zod schemas', () => {
  for (const [label, zz] of [['v4', z], ['v3', z3]]) {
    test(`zod ${label}: a raw shape and an object schema, as JSON Schema, parsing the arguments`, () => {
      const shape = { title: zz.string().describe('The title'), limit: zz.number().int().min(1).default(10), kind: zz.enum(['a', 'b']).optional() }
      for (const schema of [shape, zz.object(shape)]) {
        const d = describeSchema(schema, 'x')
        assert.deepEqual(d.json.required, ['title'])
        assert.deepEqual(d.json.properties.title, { type: 'string', description: 'The title' })
        assert.equal(d.json.properties.limit.type, 'integer')
        assert.equal(d.json.properties.limit.default, 10)
        assert.deepEqual(d.json.properties.kind, { type: 'string', enum: ['a', 'b'] })
        assert.deepEqual(d.parse({ title: 't' }), { ok: true, value: { title: 't', limit: 10 } })
        assert.equal(d.parse({ title: 't', kind: 'c' }).ok, false)
      }
    })
  }
  test('a zod type without a JSON Schema (v3, no zod-to-json-schema) throws at registration', () => {
    assert.throws(() => new Server('s', '1').tool('t', { inputSchema: { f: z3.function() } }, () => 'x'), /tool "t": inputSchema.f: the zod type ZodFunction/)
  })
})

test('zod: typed arguments, refinements, typed template variables, ResourceNotFound (both eras)', T, () => {
  const source = `
    import { Server, ResourceNotFound } from PICOMCP
    import { createRequire } from 'node:module'
    const { z } = createRequire(${JSON.stringify(join(ROOT, 'package.json'))})('zod')
    const app = new Server('zod', '1', { logLevel: 'error' })
    app.tool('even', { inputSchema: { n: z.number().int().refine((n) => n % 2 === 0, 'must be even') } }, ({ n }) => ({ half: n / 2 }))
    app.resource('item://{id}/{flag}', { variables: { id: z.number().int(), flag: z.boolean() } }, (uri, ctx, { id, flag }) => {
      if (id > 10) throw new ResourceNotFound()
      return JSON.stringify([id, flag])
    })
    app.resource('name://{name}', {}, (uri, ctx, { name }) => name)
    app.resource('page://{n}', { variables: { n: { type: 'integer' } } }, (uri, ctx, { n }) => JSON.stringify(n + 1))
    process.exitCode = await app.run()`
  for (const version of ['2025-11-25', '2026-07-28']) {
    const meta = version === '2026-07-28' ? { _meta: { 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientCapabilities': {} } } : {}
    const read = (id, uri) => ({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri, ...meta } })
    const lines = [
      ...(version === '2026-07-28' ? [] : init(version)),
      { ...call(1, 'even', { n: 4 }), params: { name: 'even', arguments: { n: 4 }, ...meta } },
      { ...call(2, 'even', { n: 3 }), params: { name: 'even', arguments: { n: 3 }, ...meta } },
      read(3, 'item://7/true'), read(4, 'item://x/true'), read(5, 'item://11/false'), read(6, 'name://a%20b'), read(7, 'page://41')
    ]
    const { byId } = runServer(source, lines)
    assert.deepEqual(byId[1].result.structuredContent, { half: 2 }, version)
    assert.equal(byId[2].result.isError, true)
    assert.match(byId[2].result.content[0].text, /^Invalid arguments for tool even: n: must be even$/)
    assert.equal(byId[3].result.contents[0].text, '[7,true]')
    const notFound = version === '2026-07-28' ? -32602 : -32002
    assert.deepEqual([byId[4].error.code, byId[4].error.data], [notFound, { uri: 'item://x/true' }])
    assert.deepEqual([byId[5].error.code, byId[5].error.message, byId[5].error.data], [notFound, 'Resource not found: item://11/false', { uri: 'item://11/false' }])
    assert.equal(byId[6].result.contents[0].text, 'a%20b') // undeclared variables: as matched (docs/DESIGN.md)
    assert.equal(byId[7].result.contents[0].text, '42') // JSON Schema as a properties map
  }
})

test('while serving, console.log/info/debug and process.stdout.write go to stderr; stdout holds only protocol lines', T, () => {
  const source = `
    import { Server } from PICOMCP
    import { spawn } from 'node:child_process'
    console.log('before serving: stdout is still stdout')
    const app = new Server('noisy', '1', { logLevel: 'error' })
    app.tool('noisy', {}, async () => {
      console.log('log {"jsonrpc":"2.0"}'); console.info('info'); console.debug('debug')
      process.stdout.write('raw write\\n')
      await new Promise((resolve) => spawn('sh', ['-c', 'echo child'], { stdio: ['ignore', process.stderr, 'inherit'] }).on('close', resolve))
      console.log('y'.repeat(200000))
      return 'done'
    })
    process.exitCode = await app.run()
    console.log('after serving: stdout again')`
  const { messages, byId, stdout, stderr, status } = runServer(source, [...init(), call(1, 'noisy', {}), call(2, 'noisy', {})])
  assert.equal(status, 0)
  assert.deepEqual([byId[1].result.content, byId[2].result.content], [[{ type: 'text', text: 'done' }], [{ type: 'text', text: 'done' }]])
  assert.ok(messages.length >= 3)
  for (const s of ['log {"jsonrpc":"2.0"}', 'info', 'debug', 'raw write', 'child', 'y'.repeat(1000)]) assert.ok(stderr.includes(s), s)
  assert.ok(stdout.startsWith('before serving'), 'outside run(), console.log is untouched')
  assert.ok(stdout.trimEnd().endsWith('after serving: stdout again'))
})

test('thrown errors: isError with the message and the stack on stderr; maskErrors hides the message', T, () => {
  const source = (mask) => `
    import { Server, ToolError } from PICOMCP
    const app = new Server('errors', '1', { maskErrors: ${mask} })
    app.tool('bug', {}, async () => { null.x })
    app.tool('refused', {}, () => { throw new ToolError('not allowed') })
    app.resource('res://x', {}, () => { throw new Error('disk on fire') })
    process.exitCode = await app.run()`
  const lines = [...init(), call(1, 'bug', {}), call(2, 'refused', {}), { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'res://x' } }]
  let r = runServer(source(false), lines)
  assert.equal(r.byId[1].result.isError, true)
  assert.match(r.byId[1].result.content[0].text, /Cannot read properties of null/)
  assert.match(r.stderr, /tool bug failed: TypeError: Cannot read properties of null[^\n]*\n\s+at /)
  assert.deepEqual(r.byId[2].result.content, [{ type: 'text', text: 'not allowed' }])
  assert.deepEqual([r.byId[3].error.code, r.byId[3].error.message], [-32603, 'Internal error: disk on fire'])
  r = runServer(source(true), lines)
  assert.deepEqual(r.byId[1].result.content, [{ type: 'text', text: 'Error in tool bug' }])
  assert.match(r.stderr, /Cannot read properties of null/)
  assert.deepEqual(r.byId[2].result.content, [{ type: 'text', text: 'not allowed' }]) // ToolError messages are meant for the model
  assert.deepEqual([r.byId[3].error.code, r.byId[3].error.message], [-32603, 'Internal error'])
})

test('lifespan: set up before the first request, state on ctx, cleanup after the last answer', T, () => {
  const source = `
    import { Server } from PICOMCP
    const app = new Server('life', '1', {
      async * lifespan (server) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        console.error('setup')
        yield { db: 'open' }
        console.error('cleanup, state was ' + server.state.db)
      }
    })
    app.tool('state', {}, (args, ctx) => ctx.state)
    process.exitCode = await app.run()`
  const { byId, stderr, status } = runServer(source, [...init(), call(1, 'state', {})])
  assert.equal(status, 0)
  assert.deepEqual(byId[1].result.structuredContent, { db: 'open' })
  assert.equal(stderr, 'setup\ncleanup, state was open\n')
})

test('the missing-addon message names the platform and how to build; the install script says when Rust is missing', T, () => {
  const dir = mkdtempSync(join(tmpdir(), 'picomcp-noaddon-'))
  try {
    for (const f of ['lib', 'scripts', 'native.js', 'package.json']) cpSync(join(ROOT, f), join(dir, f), { recursive: true })
    const r = spawnSync(process.execPath, ['-e', "require('./lib/index.js')"], { cwd: dir, encoding: 'utf8' })
    assert.notEqual(r.status, 0)
    assert.match(r.stderr, /picomcp: no native addon for linux-x64-gnu \(expected .*picomcp\.linux-x64-gnu\.node\)/)
    assert.match(r.stderr, /no Rust sources to build it from/)
    assert.doesNotMatch(r.stderr.split('\n').slice(0, 8).join('\n'), /wasm32-wasi/)
    // With sources but without cargo: a clear message, exit 1.
    writeFileSync(join(dir, 'Cargo.toml'), '')
    const i = spawnSync(process.execPath, ['scripts/install.js'], { cwd: dir, encoding: 'utf8', env: { ...process.env, CARGO: join(dir, 'no-cargo') } })
    assert.equal(i.status, 1)
    assert.match(i.stderr, /Rust is not installed to build it\.\nInstall Rust >= 1\.88 \(https:\/\/rustup\.rs/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the packed tarball bundles the addon and the sources, and installs on a fresh folder (require and import)', T, () => {
  const dir = mkdtempSync(join(tmpdir(), 'picomcp-pack-'))
  try {
    const tarball = execFileSync(process.execPath, [join(ROOT, 'scripts', 'pack.js'), '--out', dir], { encoding: 'utf8' }).trim()
    const app = join(dir, 'app')
    mkdirSync(app)
    writeFileSync(join(app, 'package.json'), '{"name":"app","version":"1.0.0","private":true}\n')
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', tarball], { cwd: app, encoding: 'utf8' })
    const pkg = join(app, 'node_modules', 'picomcp')
    const files = readdirSync(pkg)
    for (const f of ['picomcp.linux-x64-gnu.node', 'Cargo.toml', 'Cargo.lock', 'build.rs', 'src', 'crates', 'lib']) assert.ok(files.includes(f), `${f} in ${files.join(' ')}`)
    assert.ok(readdirSync(join(pkg, 'crates', 'picomcp', 'src')).includes('lib.rs'))
    assert.match(readFileSync(join(pkg, 'Cargo.toml'), 'utf8'), /path = "crates\/picomcp"[\s\S]*\n\[workspace\]\n/)
    const cjs = execFileSync(process.execPath, ['-e', "const p = require('picomcp'); console.log(typeof p.Server, typeof p.Session, p.version)"], { cwd: app, encoding: 'utf8' })
    assert.equal(cjs.trim(), 'function function 0.1.0')
    const mjs = execFileSync(process.execPath, ['--input-type=module', '-e', "import { Server, Session } from 'picomcp'; console.log(new Server('s', '1').tool('t', () => 'x').tools.size, typeof Session)"], { cwd: app, encoding: 'utf8' })
    assert.equal(mjs.trim(), '1 function')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('registration errors: the texts shared with the Python helper (tests/helpers/registration_errors.json)', () => {
  const { cases } = JSON.parse(readFileSync(join(ROOT, '..', '..', 'tests', 'helpers', 'registration_errors.json'), 'utf8'))
  for (const c of cases) {
    const app = new Server('s', '1')
    const fn = c.handler ?? (() => 'x')
    assert.throws(() => app[c.kind](c.name, c.definition ?? {}, fn), (e) => {
      assert.equal(e.name, c.error, c.name)
      if (c.message) assert.equal(e.message, c.message)
      else assert.ok(e.message.startsWith(c.message_prefix), `${e.message} starts with ${c.message_prefix}`)
      return true
    })
  }
})

test('call errors: the texts shared with the Python helper (tests/helpers/registration_errors.json, calls)', T, () => {
  const { calls } = JSON.parse(readFileSync(join(ROOT, '..', '..', 'tests', 'helpers', 'registration_errors.json'), 'utf8'))
  const source = `
    import { Server } from PICOMCP
    const app = new Server('s', '1', { logLevel: 'error' })
    app.tool(${JSON.stringify(calls.tool.name)}, { inputSchema: ${JSON.stringify(calls.tool.inputSchema)} }, () => 'x')
    process.exitCode = await app.run()`
  const { byId, status } = runServer(source, [...init(calls.version), ...calls.cases.map((c, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: c.params }))])
  calls.cases.forEach((c, i) => {
    const { error } = byId[i + 1]
    assert.equal(error.code, c.code)
    if (c.message) assert.equal(error.message, c.message)
    else assert.ok(error.message.startsWith(c.message_prefix), `${error.message} starts with ${c.message_prefix}`)
  })
  assert.equal(status, 0)
})
