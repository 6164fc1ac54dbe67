#!/bin/sh
# Reproduces resources/weights/shapes-tiny.weights, the bundled detector: a make-shapes set (seed 1,
# 2,000 images), training from scratch with cfg/shapes-tiny.cfg, then mAP on a fresh set (seed 777,
# 1,000 images) the network never saw. Usage: scripts/train-shapes-detector.sh [OUTDIR] [--install]
# (--install copies the trained weights into resources/weights/). Needs a build (scripts/build.sh).
set -eu
cd "$(dirname "$0")/.."
cli=build/app/netwright-cli
install=no
[ "${1:-}" = "--install" ] && { install=yes; shift; } # (alone or after OUTDIR)
[ "${2:-}" = "--install" ] && install=yes
out=${1:-runs/shapes-tiny}
[ -x "$cli" ] || { echo "error: $cli is missing: run scripts/build.sh first" >&2; exit 1; }

"$cli" make-shapes "$out/data" --count 2000 --seed 1
start=$(date +%s)
"$cli" train "$out/data/shapes.data" cfg/shapes-tiny.cfg --out "$out/train" --map-every 1000
echo "training took $(( $(date +%s) - start )) s"

"$cli" make-shapes "$out/fresh" --count 1000 --seed 777
cat "$out/fresh/train.txt" "$out/fresh/valid.txt" > "$out/fresh/all.txt"
sed "s|^valid = .*|valid = $(realpath "$out/fresh/all.txt")|" "$out/fresh/shapes.data" > "$out/fresh/eval.data"
"$cli" map "$out/fresh/eval.data" cfg/shapes-tiny.cfg "$out/train/shapes-tiny_final.weights"

if [ "$install" = yes ]; then
    cp "$out/train/shapes-tiny_final.weights" resources/weights/shapes-tiny.weights
    echo "installed resources/weights/shapes-tiny.weights"
fi
