#!/usr/bin/env bash
# The addon's own test suites once more, with the addon built under
# AddressSanitizer + UndefinedBehaviorSanitizer.
#
# Node itself is not sanitized, so the sanitizer runtimes are preloaded and
# the sanitized addon is named through WASI_THREAD_POOL_ADDON. Suppressions:
# none. Leak detection is off because Node's own allocations at exit (not the
# addon's) would be reported; ASan still checks every access of the addon.
# The shutdown suite is left out: its bounds are timing under test, and a
# preloaded ASan runtime slows worker start-up and teardown several times over
# (about 0.9 s for 64 workers, JS pool included); so is test/interrupt-latency.test.js.
set -euo pipefail
cd "$(dirname "$0")/.."

out=build/asan
mkdir -p "$out"
cc=${CC:-gcc}
"$cc" -shared -fPIC -std=gnu11 -O1 -g -fno-omit-frame-pointer \
  -fsanitize=address,undefined -fno-sanitize-recover=all \
  -DNAPI_VERSION=8 -I"$(dirname "$(command -v node)")/../include/node" \
  -o "$out/wasi_thread_pool.node" \
  src/node/binding.c src/node/addon_copy.c src/core/wtp_pool.c src/core/wtp_park.c \
  src/core/wtp_interrupt.c src/os/wait_linux.c src/os/memory_linux.c \
  $(node -p 'JSON.parse(require("fs").readFileSync("binding.gyp", "utf8")).variables.wasi_sources.join(" ")')

export WASI_THREAD_POOL_ADDON="$PWD/$out/wasi_thread_pool.node"
export LD_PRELOAD="$("$cc" -print-file-name=libasan.so) $("$cc" -print-file-name=libubsan.so)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
node --test --test-concurrency=1 test/protocol.test.js test/protocol-threads.test.js test/bad-input.test.js test/layout.test.js \
  test/pool-races.test.js test/binding-lifetime.test.js test/binding-wasi.test.js
