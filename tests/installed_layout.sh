#!/usr/bin/env bash
# An installed netwright-cli (cmake --install, the layout the .deb has) loads the media module installed
# beside it (<prefix>/<libdir>/netwright, image/media_codecs.h), not the build tree's, when it reads an
# image. Usage: installed_layout.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
module=$(find "$prefix" -name libnetwright_media.so)
[ -n "$module" ] || { echo "FAIL: cmake --install wrote no libnetwright_media.so"; exit 1; }
log=$(LD_DEBUG=files "$prefix/bin/netwright-cli" detect "$source/cfg/shapes-tiny.cfg" \
  "$source/resources/weights/shapes-tiny.weights" /usr/share/darknet/data/dog.jpg --json 2>&1 >/dev/null)
if ! grep -q "file=$module " <<<"$log"; then
  echo "FAIL: the installed netwright-cli did not load $module; it loaded:"
  grep "file=.*libnetwright_media" <<<"$log" || echo "(no media module)"
  exit 1
fi
echo "PASS: the installed netwright-cli loaded ${module#"$prefix"/}"
