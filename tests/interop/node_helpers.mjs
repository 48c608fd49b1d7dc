#!/usr/bin/env node
// The Node binding's Server helper under the OFFICIAL TypeScript SDK client (1.32.2):
// the notes server (examples/node/notes_server.mjs) used as a client would, and the fault
// tests (tests/interop/node/faults_server.mjs): a throwing handler (isError, stack on
// stderr), console.log and a child process writing while a call runs (the stream stays
// intact), wrong argument types, object/array/undefined returns, a wrong registration
// throwing at registration. Also: the notes server is no longer than the same server on
// the SDK (tests/interop/node/notes_server_sdk.mjs).
//
//   node tests/interop/node_helpers.mjs        (after tests/interop/setup.sh and bindings/node/build.sh)
//
// Output: `ok - NAME` / `not ok - NAME: REASON` lines, then `N passed, M failed`.
import { createRequire } from 'node:module'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = join(HERE, '..', '..')
const require = createRequire(join(HERE, 'node', 'package.json'))
const { Client } = require('@modelcontextprotocol/sdk/client/index.js')
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js')
const { McpError } = require('@modelcontextprotocol/sdk/types.js')

let passed = 0
let failed = 0
async function check (name, fn) {
  let timer
  try {
    const timeout = new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error('timed out after 15 s')), 15000) })
    await Promise.race([fn(), timeout])
    passed++
    console.log(`ok - ${name}`)
  } catch (e) {
    failed++
    console.log(`not ok - ${name}: ${String(e && e.message).split('\n').join(' ').slice(0, 600)}`)
  } finally {
    clearTimeout(timer)
  }
}
function expect (cond, message) { if (!cond) throw new Error(message) }
function equal (actual, expected, what) {
  const a = JSON.stringify(actual)
  const b = JSON.stringify(expected)
  expect(a === b, `${what}: expected ${b}, got ${a}`)
}
async function expectError (promise, code) {
  try {
    const r = await promise
    throw new Error(`expected JSON-RPC error ${code}, got ${JSON.stringify(r).slice(0, 200)}`)
  } catch (e) {
    expect(e instanceof McpError && e.code === code, `expected JSON-RPC error ${code}, got ${e && e.message}`)
    return e
  }
}

/** A connected SDK client on `args` (node ARGS...), with the server's stderr collected. */
async function connect (args) {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: ROOT, stderr: 'pipe' })
  const client = new Client({ name: 'node-helpers-test', version: '1.0.0' })
  const stderr = []
  transport.stderr.on('data', (d) => stderr.push(String(d)))
  await client.connect(transport)
  return { client, stderr, close: () => client.close() }
}

const text = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('')

// ---- the notes server ----

await check('notes server: no longer than the same server on the TS SDK (McpServer with zod)', () => {
  const count = (f) => readFileSync(join(ROOT, f), 'utf8').split('\n').filter((l) => l.trim() && !l.trim().startsWith('//')).length
  const ours = count('examples/node/notes_server.mjs')
  const sdk = count('tests/interop/node/notes_server_sdk.mjs')
  expect(ours <= sdk, `${ours} lines against ${sdk}`)
})

{
  const { client, close } = await connect(['examples/node/notes_server.mjs'])
  await check('notes: tools listed with the JSON Schema made from zod', async () => {
    const { tools } = await client.listTools()
    equal(tools.map((t) => t.name), ['add_note', 'search_notes'], 'tools')
    const search = tools[1]
    equal(search.inputSchema.required, ['query'], 'search_notes required')
    equal(search.inputSchema.properties.limit, { default: 10, type: 'integer', minimum: 1, maximum: 100 }, 'limit')
    expect(search.outputSchema && search.outputSchema.properties.notes, 'search_notes has an outputSchema')
  })
  await check('notes: add_note and search_notes (structured output, checked by the SDK against outputSchema)', async () => {
    let r = await client.callTool({ name: 'add_note', arguments: { title: 'Groceries', body: 'oat milk, bread' } })
    equal(r.structuredContent, { id: 1 }, 'add_note')
    await client.callTool({ name: 'add_note', arguments: { title: 'Milk prices', body: 'up again' } })
    r = await client.callTool({ name: 'search_notes', arguments: { query: 'MILK' } })
    equal(r.structuredContent, { notes: [{ id: 1, title: 'Groceries' }, { id: 2, title: 'Milk prices' }] }, 'search (limit defaults to 10)')
    equal(JSON.parse(text(r)), r.structuredContent, 'the JSON text block')
    r = await client.callTool({ name: 'search_notes', arguments: { query: 'milk', limit: 1 } })
    equal(r.structuredContent.notes.length, 1, 'limit 1')
  })
  await check('notes: wrong argument types are an isError result naming the field', async () => {
    const r = await client.callTool({ name: 'add_note', arguments: { title: 5, body: 'x' } })
    expect(r.isError === true && /title/.test(text(r)), JSON.stringify(r))
    const r2 = await client.callTool({ name: 'search_notes', arguments: { query: 'x', limit: 0 } })
    expect(r2.isError === true && /limit/.test(text(r2)), JSON.stringify(r2))
  })
  await check('notes: an unknown tool is a JSON-RPC error', async () => {
    await expectError(client.callTool({ name: 'nope', arguments: {} }), -32602)
  })
  await check('notes: the note://{id} template with a typed id; a missing note is -32002', async () => {
    const { resourceTemplates } = await client.listResourceTemplates()
    equal(resourceTemplates.map((t) => t.uriTemplate), ['note://{id}'], 'templates')
    const r = await client.readResource({ uri: 'note://1' })
    equal(r.contents, [{ uri: 'note://1', mimeType: 'text/markdown', text: '# Groceries\n\noat milk, bread' }], 'note 1')
    await expectError(client.readResource({ uri: 'note://99' }), -32002)
    await expectError(client.readResource({ uri: 'note://one' }), -32002)
  })
  await check('notes: the prompt', async () => {
    const { prompts } = await client.listPrompts()
    equal(prompts, [{ name: 'summarize_notes', description: 'Asks for a summary of the notes about a topic', arguments: [{ name: 'topic', required: true }] }], 'prompts')
    const r = await client.getPrompt({ name: 'summarize_notes', arguments: { topic: 'milk' } })
    expect(r.messages[0].role === 'user' && /about milk/.test(r.messages[0].content.text), JSON.stringify(r))
  })
  await close()
}

// ---- faults ----

{
  const { client, stderr, close } = await connect(['tests/interop/node/faults_server.mjs'])
  await check('a throwing handler: isError with its message, the stack on stderr', async () => {
    const r = await client.callTool({ name: 'throws', arguments: {} })
    equal([r.isError, r.content], [true, [{ type: 'text', text: 'kaboom' }]], 'result')
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(/tool throws failed: Error: kaboom\n\s+at /.test(stderr.join('')), `stderr: ${stderr.join('').slice(0, 300)}`)
  })
  await check('ToolError is isError; McpError a JSON-RPC error', async () => {
    const r = await client.callTool({ name: 'tool_error', arguments: {} })
    equal([r.isError, text(r)], [true, 'no such note'], 'ToolError')
    await expectError(client.callTool({ name: 'rpc_error', arguments: {} }), -32001)
  })
  await check('console.log, process.stdout.write and a child process while a call runs: the stream stays intact', async () => {
    const calls = await Promise.all([1, 2, 3].map(() => client.callTool({ name: 'noisy', arguments: {} })))
    for (const r of calls) equal(text(r), 'done', 'noisy')
    await new Promise((resolve) => setTimeout(resolve, 50))
    const err = stderr.join('')
    for (const line of ['console.log from a tool', 'console.info from a tool', 'console.debug from a tool', 'process.stdout.write from a tool', 'child stdout']) {
      expect(err.includes(line), `${line} is not on stderr`)
    }
  })
  await check('wrong argument types (zod-typed tool): isError naming the field', async () => {
    const r = await client.callTool({ name: 'typed', arguments: { n: 'seven' } })
    expect(r.isError === true && /\/n/.test(text(r)), JSON.stringify(r))
    const ok = await client.callTool({ name: 'typed', arguments: { n: 7, tags: ['a', 'b'] } })
    equal(text(ok), 'n=7 tags=a,b', 'typed')
  })
  await check('an object return is structured content plus its JSON text', async () => {
    const r = await client.callTool({ name: 'object', arguments: {} })
    equal([r.structuredContent, JSON.parse(text(r))], [{ a: 1, b: [true, null] }, { a: 1, b: [true, null] }], 'object')
  })
  await check('an array return is one block per item', async () => {
    const r = await client.callTool({ name: 'array', arguments: {} })
    equal(r.content.map((c) => c.type), ['text', 'text', 'image', 'resource_link'], 'types')
    equal([r.content[0].text, r.content[1].text], ['first', '{"two":2}'], 'texts')
  })
  await check('undefined, null and an async undefined return: empty content', async () => {
    for (const name of ['undefined', 'null', 'async_undefined']) {
      const r = await client.callTool({ name, arguments: {} })
      equal([r.content, r.isError], [[], undefined], name)
    }
  })
  await close()
}

await check('a wrong registration throws at registration: the server exits before serving, naming the tool', () => {
  const r = spawnSync(process.execPath, ['tests/interop/node/faults_server.mjs', '--bad-registration'], { cwd: ROOT, input: '', encoding: 'utf8', timeout: 10000 })
  expect(r.status !== 0, `exit status ${r.status}`)
  expect(r.stdout === '', `stdout: ${r.stdout}`)
  expect(r.stderr.includes('TypeError: tool "forgot_options": the handler must be a function, not string'), `stderr: ${r.stderr.slice(0, 400)}`)
})

console.log(`${passed} passed, ${failed} failed`)
process.exitCode = failed ? 1 : 0
