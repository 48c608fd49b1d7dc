// A notes server on picomcp: typed tools, structured output, a resource template and a
// prompt (bindings/node/README.md walks through it). Set up: bindings/node/build.sh.
//   node examples/node/notes_server.mjs
import { Server, ResourceNotFound } from 'picomcp'
import { z } from 'zod'

const notes = new Map() // id -> { id, title, body }
const app = new Server('notes', '1.0.0')

app.tool('add_note', {
  description: 'Saves a note and returns its id',
  inputSchema: { title: z.string().min(1), body: z.string() },
  outputSchema: { id: z.number().int() }
}, ({ title, body }) => {
  const id = notes.size + 1
  notes.set(id, { id, title, body })
  return { id }
})

app.tool('search_notes', {
  description: 'Finds the notes whose title or body contains `query`',
  inputSchema: { query: z.string(), limit: z.number().int().min(1).max(100).default(10) },
  outputSchema: { notes: z.array(z.object({ id: z.number().int(), title: z.string() })) }
}, ({ query, limit }) => {
  const q = query.toLowerCase()
  const found = [...notes.values()].filter((n) => `${n.title}\n${n.body}`.toLowerCase().includes(q))
  return { notes: found.slice(0, limit).map(({ id, title }) => ({ id, title })) }
})

app.resource('note://{id}', {
  description: 'One note, as Markdown', mimeType: 'text/markdown', variables: { id: z.number().int() }
}, (uri, ctx, { id }) => {
  const note = notes.get(id)
  if (!note) throw new ResourceNotFound(uri)
  return `# ${note.title}\n\n${note.body}`
})

app.prompt('summarize_notes', {
  description: 'Asks for a summary of the notes about a topic', arguments: { topic: z.string() }
}, ({ topic }) => `Summarize my notes about ${topic}: find them with search_notes, read each note://{id}.`)

process.exitCode = await app.run()
