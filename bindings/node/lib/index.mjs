// The package as an ES module: `import { Server, Session } from 'picomcp'`. The same
// objects as `require('picomcp')` (this re-exports the CommonJS module, so there is one
// copy of every class). test/esm.test.mjs checks that both export the same names.
import picomcp from './index.js'

export const {
  Session, ServerLayer, Endpoint, PicomcpError, ConfigError, SendError, RespondError, QueueFull, ResultError,
  PROTOCOL_VERSIONS, FEATURES, features, rootsContain, version,
  Server, Context, McpError, ToolError, ResourceNotFound, InputRequired,
  text, image, audio, resourceLink, embeddedResource
} = picomcp
export default picomcp
