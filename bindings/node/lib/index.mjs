// The package as an ES module: `import { Server, Session } from 'picomcp'`. The same
// objects as `require('picomcp')` (this re-exports the CommonJS module, so there is one
// copy of every class). test/esm.test.mjs checks that both export the same names.
// Loaded with `require`, not `import`: importing a CommonJS file makes Node scan its
// source for export names (cjs-module-lexer, a WebAssembly module), which costs about
// 5 MiB of resident memory for the life of the process.
import { createRequire } from 'node:module'
const picomcp = createRequire(import.meta.url)('./index.js')

export const {
  Session, ServerLayer, Endpoint, PicomcpError, ConfigError, SendError, RespondError, QueueFull, ResultError,
  PROTOCOL_VERSIONS, FEATURES, features, rootsContain, version,
  Server, Context, McpError, ToolError, ResourceNotFound, InputRequired,
  text, image, audio, resourceLink, embeddedResource
} = picomcp
export default picomcp
