// The no-library Node floor (the shared bench's baseline_echo.mjs, given as the argument)
// with zod loaded first, as `import { z } from 'zod'` loads it (examples/node's zod): what
// bare Node plus zod takes, the reference for the zod-typed Node echo's peak RSS
// (bench/run.sh --bindings, label floor-node-zod).
//   node bench/node_floor_zod.mjs ~/.cache/picomcp-bench/servers/baseline/baseline_echo.mjs
await import(new URL('../examples/node/node_modules/zod/index.js', import.meta.url))
await import(process.argv[2])
