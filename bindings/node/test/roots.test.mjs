// rootsContain: the core's roots containment (picomcp::uri::roots), as Node sees it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const picomcp = require('../lib/index.js')
const ROOTS = ['file:///home/ann/project', 'file:///tmp/scratch/']

test('inside, outside, traversal', () => {
  const rows = [
    ['/home/ann/project/src/main.rs', 0],
    ['file:///tmp/scratch/a%20b.txt', 1],
    ['/home/ann/project', 0],
    ['/home/ann/project/../secrets', null],
    ['file:///home/ann/project/%2e%2e/x', null],
    ['/home/ann/projectile', null],
    ['/HOME/ann/project/x', null]
  ]
  for (const [target, want] of rows) assert.equal(picomcp.rootsContain(ROOTS, target), want, target)
})

test('case and Windows rules', () => {
  assert.equal(picomcp.rootsContain(ROOTS, '/HOME/Ann/project/x', { caseInsensitive: true }), 0)
  const win = ['file:///C:/Users/ann']
  assert.equal(picomcp.rootsContain(win, 'c:\\users\\ann\\x', { caseInsensitive: true, windows: true }), 0)
  assert.equal(picomcp.rootsContain(win, 'C:\\Users\\ann\\..\\bob', { windows: true }), null)
})

test('what it cannot judge throws a TypeError', () => {
  for (const target of [
    'file://evil.com/home/ann/project/x',
    'file:///home/ann/project/..%2F..%2Fetc',
    'file:///home/ann/project/a%00',
    'file:///home/ann/project/x?y=1',
    'relative/path'
  ]) assert.throws(() => picomcp.rootsContain(ROOTS, target), TypeError, target)
  assert.equal(picomcp.rootsContain([], '/x'), null)
  assert.equal(picomcp.rootsContain(['file://evil.com/x', 'file:///x'], '/x/y'), 1)
  assert.throws(() => picomcp.rootsContain(['file://evil.com/x'], '/x/y'), /root 0/)
})
