// The README's examples run as written (a stale example is a bug).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const lib = join(here, '..', 'lib', 'index.js')
const blocks = [...readFileSync(join(here, '..', 'README.md'), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)]
  .map((m) => m[1].replaceAll('./bindings/node/lib/index.js', lib).replaceAll('./bindings/node/lib/index.mjs', lib.replace(/\.js$/, '.mjs')))
const NOTES = join(here, '..', '..', '..', 'examples', 'node', 'notes_server.mjs')

test('the notes server in the README is examples/node/notes_server.mjs', () => {
  const code = readFileSync(NOTES, 'utf8')
  assert.equal(blocks[0], code.slice(code.indexOf('import { Server')))
})
const dir = mkdtempSync(join(tmpdir(), 'picomcp-readme-'))

test('the session example runs', { timeout: 60_000 }, () => {
  const file = join(dir, 'session.cjs')
  writeFileSync(file, blocks[2])
  const out = execFileSync(process.execPath, [file], { encoding: 'utf8', timeout: 60_000 })
  assert.match(out, /client: negotiated 2026-07-28/)
  assert.match(out, /tools: \[\]/)
})

test('the server example serves stdio', { timeout: 60_000 }, () => {
  const file = join(dir, 'server.mjs')
  writeFileSync(file, blocks[1])
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'wait', arguments: { ms: 30 }, _meta: { progressToken: 't' } } },
    { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'file:///readme' } },
    { jsonrpc: '2.0', id: 5, method: 'prompts/get', params: { name: 'greet', arguments: { who: 'bob' } } }
  ]
  const out = execFileSync(process.execPath, [file], {
    input: lines.map((l) => JSON.stringify(l) + '\n').join(''), encoding: 'utf8', timeout: 60_000
  })
  const msgs = out.trim().split('\n').map((l) => JSON.parse(l))
  const byId = Object.fromEntries(msgs.filter((m) => 'id' in m).map((m) => [m.id, m]))
  assert.equal(byId[1].result.protocolVersion, '2025-06-18')
  assert.deepEqual(byId[2].result.content, [{ type: 'text', text: 'hi' }])
  assert.equal(byId[3].result.content[0].text, 'done')
  assert.equal(byId[4].result.contents[0].text, 'hello')
  assert.equal(byId[5].result.messages[0].content.text, 'Hello bob')
  const progress = msgs.filter((m) => m.method === 'notifications/progress')
  assert.deepEqual(progress.map((p) => p.params.progress), [1, 2, 3])
  assert.ok(msgs.indexOf(progress.at(-1)) < msgs.indexOf(byId[3]), 'progress comes before its answer')
})

test('the HTTP example serves Streamable HTTP', { timeout: 60_000 }, async () => {
  const { spawn } = await import('node:child_process')
  const net = await import('node:net')
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)) })
  })
  const file = join(dir, 'http.mjs')
  writeFileSync(file, blocks[3])
  const child = spawn(process.execPath, [file], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] })
  try {
    await new Promise((resolve, reject) => {
      child.stderr.on('data', (d) => { if (String(d).includes('MCP on')) resolve() })
      child.once('exit', (code) => reject(new Error(`exited ${code}`)))
    })
    const r = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } })
    })
    assert.equal(r.status, 200)
    assert.ok(r.headers.get('mcp-session-id'))
    assert.equal((await r.json()).result.serverInfo.name, 'hello-http')
  } finally {
    child.kill()
  }
})

test('the asking example: three rounds in 2026-07-28, the party carried in the sealed state', { timeout: 60_000 }, async () => {
  const { spawn } = await import('node:child_process')
  const file = join(dir, 'ask.mjs')
  writeFileSync(file, blocks[4])
  const child = spawn(process.execPath, [file], { stdio: ['pipe', 'pipe', 'inherit'] })
  const got = []
  let rest = ''
  let wake = () => {}
  child.stdout.on('data', (d) => {
    const parts = (rest + d).split('\n')
    rest = parts.pop()
    got.push(...parts.filter(Boolean).map((l) => JSON.parse(l)))
    wake()
  })
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }
  const call = async (id, extra) => {
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'book', arguments: { day: 'Friday' }, ...extra, _meta: meta } }) + '\n')
    while (!got.some((m) => m.id === id)) await new Promise((resolve) => { wake = resolve })
    return got.find((m) => m.id === id).result
  }
  try {
    const r1 = await call(1, {})
    assert.deepEqual(Object.keys(r1.inputRequests).sort(), ['size', 'who'])
    const r2 = await call(2, { inputResponses: { who: { action: 'accept', content: { name: 'Ada' } }, size: { action: 'accept', content: { n: 4 } } } })
    assert.deepEqual(Object.keys(r2.inputRequests), ['confirm'])
    assert.equal(r2.inputRequests.confirm.params.message, '4 on Friday for Ada?')
    const r3 = await call(3, { inputResponses: { confirm: { action: 'accept', content: { ok: true } } }, requestState: r2.requestState })
    assert.deepEqual(r3.content, [{ type: 'text', text: 'Booked for Ada' }])
  } finally {
    child.stdin.end()
    child.kill()
  }
})
