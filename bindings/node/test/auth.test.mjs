// Server.httpHandler({ auth }): the server as an OAuth 2.1 protected resource on
// node:http, with an asynchronous verifier that looks tokens up in a table (as an
// introspecting host would; examples/node verifies signed JWTs with jose).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import picomcp from '../lib/index.js'

const { Server } = picomcp

const ACCEPT = 'application/json, text/event-stream'
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }
const message = (text) => text.startsWith('{')
  ? JSON.parse(text)
  : text.split('\n').filter((l) => l.startsWith('data:') && l.slice(5).trim()).map((l) => JSON.parse(l.slice(5))).pop()

test('a protected resource: metadata, 401, filtered list, 403 step-up, the principal', async () => {
  const s = new Server('auth-test', '1.0.0', { logLevel: 'error' })
  s.tool('whoami', {}, (a, ctx) => ctx.principal ? `${ctx.principal.subject} via ${ctx.principal.clientId}` : 'nobody')
  s.tool('write_file', { scopes: ['files:write'] }, (a, ctx) => `written by ${ctx.principal.subject}`)
  const server = http.createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = server.address().port
  const resource = `http://127.0.0.1:${port}/mcp`
  const meta = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`
  const now = Math.floor(Date.now() / 1000)
  const tokens = {
    basic: { sub: 'alice', client_id: 'c1', aud: resource, exp: now + 600, scope: 'mcp' },
    wide: { sub: 'alice', client_id: 'c1', aud: [resource], exp: now + 600, scope: 'mcp files:write' },
    elsewhere: { sub: 'alice', aud: 'http://127.0.0.1:1/mcp', exp: now + 600, scope: 'mcp' },
    expired: { sub: 'alice', aud: resource, exp: now - 3600, scope: 'mcp' }
  }
  const handler = s.httpHandler({
    auth: {
      verify: async (token) => { await new Promise((resolve) => setImmediate(resolve)); return tokens[token] ?? null },
      resource,
      authorizationServers: ['http://127.0.0.1:9000'],
      scopes: ['mcp', 'files:write'],
      scopesSupported: ['mcp'],
      required: 'mcp'
    }
  })
  server.on('request', handler)
  const url = resource
  const post = (body, token, headers = {}) => fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body)
  })
  try {
    const m = await fetch(meta)
    assert.equal(m.status, 200)
    const doc = await m.json()
    assert.equal(doc.resource, resource)
    assert.deepEqual(doc.bearer_methods_supported, ['header'])

    let r = await post(INIT)
    assert.equal(r.status, 401)
    assert.equal(r.headers.get('www-authenticate'), `Bearer resource_metadata="${meta}", scope="mcp"`)
    for (const bad of ['elsewhere', 'expired', 'forged']) {
      r = await post(INIT, bad)
      assert.equal(r.status, 401, bad)
      assert.match(r.headers.get('www-authenticate'), /error="invalid_token"/)
    }
    r = await post(INIT, 'basic')
    assert.equal(r.status, 200)
    const h = { 'mcp-session-id': r.headers.get('mcp-session-id'), 'mcp-protocol-version': '2025-11-25' }
    assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, 'basic', h)).status, 202)
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' }
    assert.deepEqual(message(await (await post(list, 'basic', h)).text()).result.tools.map((t) => t.name), ['whoami'])
    const who = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'whoami' } }
    assert.equal(message(await (await post(who, 'basic', h)).text()).result.content[0].text, 'alice via c1')
    const write = { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'write_file' } }
    r = await post(write, 'basic', h)
    assert.equal(r.status, 403)
    assert.equal(r.headers.get('www-authenticate'),
      `Bearer resource_metadata="${meta}", scope="mcp files:write", error="insufficient_scope", error_description="the token lacks a scope this request needs"`)
    assert.deepEqual(message(await (await post(list, 'wide', h)).text()).result.tools.map((t) => t.name), ['whoami', 'write_file'])
    r = await post(write, 'wide', h)
    assert.equal(r.status, 200)
    assert.equal(message(await r.text()).result.content[0].text, 'written by alice')
  } finally {
    handler.close()
    server.close()
  }
})
