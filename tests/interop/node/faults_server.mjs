// A server on the Node binding's helper whose tools misbehave on purpose: the fault tests of
// tests/interop/node_helpers.mjs drive it with the official TypeScript SDK client.
//   node tests/interop/node/faults_server.mjs [--bad-registration]
import { spawn } from 'node:child_process'
import { Server, ToolError, McpError, image, resourceLink } from '../../../bindings/node/lib/index.mjs'
import { z } from 'zod'

const app = new Server('faults', '1.0.0')

app.tool('throws', { description: 'A bug: throws an Error' }, () => { throw new Error('kaboom') })
app.tool('tool_error', { description: 'Fails on purpose (ToolError)' }, () => { throw new ToolError('no such note') })
app.tool('rpc_error', { description: 'Answers with a JSON-RPC error' }, () => { throw new McpError(-32001, 'custom error') })
app.tool('noisy', { description: 'console.log and a child process writing while the call runs' }, async () => {
  console.log('console.log from a tool')
  console.info('console.info from a tool', { nested: ['x'] })
  console.debug('console.debug from a tool')
  process.stdout.write('process.stdout.write from a tool\n')
  // A child must not inherit fd 1 (it would write into the protocol stream): its stdout
  // goes to our stderr.
  await new Promise((resolve) => spawn('sh', ['-c', 'echo child stdout; echo child stderr >&2'],
    { stdio: ['ignore', process.stderr, 'inherit'] }).on('close', resolve))
  console.log('x'.repeat(100000)) // a long line, split into many writes
  return 'done'
})
app.tool('typed', {
  description: 'Typed arguments (zod)', inputSchema: { n: z.number().int(), tags: z.array(z.string()).optional() }
}, ({ n, tags }) => `n=${n} tags=${(tags ?? []).join(',')}`)
app.tool('object', {}, () => ({ a: 1, b: [true, null] }))
app.tool('array', {}, () => ['first', { two: 2 }, image(Buffer.from([137, 80, 78, 71]), 'image/png'), resourceLink('note://1', { name: 'note 1' })])
app.tool('undefined', {}, () => undefined)
app.tool('null', {}, () => null)
app.tool('async_undefined', {}, async () => {})

if (process.argv.includes('--bad-registration')) app.tool('forgot_options', 'not a function')

process.exitCode = await app.run(process.argv.slice(2).filter((a) => a !== '--bad-registration'))
