'use strict'
/**
 * While a server serves stdio, only the protocol writes to stdout: `console.log`,
 * `console.info`, `console.debug` (and anything else that calls `process.stdout.write`)
 * go to stderr. The server writes through the original `write`, kept here.
 *
 * The limit: this works inside this process only. A child process that inherits fd 1
 * (`spawn(cmd, { stdio: 'inherit' })`) writes straight into the protocol stream; spawn
 * children with `stdio: ['ignore', 'pipe', 'inherit']` or `['ignore', 2, 2]` instead.
 */

/**
 * Redirects stdout to stderr; returns `{ output, restore }`: `output` is a stream-like
 * object that writes to the real stdout (what the server writes through), `restore()`
 * puts everything back.
 */
function guardStdout () {
  const stdout = process.stdout
  const stderr = process.stderr
  const realWrite = stdout.write
  const saved = { log: console.log, info: console.info, debug: console.debug }
  const toStderr = (chunk, encoding, callback) => stderr.write(chunk, encoding, callback)
  stdout.write = toStderr
  // The global console may hold its own reference to the stream's write: point the three
  // methods that print to stdout at `console.error` (the same formatting, on stderr). Not
  // a `new console.Console` on stderr: building one costs about 0.9 MiB of resident memory.
  console.log = console.info = console.debug = console.error
  const output = {
    write: (chunk, callback) => realWrite.call(stdout, chunk, callback),
    on: (event, fn) => { stdout.on(event, fn); return output },
    once: (event, fn) => { stdout.once(event, fn); return output }
  }
  return {
    output,
    restore () {
      if (stdout.write === toStderr) stdout.write = realWrite
      Object.assign(console, saved)
    }
  }
}

module.exports = { guardStdout }
