#!/usr/bin/env bash
# An installed netwright-cli (cmake --install, the layout the .deb has) finds the media module installed
# beside it (<prefix>/<libdir>/netwright, image/media_codecs.h) when it reads an image.
# The installed programs hold no path of the source tree.
# Usage: installed_layout.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
prefix=$(realpath "$(mktemp -d)") # (as /proc/self/exe names it, symlinks resolved)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
module=$(find "$prefix" -name libnetwright_media.so)
[ -n "$module" ] || { echo "FAIL: cmake --install wrote no libnetwright_media.so"; exit 1; }
status=0
log=$(LD_DEBUG=files "$prefix/bin/netwright-cli" detect "$source/cfg/shapes-tiny.cfg" \
  "$source/resources/weights/shapes-tiny.weights" /usr/share/darknet/data/dog.jpg --json 2>&1 >/dev/null) ||
  status=$?
if [ "$status" != 0 ] || ! grep -Fq "file=$module " <<<"$log"; then
  echo "FAIL: the installed netwright-cli (exit status $status) did not load $module; it loaded:"
  grep -F "libnetwright_media" <<<"$log" || echo "(no media module)"
  grep -v "^ *[0-9]*:" <<<"$log" | tail -5 # its own messages
  exit 1
fi
echo "PASS: the installed netwright-cli loaded ${module#"$prefix"/}"
# The installed programs name no folder of the machine that built them (the studio held the source
# tree's cfg/ as its last place to look: a build under /tmp had it probe a world-writable folder).
# (Debug info names the sources, as the .deb's stripped programs do not; a Debug build's asserts and the
# sanitizers' reports name them too, by design: those builds are not checked.)
if grep -Eq '^(NETWRIGHT_SANITIZE:BOOL=ON|CMAKE_BUILD_TYPE:STRING=Debug)$' "$build/CMakeCache.txt"; then
  echo "SKIP: source paths (a Debug or sanitized build names its sources in its checks)"
  exit 0
fi
for program in "$prefix"/bin/*; do
  strip --strip-debug -o "$prefix/stripped" "$program"
  # (in UTF-16 too: QStringLiteral's; through a file, as grep -q ending a pipe early fails it under
  # pipefail)
  strings -a -el "$prefix/stripped" >"$prefix/utf16"
  if grep -aqF "$source" "$prefix/stripped" || grep -qF "$source" "$prefix/utf16"; then
    echo "FAIL: $program holds the source folder's path $source"
    exit 1
  fi
done
echo "PASS: the installed programs hold no path of the source tree"
