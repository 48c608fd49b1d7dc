'use strict'
/**
 * Loads the native addon through the generated loader (`native.js`). When no addon for
 * this platform is there, the generated loader ends with a message about
 * `picomcp-wasm32-wasi`, a package that does not exist; this says instead what is missing
 * and how to build it. Also used by `scripts/install.js`.
 */
const { existsSync } = require('node:fs')
const { join } = require('node:path')

const PACKAGE_DIR = join(__dirname, '..')

/** The napi-rs platform name of this machine (`linux-x64-gnu`, `darwin-arm64`, ...). */
function platformName () {
  const { platform, arch } = process
  if (platform === 'linux') {
    const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null
    const glibc = report && report.header && report.header.glibcVersionRuntime
    const abi = arch === 'arm' ? 'gnueabihf' : 'gnu'
    return `linux-${arch}-${glibc === undefined && report ? 'musl' : abi}`
  }
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

/** Where the addon of this platform is expected. */
const addonPath = () => join(PACKAGE_DIR, `picomcp.${platformName()}.node`)

/** The message for a machine without a loadable addon. */
function missingMessage (cause) {
  const file = addonPath()
  const canBuild = existsSync(join(PACKAGE_DIR, 'Cargo.toml'))
  const lines = [
    existsSync(file)
      ? `picomcp: the native addon ${file} does not load: ${cause && cause.message}`
      : `picomcp: no native addon for ${platformName()} (expected ${file}).`
  ]
  if (canBuild) {
    lines.push('It is built from the Rust sources (Rust >= 1.88 with cargo on PATH; https://rustup.rs):',
      `  node ${join(PACKAGE_DIR, 'scripts', 'install.js')}     (or: npm rebuild picomcp)`)
  } else {
    lines.push('This package has no Rust sources to build it from: install picomcp from its repository',
      '(npm install <repository>/bindings/node, with Rust >= 1.88), or a package packed on this platform.')
  }
  return lines.join('\n')
}

/** The addon's exports, or an Error saying how to build it. */
function load () {
  try {
    return require('../native.js')
  } catch (e) {
    const err = new Error(missingMessage(e), { cause: e })
    err.code = 'PICOMCP_NO_ADDON'
    throw err
  }
}

module.exports = { load, platformName, addonPath, missingMessage, PACKAGE_DIR }
