#!/usr/bin/env bash
# Builds the Node package in place: npm ci (the napi-rs CLI, zod for the tests), then the
# native addon (picomcp.linux-x64-gnu.node) and its generated loader and types (native.js,
# native.d.ts, checked in), then installs examples/node's dependencies (this package and
# zod). Idempotent and quick when nothing changed.
#
#   bindings/node/build.sh            build
#   bindings/node/build.sh --check    build, then fail if the generated files drifted
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x node_modules/.bin/napi ] || [ ! -f node_modules/zod/package.json ]; then
  npm ci --silent --ignore-scripts --no-audit --no-fund >&2
fi
node_modules/.bin/napi build --platform --release --strip --js native.js --dts native.d.ts >&2
# The examples (examples/node) use the package as a user installs it: `picomcp` from this
# folder (npm links it and runs its install script, which finds the addon built above) and zod.
# (jose: the Node demo's token verifier under --auth-issuer.)
if [ ! -f ../../examples/node/node_modules/zod/package.json ] || [ ! -e ../../examples/node/node_modules/picomcp ] ||
  [ ! -f ../../examples/node/node_modules/jose/package.json ]; then
  (cd ../../examples/node && npm ci --silent --no-audit --no-fund >&2)
fi
if [ "${1:-}" = "--check" ]; then
  git diff --exit-code -- native.js native.d.ts >&2 || {
    echo "bindings/node: native.js / native.d.ts differ from the checked-in files: run bindings/node/build.sh and commit them" >&2
    exit 1
  }
fi
