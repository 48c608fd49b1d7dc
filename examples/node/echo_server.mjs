// The benchmark's echo server (bench/run.sh --bindings, label ours-notes), written as a user
// of the helper writes a tool (zod raw shape, as the notes server): the same tool as the
// TypeScript SDK's McpServer reference in the bench (registerTool with zod).
//   node examples/node/echo_server.mjs
import { Server } from 'picomcp'
import { z } from 'zod'

const app = new Server('echo-picomcp-node', '0.1.0')
app.tool('echo', { description: 'Echo the text back.', inputSchema: { text: z.string() } }, ({ text }) => text)
process.exitCode = await app.run()
