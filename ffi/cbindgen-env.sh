# Sourced by ffi/gen-header.sh and ffi/check-header.sh: finds (or installs) the pinned
# cbindgen and sets $CBINDGEN. Debian's cbindgen (0.24) cannot parse edition-2024 code;
# only the pinned version is accepted, because another version formats the header
# differently and the drift check would fail.
CBINDGEN_VERSION=0.29.4
cbindgen_ok() { [ -x "$1" ] && [ "$("$1" --version 2>/dev/null)" = "cbindgen $CBINDGEN_VERSION" ]; }
find_cbindgen() {
  local c
  for c in "${CBINDGEN:-}" "${CARGO_HOME:-$HOME/.cargo}/bin/cbindgen" "$(command -v cbindgen || true)" \
           "$ROOT/target/tools/bin/cbindgen"; do
    if [ -n "$c" ] && cbindgen_ok "$c"; then CBINDGEN=$c; return 0; fi
  done
  echo "installing cbindgen $CBINDGEN_VERSION into target/tools (about 2 minutes, once)" >&2
  cargo install --locked cbindgen --version "$CBINDGEN_VERSION" --root "$ROOT/target/tools" >&2
  CBINDGEN=$ROOT/target/tools/bin/cbindgen
  cbindgen_ok "$CBINDGEN" || { echo "cbindgen $CBINDGEN_VERSION did not install" >&2; return 1; }
}
# The library version in the header (cbindgen.toml) must be the crate's.
check_version_string() {
  local v
  v=$(cargo metadata --no-deps --format-version 1 | python3 -c 'import json,sys;print([p["version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="picomcp-ffi"][0])')
  grep -q "PICOMCP_LIB_VERSION_STRING \"$v\"" "$ROOT/ffi/cbindgen.toml" ||
    { echo "ffi/cbindgen.toml: PICOMCP_LIB_VERSION_STRING is not \"$v\"" >&2; return 1; }
}
