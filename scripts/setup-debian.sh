#!/usr/bin/env bash
# The Debian packages the package's builds, tests and benchmarks use, installed
# if missing (run as root; .ci/run and the README's first command call it):
#   build-essential python3   node-gyp and the C tests (gcc, make)
#   clang lld                 the wasm thread-wave guest (guest/, scripts/build-guest.sh)
#   clang-format              the C style check (scripts/format-c.js, .clang-format)
#   libclang-rt-14-dev        libFuzzer (test/fuzz)
#   spin                      the protocol model (test/model)
#   chromium                  the browser end-to-end test (test/browser.test.js)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(build-essential python3 clang lld clang-format libclang-rt-14-dev spin chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
