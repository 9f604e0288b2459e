#!/bin/sh
# Build the thread-wave guest (guest/) and its native reference check.
#
#   scripts/build-guest.sh          build guest/out/thread-wave.wasm and
#                                   guest/out/wave_ref, then run the check
#
# Needs Debian's clang and lld (apt-get install -y clang lld) and gcc.
# CLANG / WASM_LD / CC override the tools; OUT the output folder.
set -eu

ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
SRC="$ROOT/guest"
OUT=${OUT:-"$SRC/out"}
CLANG=${CLANG:-clang}
WASM_LD=${WASM_LD:-wasm-ld}
CC=${CC:-gcc}

# Memory the guest declares (and the harness must create shared with the same
# limits): 4 MiB of data (2 MiB of thread stacks) + 64 KiB main stack.
INITIAL_MEMORY=4194304   # 64 pages
MAX_MEMORY=16777216      # 256 pages

for tool in "$CLANG" "$WASM_LD" "$CC"; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "build-guest: '$tool' not found (apt-get install -y clang lld gcc)" >&2
    exit 127
  }
done

mkdir -p "$OUT"
# Objects in a private folder and finished files moved into place, so that
# concurrent builds (test files started in parallel) never see half a file.
TMP=$(mktemp -d "$OUT/.build.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

CFLAGS="--target=wasm32 -nostdlib -ffreestanding -O2 -matomics -mbulk-memory -Wall -Wextra"
"$CLANG" $CFLAGS -c "$SRC/wave.c" -o "$TMP/wave.o"
"$CLANG" --target=wasm32 -matomics -mbulk-memory -c "$SRC/start.s" -o "$TMP/start.o"

"$WASM_LD" --no-entry --import-memory --shared-memory \
  --initial-memory=$INITIAL_MEMORY --max-memory=$MAX_MEMORY \
  --stack-first -z stack-size=65536 \
  --export=wasi_thread_start \
  -o "$TMP/thread-wave.wasm" "$TMP/wave.o" "$TMP/start.o"

"$CC" -O2 -Wall -Wextra -o "$TMP/wave_ref" "$SRC/wave_ref.c"
# The native reference must reproduce the published bytes before the guest
# built from the same arithmetic (wave_math.h) is published.
"$TMP/wave_ref"
mv -f "$TMP/wave_ref" "$OUT/wave_ref"
mv -f "$TMP/thread-wave.wasm" "$OUT/thread-wave.wasm"

echo "build-guest: $OUT/thread-wave.wasm ($(wc -c < "$OUT/thread-wave.wasm") bytes)"
