#!/usr/bin/env bash
# What a session lent a GPU runs first, in as few device calls as possible (docs/gpu.md).
#
#   scripts/gpu-session.sh prepare   # here (after scripts/build.sh): gathers what the GPU machine lacks
#                                    # into .gpu-carry/ (nlohmann-json, Darknet's cfgs, Fashion-MNIST, a
#                                    # small shapes set: about 35 MB)
#   scripts/gpu-session.sh run OUT   # there (carry .gpu-carry): builds the headless CLI with CUDA and
#                                    # writes every check's and benchmark's output into OUT/
#
# `run` goes on after a failed step (each step's status in OUT/summary.txt, the outputs in
# OUT/session.log) so one call brings back as much as it can: the build, `devices`, `check-device`
# (forward, --train, --half), batch-1 latency with and without the CUDA graph and in FP16, training-step
# speed, Fashion-MNIST trained for 5 epochs on the GPU, and the shapes detector's mAP on both devices.
set -uo pipefail
cd "$(dirname "$0")/.."
carry=.gpu-carry

prepare() {
  set -e
  rm -rf "$carry"
  mkdir -p "$carry/prefix/include" "$carry/prefix/share/cmake" "$carry/cfg" "$carry/fashion-mnist"
  cp -r /usr/include/nlohmann "$carry/prefix/include/"
  cp -r /usr/share/cmake/nlohmann_json "$carry/prefix/share/cmake/"
  for cfg in darknet19 yolov3-tiny yolov2 yolov2-tiny resnet18 resnet101 alexnet yolov1 yolov1-tiny rnn gru; do
    cp "/usr/share/darknet/cfg/$cfg.cfg" "$carry/cfg/"
  done
  # yolo9000's and darknet9000's tree, found from the folder above the cfgs (Darknet's cfg/ and data/).
  mkdir -p "$carry/data"
  cp /usr/share/darknet/data/9k.tree "$carry/data/"
  for cfg in yolo9000 darknet9000; do
    sed 's|^tree=.*|tree=data/9k.tree|' "/usr/share/darknet/cfg/$cfg.cfg" >"$carry/cfg/$cfg.cfg"
  done
  cp /usr/share/darknet/data/dog.jpg "$carry/"
  cp /usr/share/datasets/fashion-mnist/*.gz "$carry/fashion-mnist/"
  # A small shapes set (the headless build cannot make one: it needs OpenCV), for mAP on both devices.
  build/app/netwright-cli make-shapes "$carry/shapes" --count 300 --seed 5 --size 192x192 >/dev/null
  echo "$PWD" >"$carry/prepared-in" # its lists name files by absolute path: run moves them
  du -sh "$carry"
  echo "carry $carry in the device call, e.g. run: scripts/gpu-session.sh run \$OUT"
}

run() {
  local out=${1:?usage: gpu-session.sh run OUT}
  mkdir -p "$out"
  # Few files: the device tool brings back at most eight.
  local summary=$out/summary.txt log=$out/session.log cli=build-gpu/app/netwright-cli
  : >"$summary"
  : >"$log"
  step() { # step NAME COMMAND...: its output into the log under a header, its status into the summary
    local name=$1
    shift
    local started=$SECONDS
    printf '\n===== %s: %s\n' "$name" "$*" >>"$log"
    "$@" >>"$log" 2>&1
    local status=$?
    printf '%-24s exit %3d  %4ds\n' "$name" "$status" "$((SECONDS - started))" | tee -a "$summary"
    return 0
  }
  step nvidia-smi nvidia-smi
  step configure cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DNETWRIGHT_WITH_UI=OFF \
    -DNETWRIGHT_WITH_OPENCV=OFF -DNETWRIGHT_BUILD_TESTS=OFF -DNETWRIGHT_WITH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$PWD/$carry/prefix"
  step build cmake --build build-gpu --parallel "$(nproc)" --target netwright-cli
  [ -x "$cli" ] || { echo "no $cli: see the build in session.log" | tee -a "$summary"; return 0; }
  local ab=tests/data/ab-cfgs dk=$carry/cfg
  step devices "$cli" devices
  step check-forward "$cli" check-device --batch 2 cfg/shapes-tiny.cfg cfg/fashion-mnist.cfg $dk/darknet19.cfg \
    $dk/yolov3-tiny.cfg $ab/yolov4-tiny.cfg $ab/yolov4.cfg $dk/yolov2.cfg $dk/resnet18.cfg $dk/resnet101.cfg \
    $dk/alexnet.cfg tests/data/gpu/attention-layers.cfg tests/data/gpu/multilabel.cfg tests/data/onnx/se-block.cfg \
    tests/data/onnx/every-op.cfg tests/data/gpu/deconvolution.cfg $dk/yolov1-tiny.cfg $dk/yolov1.cfg \
    tests/data/gpu/recurrent.cfg $dk/rnn.cfg $dk/gru.cfg tests/data/parity/mixed.cfg \
    tests/data/gpu/normalization-resampling.cfg $dk/darknet9000.cfg $dk/yolo9000.cfg
  step check-training "$cli" check-device --train --batch 4 cfg/shapes-tiny.cfg cfg/fashion-mnist.cfg \
    $dk/darknet19.cfg $dk/yolov3-tiny.cfg $ab/yolov4-tiny.cfg $dk/yolov2-tiny.cfg $dk/resnet18.cfg \
    $dk/alexnet.cfg tests/data/gpu/attention-layers.cfg tests/data/gpu/multilabel.cfg tests/data/onnx/every-op.cfg \
    tests/data/gpu/deconvolution.cfg $dk/yolov1-tiny.cfg tests/data/gpu/recurrent.cfg \
    tests/data/gpu/normalization-resampling.cfg tests/data/parity/mixed.cfg
  for cfg in $dk/yolov3-tiny.cfg $ab/yolov4-tiny.cfg $ab/yolov4.cfg; do
    local name
    name=$(basename "$cfg" .cfg)
    step "bench-$name" "$cli" bench "$cfg" --device cuda --runs 100
    step "bench-$name-nograph" "$cli" bench "$cfg" --device cuda --runs 100 --no-graph
  done
  # (yolov4.cfg is 608×608: the loop above measured that size)
  step bench-yolov4-416 "$cli" bench $ab/yolov4.cfg --device cuda --runs 100 --size 416x416
  # FP16 inference: against the CPU's FP32 (the stated tolerance), then its latency.
  step check-half "$cli" check-device --half cfg/shapes-tiny.cfg $dk/yolov3-tiny.cfg $ab/yolov4-tiny.cfg \
    $ab/yolov4.cfg
  for cfg in $dk/yolov3-tiny.cfg $ab/yolov4-tiny.cfg $ab/yolov4.cfg; do
    step "bench-$(basename "$cfg" .cfg)-half" "$cli" bench "$cfg" --device cuda --runs 100 --half
  done
  step bench-yolov4-608-half "$cli" bench $ab/yolov4.cfg --device cuda --runs 100 --size 608x608 --half
  # One training iteration (forward, backward, update; batch uploaded): Fashion-MNIST at 128, yolov4-tiny
  # at 64 with 3 classes (the issue's targets).
  step bench-train-fashion-mnist "$cli" bench cfg/fashion-mnist.cfg --train --device cuda --runs 50
  sed -e 's/^batch=.*/batch=64/' -e 's/^subdivisions=.*/subdivisions=1/' -e 's/^classes=80/classes=3/' \
    -e 's/^filters=255/filters=24/' $ab/yolov4-tiny.cfg >/tmp/yolov4-tiny-3.cfg
  step bench-train-yolov4-tiny "$cli" bench /tmp/yolov4-tiny-3.cfg --train --device cuda --runs 20
  # Fashion-MNIST, 5 epochs (2345 iterations of 128) on the GPU: the issue asks for >= 91 % top-1.
  local data=/tmp/fashion-mnist-gpu.data
  printf 'classes=10\ntrain=%s\ntrain_labels=%s\nvalid=%s\nvalid_labels=%s\nnames=%s\nbackup=%s\n' \
    "$PWD/$carry/fashion-mnist/train-images-idx3-ubyte.gz" "$PWD/$carry/fashion-mnist/train-labels-idx1-ubyte.gz" \
    "$PWD/$carry/fashion-mnist/t10k-images-idx3-ubyte.gz" "$PWD/$carry/fashion-mnist/t10k-labels-idx1-ubyte.gz" \
    "$PWD/cfg/fashion-mnist.names" /tmp/fm-gpu >"$data"
  step train-fashion-mnist "$cli" train "$data" cfg/fashion-mnist.cfg --device cuda --out /tmp/fm-gpu \
    --valid-every 500
  step valid-fashion-mnist "$cli" valid "$data" cfg/fashion-mnist.cfg /tmp/fm-gpu/fashion-mnist_final.weights \
    --device cuda
  cp /tmp/fm-gpu/metrics.csv "$out/fashion-mnist-metrics.csv" 2>/dev/null
  # The bundled shapes detector: the same mAP from the CPU and the GPU (decoding is the CPU's code on
  # both), then 300 iterations of detection training on the GPU and its mAP there.
  local shapes=$carry/shapes/shapes.data weights=resources/weights/shapes-tiny.weights
  sed -i "s#$(cat "$carry/prepared-in")#$PWD#g" "$carry"/shapes/*.txt "$shapes"
  step map-shapes-cpu "$cli" map "$shapes" cfg/shapes-tiny.cfg "$weights" --json
  step map-shapes-gpu "$cli" map "$shapes" cfg/shapes-tiny.cfg "$weights" --json --device cuda
  step map-shapes-half "$cli" map "$shapes" cfg/shapes-tiny.cfg "$weights" --json --device cuda --half
  step train-shapes-gpu "$cli" train "$shapes" cfg/shapes-tiny.cfg --device cuda --max-batches 300 \
    --out /tmp/shapes-gpu
  step map-shapes-trained "$cli" map "$shapes" cfg/shapes-tiny.cfg /tmp/shapes-gpu/shapes-tiny_final.weights \
    --json --device cuda
  cat "$summary"
}

case "${1:-}" in
prepare) prepare ;;
run) run "${2:-}" ;;
*)
  echo "usage: scripts/gpu-session.sh prepare | run OUT" >&2
  exit 2
  ;;
esac
