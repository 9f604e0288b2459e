#!/usr/bin/env bash
# The Debian packages the package's builds, tests and benchmarks use, installed
# if missing (run as root; .ci/run and the README's first command call it):
#   build-essential python3   node-gyp and the C tests (gcc, make)
#   clang lld                 the wasm thread-wave guest (guest/, scripts/build-guest.sh);
#                             lld's ld64.lld links the macOS prebuilds (scripts/cross-prebuild.js)
#   clang-format              the C style check (scripts/format-c.js, .clang-format)
#   libclang-rt-14-dev        libFuzzer (test/fuzz)
#   spin                      the protocol model (test/model)
#   chromium                  the browser end-to-end test (test/browser.test.js)
#   qemu-user                 linux-arm64 under emulation (scripts/qemu-arm64.sh)
#   gcc-aarch64-linux-gnu     the C tests cross-compiled for arm64, and (with
#   libc6-dev-arm64-cross     the cross libc) the arm64 sysroot qemu runs the
#                             arm64 Node in (scripts/qemu-arm64.sh)
#   musl-tools                the C tests on musl (scripts/musl-c.sh)
#   wine64                    win32-x64 under Wine (scripts/wine-win64.sh)
#   clang-19 lld-19           C programs for ../shared/wasi-threads-sysroot: the WASI
#                             programs in C with pthreads (test/wasi-programs,
#                             scripts/build-wasi-programs.sh) and the plain ones
#                             (test/program-plain.test.js); clang-14 cannot link them
#                             (../shared/wasi-threads-sysroot/README.md)
#   llvm-19                   llvm-ar and the tools clang-19's wasm link calls
#   libclang-rt-19-dev-wasm32 compiler-rt's builtins for wasm32, which that link needs
#   zstd                      the system's zstd, to check zstd.wasm's output
#                             (test/program-wasi-real.test.js; gzip is in the base system)
#   pigz                      the native pigz the bench's program rows compare with
#   linux-perf                the bench's tier figures (group 13: perf record)
#   rustc-web cargo-web       Rust 1.96 and its std's source, to build the
#   rust-web-src              wasm32-wasip1-threads crate of the cargo runner test
#                             offline with -Zbuild-std (test/cargo-runner.test.js)
# Then the arm64 Node for scripts/qemu-arm64.sh, the Windows Node (and a
# Wine prefix) for scripts/wine-win64.sh and the newer Nodes for
# scripts/node-versions.sh, from the npm registry, so that the tests
# themselves download nothing.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(build-essential python3 clang lld clang-format libclang-rt-14-dev spin chromium
  qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross musl-tools wine64
  clang-19 lld-19 llvm-19 libclang-rt-19-dev-wasm32 zstd pigz linux-perf rustc-web cargo-web rust-web-src)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Not fatal here: test/prebuilds.test.js says what is missing (and fails in CI).
bash "$(dirname "$0")/qemu-arm64.sh" --setup || echo "setup-debian: the arm64 emulation setup failed (see above)" >&2
bash "$(dirname "$0")/wine-win64.sh" --setup || echo "setup-debian: the Wine setup failed (see above)" >&2
# Not fatal here either: npm test's steps on those versions say what is missing (and fail in CI).
bash "$(dirname "$0")/node-versions.sh" --setup || echo "setup-debian: the newer Nodes' setup failed (see above)" >&2
