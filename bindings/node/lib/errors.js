'use strict'
// Error classes. A caller mistake throws; a misbehaving peer is an event, never a throw.

class PicomcpError extends Error {
  constructor (message) { super(message); this.name = this.constructor.name }
}
/** The session configuration is invalid (thrown by `new Session(...)`). */
class ConfigError extends PicomcpError {}
/** A request, notification, log or progress message cannot be sent now. Nothing was queued. */
class SendError extends PicomcpError {}
/** A request cannot be answered that way. Nothing was queued. */
class RespondError extends PicomcpError {}
/** The transmit queue has no room: write out `pollTransmit()` and try again. */
class QueueFull extends PicomcpError {}

const CLASSES = { ConfigError, SendError, RespondError, QueueFull, TypeError }

/** Calls into the native session, rethrowing its errors as the package's classes. */
function call (fn) {
  try {
    return fn()
  } catch (e) {
    const m = /^(\w+): ([\s\S]*)$/.exec(e && e.message)
    if (m && CLASSES[m[1]]) throw new CLASSES[m[1]](m[2])
    throw e
  }
}

module.exports = { PicomcpError, ConfigError, SendError, RespondError, QueueFull, call }
