#!/usr/bin/env bash
# Training throughput on Fashion-MNIST with the bundled network, measured in one go on this machine:
# netwright-cli train vs PyTorch 1.13 (python3-torch, 2 threads) vs pjreddie's Darknet (libdarknet,
# single-threaded). Rounds alternate the three; the table reports the median of the per-round
# medians of images/s (batch 128, excluding warm-up iterations).
#   bench/compare_training.sh [ROUNDS]     (after scripts/build.sh; writes bench/results/training.md)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
iterations=60
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p bench/results
median() { sort -n | awk '{a[NR]=$1} END {if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p"; }

for round in $(seq "$rounds"); do
  rm -rf "$work/out"
  build/app/netwright-cli train cfg/fashion-mnist.data cfg/fashion-mnist.cfg --out "$work/out" \
    --max-batches $iterations > /dev/null
  # metrics.csv column 5 is images/s; skip the header and 5 warm-up iterations.
  tail -n +7 "$work/out/metrics.csv" | cut -d, -f5 | median >> "$work/ours"
  /usr/bin/python3 bench/pytorch_fashion.py $iterations 2 | field images_per_sec >> "$work/torch"
  build/bench/darknet_train_bench cfg/fashion-mnist.cfg 5 2>/dev/null | field images_per_sec >> "$work/darknet"
done
ours=$(median < "$work/ours"); torch=$(median < "$work/torch"); darknet=$(median < "$work/darknet")
{
  echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores, $rounds rounds × $iterations iterations, batch 128."
  echo
  echo "| program | images/s (median) | vs PyTorch |"
  echo "|---|---|---|"
  printf '| Netwright (`netwright-cli train`, 2 threads) | %.0f | %.2f× |\n' "$ours" "$(awk -v a="$ours" -v b="$torch" 'BEGIN{print a/b}')"
  printf '| PyTorch 1.13 (2 threads) | %.0f | 1.00× |\n' "$torch"
  printf '| Darknet (libdarknet, 1 thread) | %.0f | %.2f× |\n' "$darknet" "$(awk -v a="$darknet" -v b="$torch" 'BEGIN{print a/b}')"
} > bench/results/training.md
cat bench/results/training.md
