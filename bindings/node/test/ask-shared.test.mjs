// Asking the client in 2026-07-28 as the Python helper does: every case of
// tests/helpers/asking.json (which the Python tests run too), through the Server helper
// over in-memory streams. The handlers are the file's `server`, written here as in Python.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PassThrough } from 'node:stream'
import picomcp from '../lib/index.js'

const { Server } = picomcp
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
const SHARED = JSON.parse(readFileSync(join(ROOT, 'tests', 'helpers', 'asking.json'), 'utf8'))
const ELICIT = 'elicitation/create'
const WAIT_MS = 5000 // only ever reached when something hangs
const form = (message) => ({ message, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } })

function makeApp () {
  const app = new Server('ask-shared', '1.0.0', { logLevel: 'error' })
  app.tool('confirm', {}, async (args, ctx) => 'action:' + (await ctx.ask(ELICIT, form('Sure?'))).action)
  app.tool('pair', {}, async (args, ctx) => {
    const g = await ctx.askAll({
      name: { method: ELICIT, params: form('Name?') },
      topic: { method: 'sampling/createMessage', params: SHARED.server.SAMPLE }
    }, { state: 'pair' })
    return `name:${g.name.action} topic:${g.topic.model}`
  })
  app.tool('twice', {}, async (args, ctx) => {
    if (ctx.requestState !== 'r2') await ctx.ask(ELICIT, form('First?'), { state: 'r1' })
    return 'second:' + (await ctx.ask(ELICIT, form('Second?'), { state: 'r2' })).action
  })
  app.tool('link', {}, async (args, ctx) =>
    'url:' + (await ctx.ask(ELICIT, { mode: 'url', message: 'Open', url: 'https://example.com/x' })).action)
  app.tool('caps', {}, (args, ctx) => JSON.stringify(ctx.clientCapabilities))
  app.prompt('brief', {}, async (args, ctx) =>
    [{ role: 'user', content: { type: 'text', text: 'for:' + (await ctx.ask(ELICIT, form('Who?'), { key: 'who' })).action } }])
  app.resource('test://asked', { mimeType: 'text/plain' }, async (uri, ctx) =>
    'read:' + (await ctx.ask(ELICIT, form('Shade?'), { key: 'shade' })).action)
  return app
}

/** The helper over streams; `call` sends one 2026-07-28 request and resolves with its answer. */
function serve (app) {
  const input = new PassThrough()
  const output = new PassThrough()
  const answers = new Map()
  const waiters = new Map()
  let rest = ''
  output.on('data', (chunk) => {
    const parts = (rest + chunk.toString()).split('\n')
    rest = parts.pop()
    for (const p of parts.filter((p) => p.trim())) {
      const m = JSON.parse(p)
      answers.set(m.id, m)
      if (waiters.has(m.id)) waiters.get(m.id)(m)
    }
  })
  const done = app.serve(input, output)
  let next = 1
  return {
    call (method, params, caps) {
      const id = next++
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps }
      input.write(JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }) + '\n')
      return new Promise((resolve, reject) => {
        if (answers.has(id)) return resolve(answers.get(id))
        const timer = setTimeout(() => reject(new Error(`no answer to ${method} ${JSON.stringify(params)}`)), WAIT_MS)
        waiters.set(id, (m) => { clearTimeout(timer); resolve(m) })
      })
    },
    end () { input.end(); return done }
  }
}

function textOf (method, result) {
  if (method === 'prompts/get') return result.messages[0].content.text
  if (method === 'resources/read') return result.contents[0].text
  return result.content[0].text
}

function check (step, got) {
  const { expect } = step
  if (expect.error) {
    assert.ok(got.error, JSON.stringify(got))
    for (const [k, v] of Object.entries(expect.error)) assert.deepEqual(got.error[k], v, k)
    return
  }
  const { result } = got
  assert.ok(result, JSON.stringify(got))
  if (expect.asks) {
    assert.equal(result.resultType, 'input_required', JSON.stringify(result))
    const asked = result.inputRequests
    assert.deepEqual(Object.fromEntries(Object.entries(asked).map(([k, q]) => [k, q.method])), expect.asks)
    for (const [k, message] of Object.entries(expect.messages ?? {})) assert.equal(asked[k].params.message, message)
    assert.equal('requestState' in result, expect.state)
  } else {
    assert.equal(result.resultType ?? 'complete', 'complete', JSON.stringify(result))
    if ('json' in expect) assert.deepEqual(JSON.parse(textOf(step.method, result)), expect.json)
    else assert.equal(textOf(step.method, result), expect.text)
  }
}

for (const c of SHARED.cases) {
  test(`asking (tests/helpers/asking.json): ${c.name}`, { timeout: 20000 }, async () => {
    const wire = serve(makeApp())
    let previous = {}
    for (const step of c.steps) {
      const params = { ...step.params }
      if (params.requestState === '$previous') params.requestState = previous.result.requestState
      const got = await wire.call(step.method, params, step.capabilities ?? SHARED.capabilities)
      check(step, got)
      previous = got
    }
    assert.equal(await wire.end(), 0)
  })
}
