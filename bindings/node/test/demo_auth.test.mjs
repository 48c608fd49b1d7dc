// The Node demo with --auth-issuer: signed JWTs verified with jose against the JWKS the
// demo discovers from the issuer's metadata, then the core's rules (audience, expiry,
// scopes, the filtered list, the 403 step-up). The "authorization server" is a few lines
// serving its metadata and JWKS (tests/auth/ runs a real one against every demo).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import net from 'node:net'
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const demo = fileURLToPath(new URL('../../../examples/node/demo_server.mjs', import.meta.url))
let jose = null
try {
  jose = await import(createRequire(demo).resolve('jose'))
} catch {}

const ACCEPT = 'application/json, text/event-stream'
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }
const message = (text) => text.startsWith('{')
  ? JSON.parse(text)
  : text.split('\n').filter((l) => l.startsWith('data:') && l.slice(5).trim()).map((l) => JSON.parse(l.slice(5))).pop()
const freePort = () => new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)) })
})

test('the Node demo verifies JWTs with jose', { skip: jose ? false : 'jose is not installed (bindings/node/build.sh)' }, async () => {
  const { privateKey, publicKey } = await jose.generateKeyPair('EdDSA', { extractable: true })
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' }
  const as = http.createServer((req, res) => {
    const docs = {
      '/.well-known/oauth-authorization-server': { issuer, jwks_uri: `${issuer}/jwks` },
      '/jwks': { keys: [jwk] }
    }
    const body = docs[req.url] ? JSON.stringify(docs[req.url]) : ''
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' })
    res.end(body)
  })
  await new Promise((resolve) => as.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${as.address().port}`
  const port = await freePort()
  const resource = `http://127.0.0.1:${port}/mcp`
  const child = spawn(process.execPath, [demo, '--http', `127.0.0.1:${port}`, '--auth-issuer', issuer], { stdio: ['ignore', 'inherit', 'inherit'] })
  try {
    for (let i = 0; i < 100; i++) {
      const up = await new Promise((resolve) => net.connect(port, '127.0.0.1').on('connect', function () { this.end(); resolve(true) }).on('error', () => resolve(false)))
      if (up) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const now = Math.floor(Date.now() / 1000)
    const sign = (claims, key = privateKey) => new jose.SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: 'k1' }).sign(key)
    const token = (scope, over = {}) => sign({ iss: issuer, sub: 'alice', aud: resource, exp: now + 600, scope, client_id: 'c1', ...over })
    const post = (body, t, headers = {}) => fetch(resource, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...(t ? { authorization: `Bearer ${t}` } : {}), ...headers },
      body: JSON.stringify(body)
    })
    let r = await post(INIT)
    assert.equal(r.status, 401)
    assert.match(r.headers.get('www-authenticate'), /resource_metadata=/)
    const other = (await jose.generateKeyPair('EdDSA')).privateKey
    for (const bad of [await token('mcp', { aud: 'http://127.0.0.1:1/mcp' }), await token('mcp', { exp: now - 3600 }),
      await token('mcp', { iss: 'http://evil.example' }), await sign({ iss: issuer, sub: 'a', aud: resource, exp: now + 600, scope: 'mcp' }, other)]) {
      r = await post(INIT, bad)
      assert.equal(r.status, 401)
      assert.match(r.headers.get('www-authenticate'), /error="invalid_token"/)
    }
    const basic = await token('mcp')
    r = await post(INIT, basic)
    assert.equal(r.status, 200)
    const h = { 'mcp-session-id': r.headers.get('mcp-session-id'), 'mcp-protocol-version': '2025-11-25' }
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, basic, h)
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' }
    const names = message(await (await post(list, basic, h)).text()).result.tools.map((t) => t.name)
    assert.ok(names.includes('echo') && !names.includes('sleep'))
    const sleep = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'sleep', arguments: { ms: 0 } } }
    r = await post(sleep, basic, h)
    assert.equal(r.status, 403)
    assert.match(r.headers.get('www-authenticate'), /scope="mcp mcp:admin", error="insufficient_scope"/)
    r = await post(sleep, await token('mcp mcp:admin'), h)
    assert.equal(r.status, 200)
    assert.equal(message(await r.text()).result.content[0].text, 'slept')
  } finally {
    child.kill()
    as.close()
  }
})
