#!/usr/bin/env node
'use strict'
// Packs the npm tarball: the package (lib/, scripts/, the loader and types), the addon
// built for this platform (run build.sh first), and the Rust sources made standalone, so
// that on another platform the install script can build the addon with cargo: this
// crate's src/ and build.rs, the core copied to crates/picomcp, manifests without the
// workspace's inheritance, and the workspace's Cargo.lock.
//
//   node bindings/node/scripts/pack.js [--out DIR]      -> DIR/picomcp-VERSION.tgz (default: the current folder)
//
// (A plain `npm pack` in bindings/node gives the package without sources: the addon only.)
const { execFileSync } = require('node:child_process')
const { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs')
const { join, resolve } = require('node:path')

const PKG = resolve(__dirname, '..')
const ROOT = resolve(PKG, '..', '..')
const outIndex = process.argv.indexOf('--out')
const out = resolve(outIndex > 0 ? process.argv[outIndex + 1] : '.')
const stage = join(ROOT, 'target', 'npm-pack', 'picomcp')

/** `[section]` tables of a TOML text, as {name: body}; enough for our manifests. */
function sections (text) {
  const out = { '': '' }
  let name = ''
  for (const line of text.split('\n')) {
    const m = /^\[([^\]]+)\]\s*$/.exec(line)
    if (m) { name = m[1]; out[name] = out[name] ?? ''; continue }
    out[name] += line + '\n'
  }
  return out
}
const value = (body, key) => {
  const m = new RegExp(`^${key.replace(/[-]/g, '\\-')}\\s*=\\s*(.+)$`, 'm').exec(body)
  if (!m) throw new Error(`pack: ${key} not found in the workspace manifest`)
  return m[1].trim()
}
const ws = sections(readFileSync(join(ROOT, 'Cargo.toml'), 'utf8'))

/** A member's manifest without workspace inheritance (`x.workspace = true` spelled out). */
function standalone (text) {
  return text
    .replace(/^(\w[\w-]*)\.workspace\s*=\s*true\s*$/gm, (_, k) =>
      `${k} = ${value(ws['workspace.package'] + ws['workspace.dependencies'], k)}`)
}

rmSync(stage, { recursive: true, force: true })
mkdirSync(stage, { recursive: true })
const pkg = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'))
for (const f of ['README.md', 'package.json', 'lib', 'scripts', 'native.js', 'native.d.ts', 'src', 'build.rs']) {
  cpSync(join(PKG, f), join(stage, f), { recursive: true })
}
const addon = require('../lib/addon.js').addonPath()
if (!existsSync(addon)) throw new Error(`pack: ${addon} is missing: run bindings/node/build.sh first`)
cpSync(addon, join(stage, require('node:path').basename(addon)))

// The core: its sources, a manifest without dev-dependencies and benches (not built here).
const core = join(stage, 'crates', 'picomcp')
mkdirSync(core, { recursive: true })
cpSync(join(ROOT, 'core', 'src'), join(core, 'src'), { recursive: true })
cpSync(join(ROOT, 'core', 'README.md'), join(core, 'README.md'))
const coreToml = standalone(readFileSync(join(ROOT, 'core', 'Cargo.toml'), 'utf8')).split(/^\[dev-dependencies\]/m)[0]
writeFileSync(join(core, 'Cargo.toml'), coreToml)

// This crate: the core by its new path, its own (empty) workspace, the release profile.
let toml = standalone(readFileSync(join(PKG, 'Cargo.toml'), 'utf8'))
  .replace('path = "../../core"', 'path = "crates/picomcp"')
toml += `\n[workspace]\n\n[profile.release]\n${ws['profile.release'].trim()}\n`
writeFileSync(join(stage, 'Cargo.toml'), toml)
cpSync(join(ROOT, 'Cargo.lock'), join(stage, 'Cargo.lock'))

pkg.files = [...pkg.files, 'Cargo.toml', 'Cargo.lock', 'build.rs', 'src/', 'crates/']
delete pkg.devDependencies
writeFileSync(join(stage, 'package.json'), JSON.stringify(pkg, null, 2) + '\n')

mkdirSync(out, { recursive: true })
const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], { cwd: stage, encoding: 'utf8' }).trim().split('\n').pop()
process.stdout.write(join(out, name) + '\n')
