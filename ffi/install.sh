#!/usr/bin/env bash
# Installs picomcp's C API under PREFIX, `make install` style:
#   PREFIX/include/picomcp.h
#   PREFIX/lib/libpicomcp.a, libpicomcp.so.X.Y.Z (+ .so.X and .so symlinks)
#   PREFIX/lib/pkgconfig/picomcp.pc, picomcp-static.pc
#   PREFIX/lib/cmake/picomcp/picomcpConfig.cmake, picomcpConfigVersion.cmake
# usage: ffi/install.sh PREFIX        (e.g. /usr/local, $HOME/.local, /tmp/x)
# DESTDIR is honoured as usual (files go to $DESTDIR$PREFIX, paths inside say $PREFIX).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: ffi/install.sh PREFIX" >&2; exit 2; }
PREFIX=$1
case $PREFIX in /*) ;; *) PREFIX=$(cd "$PREFIX" 2>/dev/null && pwd || echo "$PWD/$PREFIX");; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
CARGO=${CARGO:-cargo}
"$CARGO" build --quiet --release -p picomcp-ffi
VERSION=$("$CARGO" metadata --no-deps --format-version 1 |
  python3 -c 'import json,sys;print([p["version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="picomcp-ffi"][0])')
MAJOR=${VERSION%%.*}; MINOR=${VERSION#*.}; MINOR=${MINOR%%.*}
# What the static library needs from the system, as rustc reports it.
NATIVE_LIBS=$("$CARGO" rustc --quiet --release -p picomcp-ffi --crate-type staticlib -- --print native-static-libs 2>&1 |
  sed -n 's/.*native-static-libs: //p' | tail -n 1)
[ -n "$NATIVE_LIBS" ] || NATIVE_LIBS="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"
CMAKE_NATIVE_LIBS=$(echo "$NATIVE_LIBS" | sed 's/-l//g; s/ \+/;/g')
SONAME=libpicomcp.so.$MAJOR
D=${DESTDIR:-}$PREFIX
install -d "$D/include" "$D/lib/pkgconfig" "$D/lib/cmake/picomcp"
install -m 644 include/picomcp.h "$D/include/picomcp.h"
install -m 644 target/release/libpicomcp.a "$D/lib/libpicomcp.a"
install -m 755 target/release/libpicomcp.so "$D/lib/libpicomcp.so.$VERSION"
ln -sf "libpicomcp.so.$VERSION" "$D/lib/$SONAME"
ln -sf "$SONAME" "$D/lib/libpicomcp.so"
subst() {
  sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$VERSION|g" -e "s|@MAJOR@|$MAJOR|g" -e "s|@MINOR@|$MINOR|g" \
      -e "s|@NATIVE_LIBS@|$NATIVE_LIBS|g" -e "s|@CMAKE_NATIVE_LIBS@|$CMAKE_NATIVE_LIBS|g" -e "s|@SONAME@|$SONAME|g" "$1" > "$2"
  chmod 644 "$2"
}
subst ffi/pkg/picomcp.pc.in "$D/lib/pkgconfig/picomcp.pc"
subst ffi/pkg/picomcp-static.pc.in "$D/lib/pkgconfig/picomcp-static.pc"
subst ffi/pkg/picomcpConfig.cmake.in "$D/lib/cmake/picomcp/picomcpConfig.cmake"
subst ffi/pkg/picomcpConfigVersion.cmake.in "$D/lib/cmake/picomcp/picomcpConfigVersion.cmake"
echo "installed picomcp $VERSION under ${DESTDIR:-}$PREFIX"
