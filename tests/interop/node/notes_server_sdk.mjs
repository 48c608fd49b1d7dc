// The notes server of examples/node/notes_server.mjs on the official TypeScript SDK
// (McpServer with zod, @modelcontextprotocol/sdk 1.32.2), written as its documentation
// shows: the comparison for length (tests/interop/notes.mjs) and speed.
//   node tests/interop/node/notes_server_sdk.mjs
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'

const notes = new Map() // id -> { id, title, body }
const server = new McpServer({ name: 'notes', version: '1.0.0' })

server.registerTool('add_note', {
  description: 'Saves a note and returns its id',
  inputSchema: { title: z.string().min(1), body: z.string() },
  outputSchema: { id: z.number().int() }
}, async ({ title, body }) => {
  const id = notes.size + 1
  notes.set(id, { id, title, body })
  return { content: [{ type: 'text', text: JSON.stringify({ id }) }], structuredContent: { id } }
})

server.registerTool('search_notes', {
  description: 'Finds the notes whose title or body contains `query`',
  inputSchema: { query: z.string(), limit: z.number().int().min(1).max(100).default(10) },
  outputSchema: { notes: z.array(z.object({ id: z.number().int(), title: z.string() })) }
}, async ({ query, limit }) => {
  const q = query.toLowerCase()
  const found = [...notes.values()].filter((n) => `${n.title}\n${n.body}`.toLowerCase().includes(q))
  const result = { notes: found.slice(0, limit).map(({ id, title }) => ({ id, title })) }
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result }
})

server.registerResource('note', new ResourceTemplate('note://{id}', { list: undefined }), {
  description: 'One note, as Markdown', mimeType: 'text/markdown'
}, async (uri, { id }) => {
  const note = notes.get(Number(id))
  if (!note) throw new McpError(-32002, `Resource not found: ${uri.href}`, { uri: uri.href })
  return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: `# ${note.title}\n\n${note.body}` }] }
})

server.registerPrompt('summarize_notes', {
  description: 'Asks for a summary of the notes about a topic', argsSchema: { topic: z.string() }
}, ({ topic }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: `Summarize my notes about ${topic}: find them with search_notes, read each note://{id}.` } }]
}))

await server.connect(new StdioServerTransport())
