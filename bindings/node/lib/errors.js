'use strict'
// Error classes. A caller mistake throws; a misbehaving peer is an event, never a throw.

class PicomcpError extends Error {
  /** `kind`: the core's name for what went wrong (`NotInVersion`, `Full`, ...), when known. */
  constructor (message, kind) {
    super(message)
    this.name = this.constructor.name
    if (kind !== undefined) this.kind = kind
  }
}
/** The session configuration is invalid (thrown by `new Session(...)`). */
class ConfigError extends PicomcpError {}
/** A request, notification, log or progress message cannot be sent now. Nothing was queued. */
class SendError extends PicomcpError {}
/** A request cannot be answered that way. Nothing was queued. */
class RespondError extends PicomcpError {}
/** The transmit queue has no room: write out `pollTransmit()` and try again. */
class QueueFull extends PicomcpError {}
/**
 * The server layer refused an answer (structured content that does not match the tool's
 * `outputSchema`, a block the revision lacks, ...). Nothing was sent; the request is
 * still open.
 */
class ResultError extends PicomcpError {}

const CLASSES = { ConfigError, SendError, RespondError, QueueFull, ResultError, TypeError }

/** Calls into the native session, rethrowing its errors as the package's classes. */
function call (fn) {
  try {
    return fn()
  } catch (e) {
    const m = /^(\w+)(?:\[(\w+)\])?: ([\s\S]*)$/.exec(e && e.message)
    if (m && CLASSES[m[1]]) {
      if (CLASSES[m[1]] === TypeError) throw new TypeError(m[3])
      throw new CLASSES[m[1]](m[3], m[2])
    }
    throw e
  }
}

module.exports = { PicomcpError, ConfigError, SendError, RespondError, QueueFull, ResultError, call }
