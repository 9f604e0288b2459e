#!/bin/sh
# Build the WASI behaviour programs (test/wasi-programs/*.c): C with pthreads
# for wasm32-wasi-threads, for test/program-wasi-*.test.js and the WASI rows
# of the bench.
#
#   scripts/build-wasi-programs.sh     build .tmp/wasi-programs/<name>.wasm
#
# Needs Debian's clang-19 and lld-19 (scripts/setup-debian.sh) and the
# wasi-libc sysroot with pthreads at ../shared/wasi-threads-sysroot (its
# README). Without them it says so and exits 0 (the tests then skip, saying
# why); in CI (CI=true) a missing tool fails the step.
# CLANG, SYSROOT and OUT override the tool, the sysroot and the output folder.
set -eu

ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
SRC="$ROOT/test/wasi-programs"
OUT=${OUT:-"$ROOT/.tmp/wasi-programs"}
CLANG=${CLANG:-/usr/lib/llvm-19/bin/clang}
SYSROOT=${SYSROOT:-"$ROOT/../shared/wasi-threads-sysroot"}

missing() {
  if [ "${CI:-}" = "true" ]; then
    echo "build-wasi-programs: $1 (CI: failing)" >&2
    exit 1
  fi
  echo "build-wasi-programs: $1; skipped" >&2
  exit 0
}
[ -x "$CLANG" ] || missing "no clang-19 at $CLANG (apt-get install -y clang-19 lld-19 llvm-19 libclang-rt-19-dev-wasm32)"
[ -f "$SYSROOT/lib/wasm32-wasi-threads/libc.a" ] || missing "no wasi-threads sysroot at $SYSROOT"

mkdir -p "$OUT"
# Each program built in a private folder and moved into place, so that test
# files started in parallel never load half a file.
TMP=$(mktemp -d "$OUT/.build.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

for src in "$SRC"/*.c; do
  name=$(basename "$src" .c)
  # Up to date: newer than its source and the shared header.
  if [ "$OUT/$name.wasm" -nt "$src" ] && [ "$OUT/$name.wasm" -nt "$SRC/common.h" ] && [ "$OUT/$name.wasm" -nt "$0" ]; then
    continue
  fi
  # reactor_*.c: a reactor (_initialize and exported functions), for the SDK host's tests.
  model=""
  case "$name" in reactor_*) model="-mexec-model=reactor" ;; esac
  "$CLANG" --target=wasm32-wasi-threads --sysroot="$SYSROOT" -pthread -O2 -Wall -Wextra -Wno-unused-result $model \
    "$src" -o "$TMP/$name.wasm" \
    -Wl,--import-memory,--export-memory,--max-memory=67108864 -Wl,-z,stack-size=262144
  mv -f "$TMP/$name.wasm" "$OUT/$name.wasm"
done
echo "build-wasi-programs: $(ls "$SRC"/*.c | wc -l) programs in $OUT"
