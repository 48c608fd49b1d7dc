// The Server helper takes a chunk of input as one batch of events (ServerLayer.pollEvents)
// and writes all its answers at once: every request of the chunk is answered, in one
// write, and a call the client cancelled later in the same chunk runs no handler.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import picomcp from '../lib/index.js'

const { Server } = picomcp

const line = (m) => JSON.stringify(m) + '\n'
const INIT = [
  { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' }
]
const call = (id, text) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } })

/** Serves `chunks` (each written whole) on in-memory streams; resolves with the writes and the parsed answers. */
async function run (app, chunks) {
  const input = new PassThrough()
  const output = new PassThrough()
  const writes = []
  output.on('data', (b) => writes.push(b.toString()))
  const done = app.serve(input, output)
  for (const c of chunks) {
    input.write(c)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  input.end()
  assert.equal(await done, 0)
  const answers = writes.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l))
  return { writes, answers }
}

test('a chunk of calls: every one answered, in one write', async () => {
  const seen = []
  const app = new Server('batch', '1').tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => { seen.push(text); return text })
  const calls = []
  for (let i = 1; i <= 50; i++) calls.push(call(i, `t${i} "é\n`))
  calls.push({ jsonrpc: '2.0', id: 51, method: 'tools/list' }, { jsonrpc: '2.0', id: 52, method: 'ping' })
  const { writes, answers } = await run(app, [INIT.map(line).join(''), calls.map(line).join('')])
  assert.equal(writes.length, 2) // the initialize answer, then the whole chunk's
  const byId = new Map(answers.map((a) => [a.id, a]))
  for (let i = 1; i <= 50; i++) assert.deepEqual(byId.get(i).result, { content: [{ type: 'text', text: `t${i} "é\n` }] })
  assert.equal(byId.get(51).result.tools[0].name, 'echo')
  assert.deepEqual(byId.get(52).result, {})
  assert.equal(seen.length, 50)
})

test('a call cancelled later in the same chunk runs no handler and is not answered', async () => {
  const seen = []
  const app = new Server('batch', '1').tool('echo', ({ text }) => { seen.push(text); return text })
  const chunk = [call(1, 'a'), { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, call(2, 'b')]
  const { answers } = await run(app, [INIT.map(line).join(''), chunk.map(line).join('')])
  assert.deepEqual(seen, ['b'])
  assert.deepEqual(answers.map((a) => a.id), [0, 2])
})
