#!/usr/bin/env bash
# Builds netwright-cli the way a GPU server gets it — no Qt, no OpenCV (images through libjpeg/libpng),
# the CUDA backend where nvcc is found — into build-headless/, and checks it end to end against the full
# build in build/ (run scripts/build.sh first):
#   - `forward` on a JPEG and a PNG gives the same bytes as the full build (same decoding, same maths);
#   - Fashion-MNIST trains (IDX files, no images) and the shapes detector trains on the JPEGs written by
#     the full build's make-shapes, with the portable augmentation;
#   - what needs OpenCV (video, --out, make-shapes) is refused in words, exit status 1.
# Extra arguments go to CMake's configure step. A unity build (8 sources per compiler run, as in
# scripts/sanitize.sh) keeps this second compile of core short; scripts/build.sh compiles each source alone.
set -euo pipefail
cd "$(dirname "$0")/.."
full=build/app/netwright-cli
headless=build-headless/app/netwright-cli
[ -x "$full" ] || { echo "headless-check: build the full tree first (scripts/build.sh)" >&2; exit 1; }

cmake -S . -B build-headless -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNETWRIGHT_WITH_UI=OFF \
  -DNETWRIGHT_WITH_OPENCV=OFF -DNETWRIGHT_BUILD_TESTS=OFF -DNETWRIGHT_WARNINGS_AS_ERRORS=ON \
  -DCMAKE_UNITY_BUILD=ON "$@" >/dev/null
cmake --build build-headless --parallel "$(nproc)" --target netwright-cli
if ldd "$headless" | grep -Eq "libQt|libopencv"; then
  echo "headless-check: FAIL: $headless links Qt or OpenCV" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "headless-check: FAIL: $*" >&2; exit 1; }

# The same network output from both builds, on a JPEG and on a PNG.
"$full" init cfg/shapes-tiny.cfg "$work/shapes.weights" --seed 3 >/dev/null
"$full" make-shapes "$work/shapes" --count 60 --seed 2 --size 128x128 >/dev/null
jpg=$(ls "$work"/shapes/train/*.jpg | head -1)
png=resources/icons/netwright-256.png # RGBA: the alpha is dropped by both
for input in /usr/share/darknet/data/dog.jpg "$png"; do
  "$full" forward cfg/shapes-tiny.cfg "$work/shapes.weights" --input "$input" --out "$work/full.f32" >/dev/null
  "$headless" forward cfg/shapes-tiny.cfg "$work/shapes.weights" --input "$input" --out "$work/headless.f32" >/dev/null
  cmp -s "$work/full.f32" "$work/headless.f32" || fail "forward on $input differs from the full build's"
done
echo "headless-check: forward on a JPEG and a PNG: the same bytes as the full build"

# Training: a classifier on IDX files and a detector on PNG images with augmentation.
"$headless" train cfg/fashion-mnist.data cfg/fashion-mnist.cfg --max-batches 30 --out "$work/fm" >"$work/fm.log" 2>&1 ||
  { cat "$work/fm.log" >&2; fail "Fashion-MNIST training"; }
[ -s "$work/fm/fashion-mnist_final.weights" ] || fail "Fashion-MNIST training wrote no final weights"
"$headless" train "$work/shapes/shapes.data" cfg/shapes-tiny.cfg --max-batches 4 --out "$work/det" >"$work/det.log" 2>&1 ||
  { cat "$work/det.log" >&2; fail "shapes detector training"; }
[ -s "$work/det/shapes-tiny_final.weights" ] || fail "detector training wrote no final weights"
"$headless" detect cfg/shapes-tiny.cfg "$work/det/shapes-tiny_final.weights" "$jpg" --json >/dev/null ||
  fail "detect on a JPEG"
echo "headless-check: trained Fashion-MNIST (30 iterations) and the shapes detector (4), detected"

# What needs OpenCV says so.
expect_refusal() {
  local needle=$1; shift
  if "$@" >"$work/out.log" 2>&1; then fail "$* succeeded without OpenCV"; fi
  grep -q -- "$needle" "$work/out.log" || { cat "$work/out.log" >&2; fail "$* did not say: $needle"; }
}
expect_refusal "make-shapes draws with OpenCV" "$headless" make-shapes "$work/no-shapes"
expect_refusal "--out draws with OpenCV" "$headless" detect cfg/shapes-tiny.cfg "$work/shapes.weights" "$jpg" --out "$work/o"
touch "$work/clip.mp4"
expect_refusal "video needs a build with OpenCV" "$headless" detect cfg/shapes-tiny.cfg "$work/shapes.weights" "$work/clip.mp4"
echo "headless-check: video, --out and make-shapes are refused in words"
echo "headless-check: passed"
