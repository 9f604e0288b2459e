#!/bin/sh
# Build the C pthreads guests (guest/spawn/spawn.c) for the runner's spawn
# tests and bench: guest/out/spawn.wasm (clang-19 and the wasi-libc sysroot
# with pthreads, ../shared/wasi-threads-sysroot; see its README) and
# guest/out/spawn-native (gcc -pthread, the bench's native reference).
#
# Exits 0 without building the wasm when clang-19 or the sysroot is missing
# (test/program-spawn.test.js then skips, saying why). CLANG19 / SYSROOT /
# CC override the tools; OUT the output folder.
set -eu

ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
OUT=${OUT:-"$ROOT/guest/out"}
CLANG19=${CLANG19:-/usr/lib/llvm-19/bin/clang}
SYSROOT=${SYSROOT:-"$ROOT/../shared/wasi-threads-sysroot"}
CC=${CC:-gcc}
SRC="$ROOT/guest/spawn/spawn.c"

mkdir -p "$OUT"
TMP=$(mktemp -d "$OUT/.spawn.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

if command -v "$CC" >/dev/null 2>&1; then
  "$CC" -O2 -Wall -Wextra -pthread -o "$TMP/spawn-native" "$SRC"
  mv -f "$TMP/spawn-native" "$OUT/spawn-native"
fi

if [ ! -x "$CLANG19" ] || [ ! -d "$SYSROOT/lib" ]; then
  echo "build-c-guests: no clang-19 at $CLANG19 or no sysroot at $SYSROOT; spawn.wasm not built" >&2
  exit 0
fi
"$CLANG19" --target=wasm32-wasi-threads --sysroot="$SYSROOT" -pthread -O2 -Wall -Wextra \
  "$SRC" -o "$TMP/spawn.wasm" \
  -Wl,--import-memory,--export-memory,--max-memory=1073741824 -Wl,-z,stack-size=65536
mv -f "$TMP/spawn.wasm" "$OUT/spawn.wasm"
echo "build-c-guests: $OUT/spawn.wasm ($(wc -c < "$OUT/spawn.wasm") bytes)"
