#!/usr/bin/env bash
# Regenerates every committed prebuilt addon (docs/packaging.md, "Platforms"):
#   prebuilds/linux-x64/wasi-thread-pool.glibc.node
#   prebuilds/linux-x64/wasi-thread-pool.musl.node
#   prebuilds/linux-arm64/wasi-thread-pool.glibc.node
#   prebuilds/linux-arm64/wasi-thread-pool.musl.node
#   prebuilds/darwin-x64/wasi-thread-pool.node
#   prebuilds/darwin-arm64/wasi-thread-pool.node
#   prebuilds/win32-x64/wasi-thread-pool.node
# with scripts/cross-prebuild.js (zig cc; ld64.lld for macOS), then checks
# that node-gyp-build resolves and loads this machine's one, and checks each
# binary (format, architecture, exports, imports) with test/support/objfile.js.
#
# Runs on linux-x64 with glibc (the machine CI is, and the only host the Zig
# dev dependency serves). About 10 s once Zig's cache (~/.cache/zig) is warm;
# the first Windows build on a machine compiles MinGW's C runtime (about a
# minute).
#
# The Node-API version is 8 (NAPI_VERSION=8), so one binary serves every Node
# with Node-API >= 8 on its platform; the file names carry no ABI tag.
#
# The builds run in a scratch copy of src/, so the working tree's build/
# (used by the test suite) is left alone, and prebuilds/ is emptied first,
# so that no stale binary survives.
#
#   bash scripts/prebuild.sh              from the working tree's src/
#   bash scripts/prebuild.sh --rev HEAD   from a commit (what a release should ship;
#                                         npm run build:prebuild)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

rev=""
while [ "$#" -gt 0 ]; do
  case "$1" in
    --rev) rev="$2"; shift 2 ;;
    --rev=*) rev="${1#--rev=}"; shift ;;
    *) echo "prebuild: unknown argument $1" >&2; exit 2 ;;
  esac
done

platform_arch="$(node -p 'process.platform + "-" + process.arch')"
if [ "$platform_arch" != "linux-x64" ] || ldd --version 2>&1 | grep -qi musl; then
  echo "prebuild: run this on linux-x64 with glibc (this is $platform_arch): the Zig dev dependency is for that host" >&2
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

rm -rf prebuilds
node scripts/cross-prebuild.js --src "$scratch" --out "$root"

# Verify: this machine's binary loads in this Node, and node-gyp-build
# resolves to it when there is no build/ (a scratch package root holding
# only prebuilds/).
check="$scratch/check"
mkdir -p "$check"
cp -R prebuilds "$check/"
node -e '
  const path = require(process.argv[1]).resolve(process.argv[2]);
  const addon = require(path);
  if (typeof addon.format !== "function") throw new Error("unexpected exports: " + Object.keys(addon));
  console.log("prebuild: node-gyp-build resolves and loads " + path.slice(process.argv[2].length + 1));
' "$root/node_modules/node-gyp-build" "$check"

# Format, architecture, exports and imports of every binary.
node test/support/objfile.js --check prebuilds

for f in prebuilds/*/*.node; do
  size="$(wc -c <"$f")"
  sum="$(sha256sum "$f" | cut -d" " -f1)"
  echo "prebuild: $f ($size bytes, sha256 $sum)"
done
