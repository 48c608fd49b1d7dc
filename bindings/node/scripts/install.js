#!/usr/bin/env node
'use strict'
// The package's install script: nothing to do when the addon for this platform is bundled
// (an `npm pack` tarball made on this platform); otherwise it builds the addon from the
// Rust sources with cargo (an install from the repository folder), or says clearly what
// is missing. PICOMCP_SKIP_BUILD=1 skips the build.
const { spawnSync } = require('node:child_process')
const { copyFileSync, existsSync, mkdtempSync, rmSync } = require('node:fs')
const { tmpdir } = require('node:os')
const { join } = require('node:path')
const { load, addonPath, missingMessage, platformName, PACKAGE_DIR } = require('../lib/addon.js')

function loads () {
  try { load(); return true } catch { return false }
}

function fail (message) {
  process.stderr.write(`\n${message}\n\n`)
  process.exit(1)
}

if (loads()) process.exit(0)
if (process.env.PICOMCP_SKIP_BUILD) {
  process.stderr.write('picomcp: PICOMCP_SKIP_BUILD is set; the native addon is not built\n')
  process.exit(0)
}
if (!existsSync(join(PACKAGE_DIR, 'Cargo.toml'))) fail(missingMessage())

const cargo = process.env.CARGO || 'cargo'
if (spawnSync(cargo, ['--version'], { stdio: 'ignore' }).status !== 0) {
  fail(`picomcp: no native addon for ${platformName()}, and Rust is not installed to build it.\n` +
    'Install Rust >= 1.88 (https://rustup.rs; cargo must be on PATH), then run `npm rebuild picomcp`.')
}

process.stderr.write(`picomcp: building the native addon for ${platformName()} with cargo (a minute or two the first time)\n`)
// A packed package (scripts/pack.js: the core in crates/) builds in a temporary target
// folder, removed afterwards, so that node_modules does not keep 100 MB of build files; in
// the repository the workspace's target/ is used. `cargo rustc` so that only the addon
// itself is stripped (what `napi build --strip` gives).
const packed = existsSync(join(PACKAGE_DIR, 'crates'))
const targetDir = packed ? mkdtempSync(join(tmpdir(), 'picomcp-build-')) : null
const build = spawnSync(cargo, ['rustc', '--release', '--lib', '--message-format=json-render-diagnostics',
  '--manifest-path', join(PACKAGE_DIR, 'Cargo.toml'), ...(targetDir ? ['--target-dir', targetDir] : []),
  '--', '-C', 'strip=symbols'],
{ cwd: PACKAGE_DIR, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 28 })
const cleanup = () => { if (targetDir) rmSync(targetDir, { recursive: true, force: true }) }
process.on('exit', cleanup)
if (build.status !== 0) fail(`picomcp: cargo build failed (status ${build.status}); see the messages above.`)

// The cdylib cargo just built (its name and place depend on the platform and workspace).
let built = null
for (const line of build.stdout.split('\n')) {
  if (!line.startsWith('{')) continue
  const m = JSON.parse(line)
  if (m.reason === 'compiler-artifact' && m.target && m.target.name === 'picomcp_node' && m.target.kind.includes('cdylib')) {
    built = m.filenames.find((f) => /\.(so|dylib|dll)$/.test(f)) || built
  }
}
if (!built) fail('picomcp: cargo built no cdylib for picomcp_node')
copyFileSync(built, addonPath())
if (!loads()) fail(missingMessage())
process.stderr.write(`picomcp: built ${addonPath()}\n`)
