#!/bin/sh
# Builds test_wasi_path_windows.exe and runs it under Wine, with a fixture
# of Unix symbolic links for its Wine cases (test_host_links):
#   $tmp/hostlinks/{abs -> $tmp/out, fout -> $tmp/out/marker, up -> ..,
#                   in -> sub, fin -> sub/marker, dang -> ../made-outside}
set -e
here=$(cd "$(dirname "$0")" && pwd)
exe=$(sh "$here/build-path-test.sh" | tail -1)
tmp=$(mktemp -d /tmp/wtp-win-path-links.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/out" "$tmp/hostlinks/sub"
echo outside > "$tmp/out/marker"
echo inside > "$tmp/hostlinks/sub/marker"
ln -s "$tmp/out" "$tmp/hostlinks/abs"
ln -s "$tmp/out/marker" "$tmp/hostlinks/fout"
ln -s .. "$tmp/hostlinks/up"
ln -s sub "$tmp/hostlinks/in"
ln -s sub/marker "$tmp/hostlinks/fin"
ln -s ../made-outside "$tmp/hostlinks/dang"
export WINEPREFIX="${WINEPREFIX:-$HOME/.cache/wasi-thread-pool/win-x64/prefix}" WINEDEBUG=-all
wine=/usr/lib/wine/wine64
[ -x "$wine" ] || wine=$(command -v wine64)
# Wine shows the Unix root as drive Z:. The test makes its own tree under
# the prefix's temporary directory (wtp-path-PID) and removes it; what a
# failed run leaves there goes too.
status=0
"$wine" "$exe" "Z:$(echo "$tmp/hostlinks" | tr / '\\')" || status=$?
rm -rf "$WINEPREFIX"/drive_c/users/*/Temp/wtp-path-*
exit $status
