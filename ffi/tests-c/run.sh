#!/usr/bin/env bash
# The C API's test suite. Installs what it needs (valgrind, pkg-config, cmake from apt;
# cbindgen 0.29.4 and nightly Miri with rustup/cargo) and runs:
#
#   header    include/picomcp.h and ffi/src/generated.rs match the code (ffi/check-header.sh)
#   lint      cargo fmt --check and clippy -D warnings for picomcp-ffi
#   rust      the Rust-side tests (cargo test -p picomcp-ffi)
#   asan      C99 tests (-std=c99 -Wall -Wextra -Werror -pedantic) and the header as C++17,
#             under AddressSanitizer + UndefinedBehaviorSanitizer: test_api, test_vectors
#             (tests/vectors/*.jsonl through the C API), test_vectors_http
#             (tests/vectors/http/*.jsonl through the C API's endpoint), test_malformed
#             (tests/malformed/cases.jsonl through the C API), test_cpp
#   valgrind  the same tests, plain builds, under valgrind memcheck (0 errors, 0 leaks)
#   shared    test_api linked against libpicomcp.so
#   controls  a deliberate leak must be caught by LeakSanitizer and by valgrind
#   demo      examples/c built with make, then a scripted stdio session under ASan and
#             under valgrind
#   install   ffi/install.sh into a temporary prefix; pkg-config (shared and static) and
#             find_package(picomcp) consumers; the demo's CMake build against it
#   miri      cargo +nightly miri test -p picomcp-ffi
#
#   ffi/tests-c/run.sh [STEP...]     (default: all; last line: "N passed, M failed")
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=$ROOT/target/c-tests
mkdir -p "$OUT"
STEPS=(header lint rust asan valgrind shared controls demo install miri)
[ $# -gt 0 ] && STEPS=("$@")
LIB=$ROOT/target/release/libpicomcp.a
SYSLIBS="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"
CWARN="-std=c99 -Wall -Wextra -Werror -pedantic"
XWARN="-std=c++17 -Wall -Wextra -Werror -pedantic"
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
VALGRIND="valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all --error-exitcode=9"
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1
CASES=$ROOT/tests/malformed/cases.jsonl
VECTORS=("$ROOT"/tests/vectors/*.jsonl)
HTTP_VECTORS=("$ROOT"/tests/vectors/http/*.jsonl)

need_packages() {
  local missing=()
  command -v valgrind >/dev/null || missing+=(valgrind)
  command -v pkg-config >/dev/null || missing+=(pkg-config)
  command -v cmake >/dev/null || missing+=(cmake)
  command -v g++ >/dev/null || missing+=(g++)
  [ -e /usr/include/openssl/evp.h ] || missing+=(libssl-dev) # the C demo's --auth-issuer (examples/c/auth.c)
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null; }
  else
    sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

build_lib() { cargo build --quiet --release -p picomcp-ffi; }

cc_asan() { gcc $CWARN -g -O1 $SAN -Iinclude "$1" "$LIB" $SYSLIBS -o "$2"; }
cc_plain() { gcc $CWARN -g -O0 -Iinclude "$1" "$LIB" $SYSLIBS -o "$2"; }
cxx_asan() { g++ $XWARN -g -O1 $SAN -Iinclude "$1" "$LIB" $SYSLIBS -o "$2"; }
cxx_plain() { g++ $XWARN -g -O0 -Iinclude "$1" "$LIB" $SYSLIBS -o "$2"; }

step_header() { ffi/check-header.sh; }
step_lint() {
  cargo fmt -p picomcp-ffi -- --check && cargo clippy --quiet -p picomcp-ffi --all-targets -- -D warnings
}
step_rust() { cargo test --quiet -p picomcp-ffi 2>&1 | tail -n 3; return "${PIPESTATUS[0]}"; }
# The C test programs built the way $1 says (asan: cc_asan/cxx_asan; plain: cc_plain/cxx_plain)
# into $OUT/NAME_$1, then run, each under the command in the remaining arguments (none: directly).
c_suite() {
  local how=$1 t
  shift
  build_lib || return 1
  for t in test_api test_vectors test_vectors_http test_malformed; do
    "cc_$how" "ffi/tests-c/$t.c" "$OUT/${t}_$how" || return 1
  done
  "cxx_$how" ffi/tests-c/test_cpp.cpp "$OUT/test_cpp_$how" || return 1
  "$@" "$OUT/test_api_$how" && "$@" "$OUT/test_vectors_$how" "${VECTORS[@]}" &&
    "$@" "$OUT/test_vectors_http_$how" "${HTTP_VECTORS[@]}" &&
    "$@" "$OUT/test_malformed_$how" "$CASES" && "$@" "$OUT/test_cpp_$how"
}
step_asan() { c_suite asan; }
# shellcheck disable=SC2086 # $VALGRIND is the command and its flags
step_valgrind() { c_suite plain $VALGRIND; }
step_shared() {
  build_lib || return 1
  # The library's soname is libpicomcp.so.0 (what ffi/install.sh installs); mirror that.
  mkdir -p "$OUT/lib" && ln -sf "$ROOT/target/release/libpicomcp.so" "$OUT/lib/libpicomcp.so.0" &&
    ln -sf libpicomcp.so.0 "$OUT/lib/libpicomcp.so" || return 1
  gcc $CWARN -g -O1 -Iinclude ffi/tests-c/test_api.c -L"$OUT/lib" -lpicomcp -lm \
    -Wl,-rpath,"$OUT/lib" -o "$OUT/test_api_shared" || return 1
  ldd "$OUT/test_api_shared" > "$OUT/ldd.txt" && grep -q "libpicomcp.so" "$OUT/ldd.txt" || { echo "not linked dynamically"; return 1; }
  "$OUT/test_api_shared"
}
step_controls() {
  build_lib || return 1
  gcc -std=c99 -g -fsanitize=address -Iinclude ffi/tests-c/leak.c "$LIB" $SYSLIBS -o "$OUT/leak_asan" &&
  gcc -std=c99 -g -O0 -Iinclude ffi/tests-c/leak.c "$LIB" $SYSLIBS -o "$OUT/leak_plain" || return 1
  if "$OUT/leak_asan" 2>"$OUT/leak_asan.log"; then echo "LeakSanitizer missed the leak"; return 1; fi
  grep -q "LeakSanitizer: detected memory leaks" "$OUT/leak_asan.log" || { cat "$OUT/leak_asan.log"; return 1; }
  if $VALGRIND "$OUT/leak_plain" 2>"$OUT/leak_vg.log"; then echo "valgrind missed the leak"; return 1; fi
  grep -q "definitely lost" "$OUT/leak_vg.log" || { cat "$OUT/leak_vg.log"; return 1; }
  echo "the deliberate leak is reported by LeakSanitizer and by valgrind"
}
# Runs the demo binary ($@) on the scripted session and checks the replies.
demo_session() {
  "$@" --max-line 4096 < ffi/tests-c/demo_session.txt > "$OUT/demo.out" 2> "$OUT/demo.err" ||
    { echo "demo exited with $?"; cat "$OUT/demo.err"; return 1; }
  python3 - "$OUT/demo.out" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
ids = sorted(m["id"] for m in lines if "id" in m)
want = [1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17]
assert ids == want, f"answered ids {ids}, want {want}"
by = {m["id"]: m for m in lines if "id" in m}
# The questions for the client (examples/c/ask.c, mrtr.c): this client declared no sampling, and
# input_required needs 2026-07-28 (demo_session_modern.txt below).
assert by[14]["result"]["isError"] is True and "Cannot ask the client" in by[14]["result"]["content"][0]["text"]
assert by[15]["result"]["isError"] is True and "2026-07-28" in by[15]["result"]["content"][0]["text"]
assert by[16]["result"]["messages"][0]["content"]["text"].startswith("Use no particular context")
assert any(m.get("method") == "notifications/tools/list_changed" for m in lines)
assert by[3]["result"]["content"][0]["text"] == 'hi "there"\n\u00e9'
assert by[4]["result"]["structuredContent"] == {"sum": 5.5}
assert by[5]["result"]["content"][0]["text"] == "slept"
assert by[8]["result"]["isError"] is True
assert by[11]["result"]["isError"] is True
assert by[12]["error"]["code"] == -32602 and by[13]["error"]["code"] == -32002
assert sum(1 for m in lines if m.get("method") == "notifications/progress") == 3
assert any(m.get("error", {}).get("code") == -32700 and "id" not in m for m in lines)
print(f"demo: {len(lines)} lines, all as expected")
PY
  # 2026-07-28 on a connection of its own: input_required results and the retries that answer them.
  "$@" --max-line 4096 < ffi/tests-c/demo_session_modern.txt > "$OUT/demo-modern.out" 2> "$OUT/demo-modern.err" ||
    { echo "demo exited with $?"; cat "$OUT/demo-modern.err"; return 1; }
  python3 - "$OUT/demo-modern.out" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
by = {m["id"]: m for m in lines if "id" in m}
assert sorted(by) == list(range(1, 10)), f"answered ids {sorted(by)}"
text = lambda i: by[i]["result"]["content"][0]["text"]
assert by[1]["result"]["resultType"] == "input_required" and "elicitation" in by[1]["result"]["inputRequests"]
assert text(2) == 'User response: action=accept, content={"username":"ann"}'
assert by[3]["result"]["inputRequests"].keys() == {"step1"} and by[3]["result"]["requestState"] != "round-1"  # sealed
assert text(4) == "LLM response: Paris"
assert by[5]["error"]["code"] == -32021 and by[5]["error"]["data"]["requiredCapabilities"] == {"sampling": {}}
assert by[6]["error"]["code"] == -32602  # a forged requestState
assert by[7]["result"]["messages"][0]["content"]["text"] == "Use this context: tests"
assert text(8) == "Logged one info message" and any(m.get("method") == "notifications/message" for m in lines)
assert by[9]["error"]["code"] == -32602  # inputResponses that is not an object
print(f"demo (2026-07-28): {len(lines)} lines, all as expected")
PY
}
# auth.c opens libcrypto with dlopen under --auth-issuer only, so nothing links -lcrypto.
step_demo() {
  make --no-print-directory -s -C examples/c || return 1
  gcc $CWARN -g -O1 $SAN -Iinclude examples/c/picomcp_demo.c examples/c/ask.c examples/c/mrtr.c examples/c/http_loop.c examples/c/auth.c "$LIB" $SYSLIBS -o "$OUT/demo_asan" || return 1
  demo_session examples/c/picomcp-demo-c && demo_session "$OUT/demo_asan" &&
    demo_session $VALGRIND examples/c/picomcp-demo-c
}
step_install() {
  local prefix pc
  prefix=$(mktemp -d) || return 1
  # shellcheck disable=SC2064
  trap "rm -rf '$prefix'" RETURN
  ffi/install.sh "$prefix" || return 1
  pc=$prefix/lib/pkgconfig
  echo "pkg-config --cflags --libs picomcp: $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs picomcp)"
  # shellcheck disable=SC2046
  gcc $CWARN ffi/tests-c/consumer.c $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs picomcp) -o "$OUT/consumer_pc" &&
    LD_LIBRARY_PATH=$prefix/lib "$OUT/consumer_pc" || return 1
  # shellcheck disable=SC2046
  gcc $CWARN ffi/tests-c/consumer.c $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs picomcp-static) -o "$OUT/consumer_pc_static" &&
    "$OUT/consumer_pc_static" || return 1
  ldd "$OUT/consumer_pc_static" > "$OUT/ldd-static.txt" || true
  if grep -q picomcp "$OUT/ldd-static.txt"; then echo "static consumer linked the .so"; return 1; fi
  rm -rf "$OUT/cmake-consumer" "$OUT/cmake-demo"
  cmake -S ffi/tests-c/cmake-consumer -B "$OUT/cmake-consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null &&
    cmake --build "$OUT/cmake-consumer" >/dev/null &&
    LD_LIBRARY_PATH=$prefix/lib "$OUT/cmake-consumer/consumer_shared" &&
    "$OUT/cmake-consumer/consumer_static" || return 1
  cmake -S examples/c -B "$OUT/cmake-demo" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null &&
    cmake --build "$OUT/cmake-demo" >/dev/null && demo_session "$OUT/cmake-demo/picomcp-demo-c"
}
step_miri() {
  rustup component add --toolchain nightly miri rust-src >/dev/null 2>&1 || return 1
  cargo +nightly miri test --quiet -p picomcp-ffi 2>&1 | tail -n 3
  return "${PIPESTATUS[0]}"
}

need_packages || echo "warning: could not install missing packages"
passed=0; failed=0; failed_names=()
for s in "${STEPS[@]}"; do
  echo "== $s"
  start=$SECONDS
  if "step_$s"; then
    passed=$((passed + 1)); echo "-- $s ok ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); failed_names+=("$s"); echo "-- $s FAILED ($((SECONDS - start)) s)"
  fi
done
[ $failed -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
