// picomcp-demo-node: the demo server (DEMO_SERVER.md) on the Node binding.
//
// The same contract as the Rust reference (examples/src/bin/picomcp-demo/), written with
// the binding's high-level helper `Server`: tools echo, add, sleep and the official
// conformance fixture (test_* tools and prompts, test:// resources, completions,
// logging), over stdio or Streamable HTTP (`--http HOST:PORT`, path /mcp), in both
// protocol eras. Every byte goes through the core session (and, over HTTP, the core's
// endpoint).
//
//   node examples/node/demo_server.mjs [--max-line BYTES] [--log-level LEVEL] [--http 127.0.0.1:PORT]
//
// Set up with bindings/node/build.sh.
import picomcp from '../../bindings/node/lib/index.mjs'

const { Server, ToolError, McpError, SendError, version } = picomcp

// A 1x1 red PNG, and one millisecond of silence as WAV (8 samples, 8-bit mono, 8 kHz).
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC'
const WAV = 'UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=='
const WATCHED = 'test://watched-resource'
const WATCH_PERIOD_MS = 3000
const NO_ARGS = { type: 'object', additionalProperties: false }

// The key that seals 2026-07-28 requestState: processes behind one load balancer share it
// (PICOMCP_STATE_KEY, 64 hex digits); otherwise each process draws its own.
function stateKey () {
  const hex = process.env.PICOMCP_STATE_KEY
  if (hex === undefined) return undefined
  if (!/^[0-9a-fA-F]{64}$/.test(hex.trim())) {
    process.stderr.write('picomcp-demo-node: PICOMCP_STATE_KEY must be 64 hex digits (32 bytes)\n')
    process.exit(2)
  }
  return Buffer.from(hex.trim(), 'hex')
}

const app = new Server('picomcp-demo-node', version, {
  stateKey: stateKey(),
  instructions: 'picomcp demo server (Node). Tools: echo (returns its text), add (sums two numbers, ' +
    'structured output), sleep (waits, with progress and cancellation), and the MCP conformance ' +
    'fixture (test_* tools and prompts, test:// resources).'
})

const text = (t) => ({ type: 'text', text: t })
const image = () => ({ type: 'image', data: PNG, mimeType: 'image/png' })
const embedded = (uri, mimeType, body) => ({ type: 'resource', resource: { uri, mimeType, text: body } })

// ---- tools ----

app.tool('echo', {
  title: 'Echo',
  description: 'Returns `text` unchanged, as one text block.',
  inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'The text to return' } }, required: ['text'] }
}, (args) => args.text)

// `echo` whose argument also travels as the header Mcp-Param-Text of 2026-07-28 HTTP calls
// (MODERN §13.3): the core's endpoint checks it against the argument (httpHandler hands it
// the tools).
app.tool('echo_header', {
  title: 'Echo (header)',
  description: 'Returns `text` unchanged, as one text block; over Streamable HTTP (2026-07-28) `text` is mirrored in the Mcp-Param-Text header.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', 'x-mcp-header': 'Text', description: 'The text to return, mirrored in the Mcp-Param-Text header' } },
    required: ['text']
  }
}, (args) => args.text)

app.tool('add', {
  title: 'Add',
  description: 'Adds two numbers; the sum is returned as structured content {"sum": a+b} and as JSON text.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number', description: 'First addend' }, b: { type: 'number', description: 'Second addend' } },
    required: ['a', 'b']
  },
  outputSchema: { type: 'object', properties: { sum: { type: 'number', description: 'a + b' } }, required: ['sum'] }
}, (args) => {
  const sum = args.a + args.b
  if (!Number.isFinite(sum)) throw new ToolError('The sum is too large to represent')
  return { content: [text(JSON.stringify({ sum }))], structuredContent: { sum } }
})

app.tool('sleep', {
  title: 'Sleep',
  description: 'Waits `ms` milliseconds, then returns "slept". With a progress token it reports progress ' +
    '`steps` times (default 1), spread over the wait. Cancellable.',
  inputSchema: {
    type: 'object',
    properties: {
      ms: { type: 'integer', minimum: 0, maximum: 60000, description: 'How long to wait, in milliseconds' },
      steps: { type: 'integer', minimum: 0, maximum: 10000, description: 'How many progress notifications to send when a progress token is given (default 1)' }
    },
    required: ['ms']
  },
  scopes: 'mcp:admin' // only under --auth-issuer: a basic token neither sees nor calls it
}, async (args, ctx) => {
  const steps = args.steps ?? 1
  if (!ctx.wantsProgress || steps === 0) {
    await ctx.sleep(args.ms)
    return 'slept'
  }
  // Step k at k/(steps+1) of the wait, so the last one is not glued to the answer; on
  // deadlines from the start, so that many steps do not stretch the wait.
  const start = performance.now()
  for (let i = 1; i <= steps + 1; i++) {
    const wait = start + args.ms * i / (steps + 1) - performance.now()
    if (wait >= 1) await ctx.sleep(wait) // behind schedule (timers are 1 ms at best): go on
    else if (ctx.signal.aborted) throw ctx.signal.reason
    if (i <= steps) ctx.progress(i, steps)
  }
  return 'slept'
})

app.tool('test_simple_text', { title: 'Simple text', description: 'Returns a simple text block (conformance fixture).', inputSchema: NO_ARGS },
  () => 'This is a simple text response for testing.')

app.tool('test_image_content', { title: 'Image content', description: 'Returns a 1x1 PNG image block (conformance fixture).', inputSchema: NO_ARGS },
  () => [image()])

app.tool('test_audio_content', { title: 'Audio content', description: 'Returns a short WAV audio block (conformance fixture).', inputSchema: NO_ARGS },
  (args, ctx) => {
    if (ctx.version === '2024-11-05') throw new ToolError('Audio content needs protocol revision 2025-03-26 or later')
    return [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }]
  })

app.tool('test_embedded_resource', { title: 'Embedded resource', description: 'Returns an embedded text resource (conformance fixture).', inputSchema: NO_ARGS },
  () => [embedded('test://embedded-resource', 'text/plain', 'This is an embedded resource content.')])

app.tool('test_multiple_content_types', { title: 'Multiple content types', description: 'Returns text, image and embedded resource blocks (conformance fixture).', inputSchema: NO_ARGS },
  () => [text('Multiple content types test:'), image(),
    embedded('test://mixed-content-resource', 'application/json', '{"test":"data","value":123}')])

app.tool('test_tool_with_logging', { title: 'Tool with logging', description: 'Sends three info log messages about 50 ms apart while it runs (conformance fixture).', inputSchema: NO_ARGS },
  async (args, ctx) => {
    const lines = ['Tool execution started', 'Tool processing data', 'Tool execution completed']
    for (let i = 0; i < lines.length; i++) {
      if (i) await ctx.sleep(50)
      ctx.log('info', lines[i], 'picomcp-demo')
    }
    return 'Tool with logging executed successfully'
  })

app.tool('test_tool_with_progress', { title: 'Tool with progress', description: 'Reports progress 0, 50 and 100 of 100, about 50 ms apart (conformance fixture).', inputSchema: NO_ARGS },
  async (args, ctx) => {
    const values = [0, 50, 100]
    for (let i = 0; i < values.length; i++) {
      if (i) await ctx.sleep(50)
      ctx.progress(values[i], 100)
    }
    return 'Tool with progress executed successfully'
  })

app.tool('test_error_handling', { title: 'Error handling', description: 'Always fails with a tool execution error, isError: true (conformance fixture).', inputSchema: NO_ARGS },
  () => { throw new ToolError('This tool intentionally returns an error for testing') })

// A question for the client; a refusal or failure becomes a tool error.
async function ask (ctx, method, params, failed, options) {
  try {
    return await ctx.ask(method, params, options)
  } catch (e) {
    if (e instanceof SendError) throw new ToolError(`Cannot ask the client (${method}): ${e.message}`)
    if (e instanceof McpError && e.name === 'McpError') throw new ToolError(`${failed} failed: ${e.message}`)
    throw e
  }
}

app.tool('test_sampling', {
  title: 'Sampling',
  description: "Asks the client's LLM to answer `prompt` (sampling/createMessage) and returns the answer (conformance fixture).",
  inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] }
}, async (args, ctx) => {
  const result = await ask(ctx, 'sampling/createMessage',
    { messages: [{ role: 'user', content: text(args.prompt) }], maxTokens: 100 }, 'Sampling')
  const blocks = Array.isArray(result.content) ? result.content : [result.content]
  const first = blocks.find((b) => b && b.type === 'text')
  return `LLM response: ${first ? first.text : JSON.stringify(result.content)}`
})

const ELICIT_BASIC = {
  type: 'object',
  properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
  required: ['username', 'email']
}
const ELICIT_DEFAULTS = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true }
  }
}
const UNTITLED = { type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] }
const LEGACY = { type: 'string', description: 'Legacy titled enum', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] }
const ELICIT_ENUMS = {
  type: 'object',
  properties: {
    untitledSingle: UNTITLED,
    titledSingle: {
      type: 'string',
      description: 'Titled single-select',
      oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }]
    },
    legacyEnum: LEGACY,
    untitledMulti: { type: 'array', description: 'Untitled multi-select', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: {
      type: 'array',
      description: 'Titled multi-select',
      items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] }
    }
  }
}
// 2025-06-18 knows only flat string enums.
const ELICIT_ENUMS_FLAT = { type: 'object', properties: { untitledSingle: UNTITLED, legacyEnum: LEGACY } }

async function elicit (ctx, message, schema, label) {
  const result = await ask(ctx, 'elicitation/create', { message, requestedSchema: schema }, 'Elicitation')
  return `${label}: action=${result.action ?? 'unknown'}, content=${JSON.stringify(result.content ?? {})}`
}

app.tool('test_elicitation', {
  title: 'Elicitation',
  description: 'Asks the user for a username and an email address (elicitation/create) and returns the answer (conformance fixture).',
  inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] }
}, (args, ctx) => elicit(ctx, args.message, ELICIT_BASIC, 'User response'))

app.tool('test_elicitation_sep1034_defaults', {
  title: 'Elicitation with defaults', description: 'Elicits a form whose fields all carry default values (SEP-1034, conformance fixture).', inputSchema: NO_ARGS
}, (args, ctx) => elicit(ctx, 'Please review and update the form fields with defaults', ELICIT_DEFAULTS, 'Elicitation completed'))

app.tool('test_elicitation_sep1330_enums', {
  title: 'Elicitation with enums', description: 'Elicits a form with every enum variant: untitled, titled, legacy, multi-select (SEP-1330, conformance fixture).', inputSchema: NO_ARGS
}, (args, ctx) => elicit(ctx, 'Please select options from the enum fields',
  ctx.version === '2025-06-18' ? ELICIT_ENUMS_FLAT : ELICIT_ENUMS, 'Elicitation completed'))

app.tool('json_schema_2020_12_tool', {
  title: 'JSON Schema 2020-12',
  description: 'Tool with JSON Schema 2020-12 features in its input schema; returns its arguments (conformance fixture).',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
    properties: {
      name: { type: 'string' },
      address: { $ref: '#/$defs/address' },
      contactMethod: { type: 'string', enum: ['phone', 'email'] },
      phone: { type: 'string' },
      email: { type: 'string' }
    },
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
    then: { required: ['phone'] },
    else: { required: ['email'] },
    additionalProperties: false
  }
}, (args) => `Received arguments: ${JSON.stringify(args)}`)

// ---- resources ----

app.resource('test://static-text', { name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' },
  () => 'This is the content of the static text resource.')
app.resource('test://static-binary', { name: 'static-binary', description: 'A static binary resource (a 1x1 PNG image)', mimeType: 'image/png' },
  (uri) => [{ uri, mimeType: 'image/png', blob: PNG }])
app.resource(WATCHED, { name: 'watched-resource', description: 'A resource that can be subscribed to', mimeType: 'text/plain' },
  () => 'Watched resource content')
app.resource('test://template/{id}/data', { name: 'template-data', description: 'A resource template with one parameter (conformance fixture)', mimeType: 'application/json' },
  (uri, ctx, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }))

// test://watched-resource "changes" every few seconds; the core tells whoever subscribed
// (resources/subscribe or subscriptions/listen), and nobody else. The timer does not keep
// the process alive after EOF.
app.onStartup((server) => {
  setInterval(() => { if (server.isSubscribed(WATCHED)) server.notify('notifications/resources/updated', WATCHED) }, WATCH_PERIOD_MS).unref()
})

// ---- the 0.2.0 conformance suite's diagnostic fixtures (2026-07-28) ----
// `ctx.ask` / `ctx.askAll`: in 2026-07-28 an `input_required` result (or -32021 without the
// capability) whose answers come back with the retry, the handler running again from the
// start; in the legacy era requests to the client. `state` travels as the requestState,
// sealed by the core (the Server's stateKey): a tampered one never reaches the handler.
const ELICIT_NAME = { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }
const ELICIT_CONFIRM = { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } }
const ELICIT_STEP1 = { message: 'Step 1: What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }
const ELICIT_STEP2 = { message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } }
const ELICIT_CONTEXT = { message: 'What context should the prompt use?', requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] } }
const sample = (prompt, maxTokens) => ({ messages: [{ role: 'user', content: text(prompt) }], maxTokens })
const ELICIT = 'elicitation/create'
const SAMPLE = 'sampling/createMessage'
const ROOTS = 'roots/list'

// Several questions at once; a refusal or failure becomes a tool error.
async function askAll (ctx, requests, state) {
  try {
    return await ctx.askAll(requests, { state })
  } catch (e) {
    if (e instanceof SendError) throw new ToolError(`Cannot ask the client: ${e.message}`)
    if (e instanceof McpError && e.name === 'McpError') throw new ToolError(`Asking the client failed: ${e.message}`)
    throw e
  }
}

app.tool('test_input_required_result_elicitation', { description: '2026-07-28: asks the user\'s name (input_required, elicitation), then says hello (conformance fixture).', inputSchema: NO_ARGS },
  async (args, ctx) => {
    const answer = await ask(ctx, ELICIT, ELICIT_NAME, 'Elicitation', { key: 'user_name' })
    return `Hello, ${(answer.content || {}).name ?? 'unknown'}!`
  })

app.tool('test_input_required_result_sampling', { description: '2026-07-28: asks the client\'s LLM a question (input_required, sampling), then returns the answer (conformance fixture).', inputSchema: NO_ARGS },
  async (args, ctx) => {
    const answer = await ask(ctx, SAMPLE, sample('What is the capital of France?', 100), 'Sampling', { key: 'capital_question' })
    return `LLM response: ${(answer.content || {}).text ?? ''}`
  })

app.tool('test_input_required_result_list_roots', { description: '2026-07-28: asks for the client\'s roots (input_required, roots/list), then lists them (conformance fixture).', inputSchema: NO_ARGS },
  async (args, ctx) => {
    const answer = await ask(ctx, ROOTS, {}, 'roots/list', { key: 'client_roots' })
    return `Client roots: ${JSON.stringify(answer.roots ?? [])}`
  })

// The confirmation with a requestState (and the same tool for the tampered-state check:
// the core refuses a state it did not seal with -32602 before the handler runs).
async function confirmWithState (args, ctx) {
  const STATE = 'confirm-v1'
  const answer = await ask(ctx, ELICIT, ELICIT_CONFIRM, 'Elicitation', { key: 'confirm', state: STATE })
  const ok = JSON.stringify((answer.content || {}).ok ?? null)
  if (!ctx.modern) return `confirmed ok=${ok}`
  if (ctx.requestState !== STATE) throw new ToolError('The requestState did not come back with the answer')
  return `state-ok: confirmed ok=${ok}`
}
app.tool('test_input_required_result_request_state', { description: '2026-07-28: asks for a confirmation with a requestState, then checks the echoed state (conformance fixture).', inputSchema: NO_ARGS }, confirmWithState)
app.tool('test_input_required_result_tampered_state', { description: '2026-07-28: answers with a sealed requestState; a tampered one is refused with -32602 (conformance fixture).', inputSchema: NO_ARGS }, confirmWithState)

app.tool('test_input_required_result_multiple_inputs', { description: '2026-07-28: asks for an elicitation, a sampling and the roots at once (conformance fixture).', inputSchema: NO_ARGS },
  async (args, ctx) => {
    await askAll(ctx, {
      user_name: { method: ELICIT, params: ELICIT_NAME },
      greeting: { method: SAMPLE, params: sample('Generate a greeting', 50) },
      client_roots: { method: ROOTS, params: {} }
    }, 'multi-v1')
    return `${ctx.modern ? 'state-ok: ' : ''}received all three inputs`
  })

// Two rounds: the state says how far the conversation got (a retry carries only the
// answers to the last round).
app.tool('test_input_required_result_multi_round', { description: '2026-07-28: asks two questions in two rounds, carried by requestState (conformance fixture).', inputSchema: NO_ARGS },
  async (args, ctx) => {
    if (ctx.requestState !== 'round-2') await ask(ctx, ELICIT, ELICIT_STEP1, 'Elicitation', { key: 'step1', state: 'round-1' })
    const answer = await ask(ctx, ELICIT, ELICIT_STEP2, 'Elicitation', { key: 'step2', state: 'round-2' })
    return `Favorite color: ${(answer.content || {}).color ?? 'unknown'}`
  })

// Only what the client declared (the request's capabilities in 2026-07-28).
app.tool('test_input_required_result_capabilities', { description: '2026-07-28: asks only with the capabilities the request declared (conformance fixture).', inputSchema: NO_ARGS },
  async (args, ctx) => {
    const caps = ctx.clientCapabilities
    const requests = {}
    if (caps.elicitation) requests.user_name = { method: ELICIT, params: ELICIT_NAME }
    if (caps.sampling) requests.capital_question = { method: SAMPLE, params: sample('What is the capital of France?', 100) }
    if (!Object.keys(requests).length) return 'The client declared nothing to ask with'
    await askAll(ctx, requests)
    return 'Received the declared inputs'
  })

app.tool('test_missing_capability', { description: 'Needs the client\'s sampling; in 2026-07-28 without it declared, -32021 (conformance fixture).', inputSchema: NO_ARGS },
  async (args, ctx) => {
    await ask(ctx, SAMPLE, sample('Say hello', 50), 'Sampling')
    return 'The client declared sampling and answered'
  })

app.tool('test_streaming_elicitation', { description: 'Asks for a confirmation (in 2026-07-28 an input_required result on the request\'s own stream; conformance fixture).', inputSchema: NO_ARGS },
  async (args, ctx) => {
    await ask(ctx, ELICIT, { message: 'Continue?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } }, 'Elicitation', { key: 'confirm' })
    return 'Elicitation answered'
  })

app.tool('test_logging_tool', { description: 'Sends one info log message, only to a request that asked for that level (conformance fixture).', inputSchema: NO_ARGS },
  (args, ctx) => ctx.log('info', 'test_logging_tool was called', 'picomcp-demo')
    ? 'Logged one info message'
    : 'No log message: info was not asked for')

app.tool('test_trigger_tool_change', { description: 'Announces that the tool list changed (conformance fixture).', inputSchema: NO_ARGS },
  () => { app.notify('notifications/tools/list_changed'); return 'Tool list change announced' })

app.tool('test_trigger_prompt_change', { description: 'Announces that the prompt list changed (conformance fixture).', inputSchema: NO_ARGS },
  () => { app.notify('notifications/prompts/list_changed'); return 'Prompt list change announced' })

// ---- prompts ----

const user = (content) => ({ role: 'user', content })

app.prompt('test_simple_prompt', { description: 'A simple prompt without arguments' },
  () => [user(text('This is a simple prompt for testing.'))])
app.prompt('test_prompt_with_arguments', {
  description: 'A prompt with two required arguments',
  arguments: [{ name: 'arg1', description: 'First test argument', required: true }, { name: 'arg2', description: 'Second test argument', required: true }]
}, (args) => [user(text(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`))])
app.prompt('test_prompt_with_embedded_resource', {
  description: 'A prompt that embeds a resource',
  arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }]
}, (args) => [user(embedded(String(args.resourceUri), 'text/plain', 'Embedded resource content for testing.')),
  user(text('Please process the embedded resource above.'))])
app.prompt('test_prompt_with_image', { description: 'A prompt with image content' },
  () => [user(image()), user(text('Please analyze the image above.'))])
// Asks the user for context first when the client can be asked (2026-07-28: an
// input_required answer to prompts/get, then the retry; legacy: an elicitation request).
app.prompt('test_input_required_result_prompt', { description: 'A prompt that asks the user for its context first (2026-07-28: input_required; conformance fixture)' },
  async (args, ctx) => {
    let context = 'no context given'
    if (ctx.clientCapabilities.elicitation) {
      try {
        const answer = await ctx.ask(ELICIT, ELICIT_CONTEXT, { key: 'user_context' })
        if (answer.action === 'accept' && typeof (answer.content || {}).context === 'string') context = answer.content.context
      } catch (e) {
        // A legacy revision without elicitation (2024-11-05, 2025-03-26), whatever the
        // client declared: the prompt goes without context (as the Python demo's).
        if (!(e instanceof SendError)) throw e
      }
    }
    return [user(text(`Write a short summary using this context: ${context}`))]
  })

// ---- completions ----

const prefixed = (candidates) => (value) => candidates.filter((c) => c.startsWith(value))
app.completion('test_prompt_with_arguments', 'arg1', prefixed(['paris', 'park', 'party', 'hello', 'help', 'testValue1']))
app.completion('test_prompt_with_arguments', 'arg2', prefixed(['world', 'word', 'work', 'testValue2']))
app.completion('test_prompt_with_embedded_resource', 'resourceUri',
  prefixed(['test://static-text', 'test://static-binary', WATCHED, 'test://template/1/data']))
app.completion('test://template/{id}/data', 'id', prefixed(['1', '2', '3', '42', '123']))

// --auth-issuer URL [--auth-jwks URL] [--auth-resource URL] [--auth-required SCOPES]
// (with --http): an OAuth 2.1 protected resource. jose verifies a JWT's signature against
// the issuer's JWKS (createRemoteJWKSet on its metadata's jwks_uri) and its issuer; the
// core checks audience, expiry and scopes (every request `mcp`; sleep also `mcp:admin`).
// The token is never kept or forwarded.
const AUTH_FLAGS = ['--auth-issuer', '--auth-jwks', '--auth-resource', '--auth-required']
function takeAuthFlags (argv) {
  const flags = {}
  const rest = []
  for (let i = 0; i < argv.length; i++) {
    const [name, ...inline] = argv[i].split('=')
    if (!AUTH_FLAGS.includes(name)) { rest.push(argv[i]); continue }
    const value = inline.length ? inline.join('=') : argv[++i]
    if (value === undefined) throw new Error(`${name} needs a value`)
    flags[name.slice(7)] = value
  }
  return { flags, rest }
}

async function jwksUrl (issuer) {
  const base = issuer.replace(/\/+$/, '')
  for (const suffix of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    try {
      const r = await fetch(base + suffix, { redirect: 'manual' })
      if (r.ok) {
        const uri = (await r.json()).jwks_uri
        if (uri) return uri
      }
    } catch {}
  }
  throw new Error(`no jwks_uri in the metadata of ${issuer}`)
}

function jwtVerifier (issuer, jwks) {
  let keys = null
  return async (token) => {
    const { createRemoteJWKSet, jwtVerify } = await import('jose')
    try {
      keys ??= createRemoteJWKSet(new URL(jwks ?? await jwksUrl(issuer)))
      // Audience and expiry are the core's checks (canonical comparison, leeway).
      const { payload } = await jwtVerify(token, keys, { issuer, clockTolerance: Number.MAX_SAFE_INTEGER })
      return payload
    } catch (e) {
      app.diag('info', `token refused: ${e.message}`)
      return null
    }
  }
}

const { flags, rest } = takeAuthFlags(process.argv.slice(2))
if (flags.issuer) {
  const i = rest.findIndex((a) => a === '--http' || a.startsWith('--http='))
  const addr = i < 0 ? '127.0.0.1:8000' : (rest[i].includes('=') ? rest[i].split('=')[1] : rest[i + 1])
  app.httpAuth = {
    verify: jwtVerifier(flags.issuer, flags.jwks),
    resource: flags.resource ?? `http://${addr}/mcp`,
    authorizationServers: [flags.issuer],
    scopes: ['mcp', 'mcp:admin'],
    scopesSupported: ['mcp'],
    required: flags.required ?? 'mcp',
    resourceName: 'picomcp demo (Node)'
  }
}
process.exitCode = await app.run(rest)
