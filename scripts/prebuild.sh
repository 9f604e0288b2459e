#!/usr/bin/env bash
# Regenerates every committed prebuilt addon (docs/packaging.md, "Platforms"):
#   prebuilds/linux-x64/wasi-thread-pool.glibc.node     node-gyp, natively (below)
#   prebuilds/linux-x64/wasi-thread-pool.musl.node      \
#   prebuilds/linux-arm64/wasi-thread-pool.glibc.node    |
#   prebuilds/linux-arm64/wasi-thread-pool.musl.node     |  scripts/cross-prebuild.js:
#   prebuilds/darwin-x64/wasi-thread-pool.node           |  zig cc (+ ld64.lld for macOS)
#   prebuilds/darwin-arm64/wasi-thread-pool.node         |
#   prebuilds/win32-x64/wasi-thread-pool.node           /
# then checks each one (format, architecture, exports, imports) with
# test/support/objfile.js. Runs on linux-x64 with glibc (the machine CI is,
# and the only host the Zig dev dependency serves). About 10 s once Zig's
# cache is warm; the first Windows build on a machine compiles MinGW's CRT
# into ~/.cache/zig (about a minute).
#
# The addon is a Node-API module built with NAPI_VERSION=8 (binding.gyp), so
# one binary serves every Node with Node-API >= 8 on this platform; the file
# name carries no ABI tag and node-gyp-build picks it for any such Node.
#
# Offline: prebuildify runs node-gyp, which downloads Node's headers unless
# told where they are. When this Node's headers are installed next to it
# (<prefix>/include/node/common.gypi, e.g. /usr on Debian) we pass them as
# npm_config_nodedir, which node-gyp reads like --nodedir.
#
# The builds run in a scratch copy of binding.gyp + src/, so the working
# tree's build/ (used by the test suite) is left alone, and prebuilds/ is
# emptied first, so that no stale binary survives.
#
#   bash scripts/prebuild.sh              from the working tree's binding.gyp + src/
#   bash scripts/prebuild.sh --rev HEAD   from a commit (what a release should ship)
#
# Environment: PREBUILD_NODE_GYP (node-gyp executable), NODEDIR (headers
# prefix; "" to let node-gyp download them).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

node_bin="$(readlink -f "$(command -v node)")"
node_prefix="$(dirname "$(dirname "$node_bin")")"
node_version="$(node -p process.versions.node)"

if [ -z "${NODEDIR+x}" ]; then
  if [ -f "$node_prefix/include/node/common.gypi" ]; then NODEDIR="$node_prefix"; else NODEDIR=""; fi
fi
if [ -n "$NODEDIR" ]; then export npm_config_nodedir="$NODEDIR"; fi

# node-gyp: the caller's choice, else the copy npm bundles next to this Node.
if [ -z "${PREBUILD_NODE_GYP:-}" ]; then
  for candidate in \
    "$node_prefix/lib/node_modules/npm/bin/node-gyp-bin/node-gyp" \
    "$(dirname "$node_bin")/../lib/node_modules/npm/bin/node-gyp-bin/node-gyp"; do
    if [ -x "$candidate" ]; then PREBUILD_NODE_GYP="$candidate"; break; fi
  done
fi
export PREBUILD_NODE_GYP="${PREBUILD_NODE_GYP:-node-gyp}"

rev=""
while [ "$#" -gt 0 ]; do
  case "$1" in
    --rev) rev="$2"; shift 2 ;;
    --rev=*) rev="${1#--rev=}"; shift ;;
    *) echo "prebuild: unknown argument $1" >&2; exit 2 ;;
  esac
done

prebuildify="$root/node_modules/.bin/prebuildify"
if [ ! -x "$prebuildify" ]; then
  echo "prebuild: $prebuildify is missing; run npm install (prebuildify is a dev dependency)" >&2
  exit 1
fi

scratch="$(mktemp -d "${TMPDIR:-/tmp}/wtp-prebuild.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
if [ -n "$rev" ]; then
  git -C "$root" archive --format=tar "$rev" binding.gyp src package.json | tar -x -C "$scratch"
  echo "prebuild: sources from $(git -C "$root" rev-parse --short "$rev")"
else
  cp -R binding.gyp src package.json "$scratch/"
  if git -C "$root" rev-parse --git-dir >/dev/null 2>&1 &&
     [ -n "$(git -C "$root" status --porcelain -- binding.gyp src)" ]; then
    echo "prebuild: warning: binding.gyp or src/ has uncommitted changes; they are in this build (use --rev HEAD to build a commit)" >&2
  fi
fi

platform_arch="$(node -p 'process.platform + "-" + process.arch')"
if [ "$platform_arch" != "linux-x64" ] || ldd --version 2>&1 | grep -qi musl; then
  echo "prebuild: run this on linux-x64 with glibc (this is $platform_arch): the native prebuild and the Zig dev dependency are for that host" >&2
  exit 1
fi
echo "prebuild: node $node_version, nodedir ${NODEDIR:-<download>}, node-gyp $PREBUILD_NODE_GYP"
"$prebuildify" --napi --strip --tag-libc --target "node@$node_version" --cwd "$scratch" --out "$scratch"

out="$scratch/prebuilds/$platform_arch"
rm -rf prebuilds
mkdir -p "prebuilds/$platform_arch"
cp "$out"/*.node "prebuilds/$platform_arch/"

# Every other platform, cross-compiled from the same scratch sources.
node scripts/cross-prebuild.js --src "$scratch" --out "$root"

# Verify: the binary loads in this Node, and node-gyp-build resolves to it
# when there is no build/ (a scratch package root holding only prebuilds/).
check="$scratch/check"
mkdir -p "$check"
cp -R prebuilds "$check/"
node -e '
  const path = require(process.argv[1]).resolve(process.argv[2]);
  const addon = require(path);
  if (typeof addon.format !== "function") throw new Error("unexpected exports: " + Object.keys(addon));
  console.log("prebuild: node-gyp-build resolves " + path.slice(process.argv[2].length + 1));
' "$root/node_modules/node-gyp-build" "$check"

# Format, architecture, exports and imports of every binary.
node test/support/objfile.js --check prebuilds

for f in prebuilds/*/*.node; do
  size="$(wc -c <"$f")"
  sum="$(sha256sum "$f" | cut -d" " -f1)"
  echo "prebuild: $f ($size bytes, sha256 $sum)"
done
