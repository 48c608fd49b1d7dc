'use strict'
/**
 * The monotonic clock every session of the package is driven by: whole milliseconds since
 * this module loaded. `process.hrtime` rather than `performance.now`: the `performance`
 * global loads `perf_hooks` and seven modules behind it on first use (about 0.5 MiB of
 * resident memory for a stdio server that needs none of them).
 */
const start = process.hrtime()[0]

/** Milliseconds since the package loaded (monotonic). */
function now () {
  const t = process.hrtime()
  return (t[0] - start) * 1000 + Math.floor(t[1] / 1e6)
}

module.exports = { now }
