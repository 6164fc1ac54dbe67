#!/usr/bin/env bash
# Inference latency and peak memory, measured in one go on this machine: netwright-cli bench vs OpenCV
# DNN (DNN_BACKEND_OPENCV, 2 threads) vs pjreddie's Darknet (Debian's libdarknet, single-threaded),
# on the same cfg and the same random weights (written by libdarknet itself). The three run in
# alternation, ROUNDS times, so a noisy neighbour slows all of them alike; the table reports the
# median of the per-round medians and the lowest minimum.
#   bench/compare_inference.sh [ROUNDS]      (after scripts/build.sh; writes bench/results/inference.md)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
runs=20
build=build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p bench/results
out=bench/results/inference.md
# Debian's Darknet cfgs (weights written by libdarknet), then AlexeyAB's, which pjreddie's Darknet
# cannot read (weights from `netwright-cli init`; no Darknet column).
networks=(yolov3-tiny yolov2-tiny resnet18 darknet19 ab:yolov4-tiny ab:yolov4)

field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p"; }
median() { sort -n | awk '{a[NR]=$1} END {if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
minimum() { sort -n | head -1; }

{
  echo "| network | input | Netwright median / min (ms) | OpenCV DNN median / min (ms) | Darknet median / min (ms) | Netwright ÷ OpenCV (median) | peak RSS − baseline, Netwright / OpenCV / Darknet (MB) | peak RSS (MB) |"
  echo "|---|---|---|---|---|---|---|---|"
} > "$work/table"

for entry in "${networks[@]}"; do
  name=${entry#ab:}
  mkdir -p "$work/$name"
  weights=$work/$name/net.weights
  if [ "$entry" != "$name" ]; then
    cfg=tests/data/ab-cfgs/$name.cfg
    "$build/app/netwright-cli" init "$cfg" "$weights" --seed 1
  else
    cfg=/usr/share/darknet/cfg/$name.cfg
    "$build/tests/darknet_ref_forward" "$cfg" "$work/$name" 1 >/dev/null 2>&1
  fi
  touch "$work/$name.darknet"
  for round in $(seq "$rounds"); do
    "$build/app/netwright-cli" bench "$cfg" --weights "$weights" --runs $runs --threads 2 --json >> "$work/$name.ours"
    "$build/bench/opencv_dnn_bench" "$cfg" "$weights" $runs 2 >> "$work/$name.opencv" 2>/dev/null || true
    if [ "$entry" = "$name" ]; then
      "$build/bench/darknet_bench" "$cfg" "$weights" 3 >> "$work/$name.darknet" 2>/dev/null
    fi
  done
  size=$(field width < "$work/$name.ours" | head -1)x$(field height < "$work/$name.ours" | head -1)
  om=$(field median_ms < "$work/$name.ours" | median); on=$(field min_ms < "$work/$name.ours" | minimum)
  cm=$(field median_ms < "$work/$name.opencv" | median); cn=$(field min_ms < "$work/$name.opencv" | minimum)
  dm=$(field median_ms < "$work/$name.darknet" | median); dn=$(field min_ms < "$work/$name.darknet" | minimum)
  model() { awk '{ for (i = 1; i <= NF; ++i) { if ($i ~ /peak_rss_mb/) p = $(i + 1); if ($i ~ /baseline_rss_mb/) b = $(i + 1) } gsub(/[,}]/, "", p); gsub(/[,}]/, "", b); if (p != "") print p - b }' "$1" | median; }
  peak() { field peak_rss_mb < "$1" | median; }
  ratio=$(awk -v a="$om" -v b="$cm" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
  if [ -n "$cm" ]; then opencv=$(printf '%.1f / %.1f' "$cm" "$cn"); cmodel=$(printf '%.0f' "$(model "$work/$name.opencv")"); cpeak=$(printf '%.0f' "$(peak "$work/$name.opencv")");
  else opencv="not supported"; cmodel="-"; cpeak="-"; fi
  if [ -n "$dm" ]; then darknet=$(printf '%.1f / %.1f' "$dm" "$dn"); dmodel=$(printf '%.0f' "$(model "$work/$name.darknet")"); dpeak=$(printf '%.0f' "$(peak "$work/$name.darknet")");
  else darknet="cannot read the cfg"; dmodel="-"; dpeak="-"; fi
  printf '| %s | %s | %.1f / %.1f | %s | %s | %s | %.0f / %s / %s | %.0f / %s / %s |\n' "$name" "$size" "$om" "$on" \
    "$opencv" "$darknet" "$ratio" "$(model "$work/$name.ours")" "$cmodel" "$dmodel" \
    "$(peak "$work/$name.ours")" "$cpeak" "$dpeak" >> "$work/table"
done

{
  echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p')), $rounds rounds × $runs runs"
  echo "(Darknet: $rounds × 3 runs), batch 1, random weights written by libdarknet (AlexeyAB cfgs: by netwright-cli init); Netwright's OpenBLAS kernels:"
  echo "$(sed -n 's/.*"blas_core": "\([^"]*\)".*/\1/p' "$work"/*.ours | sort -u | tr '\n' ' ')(OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset})."
  echo
  cat "$work/table"
} > "$out"
cat "$out"
