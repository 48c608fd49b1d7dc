'use strict'
// What the vector runners (vectors.test.js, vectors_http.test.js) share: the subset match
// of tests/vectors/README.md and the names of the `notify` step's changes.

/** Subset match (README): every listed member matches; arrays element by element; "<any>" is anything present. */
function matches (expected, actual) {
  if (expected === '<any>') return actual !== undefined && actual !== null
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && expected.length === actual.length && expected.every((x, i) => matches(x, actual[i]))
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false
    return Object.entries(expected).every(([k, v]) => Object.hasOwn(actual, k) && matches(v, actual[k]))
  }
  return expected === actual
}

const NOTIFY = {
  tools_list_changed: 'notifications/tools/list_changed',
  prompts_list_changed: 'notifications/prompts/list_changed',
  resources_list_changed: 'notifications/resources/list_changed'
}

module.exports = { matches, NOTIFY }
