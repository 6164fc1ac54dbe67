#!/usr/bin/env bash
# What a session lent a GPU runs, in as few device calls as possible (docs/gpu.md).
#
#   scripts/gpu-session.sh prepare       # here: gathers what the GPU machine lacks into .gpu-carry/
#                                        # (netwright-cli built here with CUDA when build-gpu-local/ has
#                                        # it, with the libraries it needs; nlohmann-json, Darknet's cfgs,
#                                        # Fashion-MNIST, a small shapes set)
#   scripts/gpu-session.sh run OUT [SECONDS] [STEPS]
#                                        # there (carry .gpu-carry): runs the carried binary, or builds
#                                        # the headless CLI when it cannot start there, then each check
#                                        # and benchmark into OUT/ until SECONDS (default 540) have passed
#
# STEPS, a comma-separated list of step names (default: all, in order of value), lets a second call rerun
# what failed. `run` goes on after a failed step (each step's status in OUT/summary.txt, the outputs in
# OUT/session.log) and every step has its own time limit, so one call brings back as much as it can.
#
# build-gpu-local/ is the headless CUDA build made here for carrying (no Qt, OpenCV, MPI, ONNX or NCCL,
# so it needs only libraries that travel or that every CUDA machine has):
#   cmake -S . -B build-gpu-local -G Ninja -DCMAKE_BUILD_TYPE=Release -DNETWRIGHT_WITH_UI=OFF \
#     -DNETWRIGHT_WITH_OPENCV=OFF -DNETWRIGHT_BUILD_TESTS=OFF -DNETWRIGHT_BUILD_BENCH=OFF \
#     -DNETWRIGHT_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_UNITY_BUILD=ON \
#     -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON -DCMAKE_DISABLE_FIND_PACKAGE_Protobuf=ON -DNETWRIGHT_WITH_NCCL=OFF
#   cmake --build build-gpu-local --target netwright-cli
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
  # GPU_CARRY_FASHION=0 leaves Fashion-MNIST (31 MB) behind, for a call that does not train it.
  [ "${GPU_CARRY_FASHION:-1}" = 0 ] || cp /usr/share/datasets/fashion-mnist/*.gz "$carry/fashion-mnist/"
  # Shapes sets (the headless build cannot make them: it needs OpenCV): a small one for mAP on both
  # devices, and BENCHMARKS.md's training set (seed 1, 2,000 images) with a fresh seed-777 set to score
  # it, at the network's 192×192 rather than 256×256 so that they fit in what a call carries.
  local shapes_cli=${SHAPES_CLI:-build/app/netwright-cli}
  "$shapes_cli" make-shapes "$carry/shapes" --count 300 --seed 5 --size 192x192 >/dev/null
  "$shapes_cli" make-shapes "$carry/shapes-train" --count 2000 --seed 1 --size 192x192 >/dev/null
  "$shapes_cli" make-shapes "$carry/shapes-fresh" --count 500 --seed 777 --size 192x192 >/dev/null
  echo "$PWD" >"$carry/prepared-in" # its lists name files by absolute path: run moves them
  local binary=build-gpu-local/app/netwright-cli
  if [ -x "$binary" ]; then
    # The binary and the libraries of this machine it needs that a CUDA machine may lack or hold in
    # another version (OpenBLAS, compressed: it is the largest). The CUDA runtime is linked in; cuDNN and
    # cuBLAS, opened on first use, are the GPU machine's own.
    # xz, since the whole call may carry 64 MiB.
    local libs=$carry/lib
    mkdir -p "$carry/bin" "$libs"
    cp "$binary" "$carry/bin/"
    for lib in libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 libgomp.so.1 libjpeg.so.62 libpng16.so.16 \
      libstdc++.so.6 libgcc_s.so.1; do
      cp -L "/usr/lib/x86_64-linux-gnu/$lib" "$libs/"
    done
    tar -C "$libs" -cf - . | xz -9 -T2 >"$carry/lib.tar.xz"
    rm -rf "$libs"
  fi
  du -sh "$carry"
  echo "carry $carry in the device call, e.g. run: scripts/gpu-session.sh run \$OUT"
}

# Where this machine keeps cuDNN and cuBLAS: the system's, CUDA's, or the Python wheels' (PyTorch's).
cuda_library_path() {
  local dirs=/usr/local/cuda/lib64:/usr/local/cuda/lib found
  for name in libcudnn.so.9 libcublas.so.13 libcublasLt.so.13; do
    found=$(find /usr/lib /usr/local /opt -name "$name" 2>/dev/null | head -1)
    [ -n "$found" ] && dirs=$dirs:$(dirname "$found")
  done
  echo "$dirs"
}

run() {
  local out=${1:?usage: gpu-session.sh run OUT [SECONDS] [STEPS]} budget=${2:-540} only=${3:-}
  mkdir -p "$out"
  # Few files: the device tool brings back at most eight.
  local summary=$out/summary.txt log=$out/session.log cli
  : >"$summary"
  : >"$log"
  step() { # step NAME LIMIT COMMAND...: its output into the log under a header, its status into the summary
    local name=$1 limit=$2
    shift 2
    if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then return 0; fi
    local left=$((budget - SECONDS))
    if [ "$left" -lt 5 ]; then
      printf '%-28s skipped (out of time)\n' "$name" | tee -a "$summary"
      return 0
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    local started=$SECONDS
    printf '\n===== %s: %s\n' "$name" "$*" >>"$log"
    timeout "$limit" "$@" >>"$log" 2>&1
    local status=$?
    printf '%-28s exit %3d  %4ds\n' "$name" "$status" "$((SECONDS - started))" | tee -a "$summary"
    return 0
  }
  step nvidia-smi 15 nvidia-smi
  local carried=$carry/bin/netwright-cli
  if [ -x "$carried" ]; then
    mkdir -p "$carry/lib"
    tar -C "$carry/lib" -xJf "$carry/lib.tar.xz" 2>>"$log" ||
      python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$carry/lib.tar.xz" "$carry/lib"
    export LD_LIBRARY_PATH=$PWD/$carry/lib:$(cuda_library_path)
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >>"$log"
    ldd "$carried" >>"$log" 2>&1
  fi
  if [ -x "$carried" ] && "$carried" --version >>"$log" 2>&1; then
    cli=$carried
    echo "using the carried binary" | tee -a "$summary"
  else
    cli=build-gpu/app/netwright-cli
    echo "the carried binary did not start: building here" | tee -a "$summary"
    step configure 60 cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DNETWRIGHT_WITH_UI=OFF \
      -DNETWRIGHT_WITH_OPENCV=OFF -DNETWRIGHT_BUILD_TESTS=OFF -DNETWRIGHT_BUILD_BENCH=OFF \
      -DNETWRIGHT_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_UNITY_BUILD=ON \
      -DCMAKE_PREFIX_PATH="$PWD/$carry/prefix"
    step build 400 cmake --build build-gpu --parallel "$(nproc)" --target netwright-cli
    [ -x "$cli" ] || { echo "no $cli: see the build in session.log" | tee -a "$summary"; return 0; }
  fi
  local ab=tests/data/ab-cfgs dk=$carry/cfg
  step devices 20 "$cli" devices
  step check-forward 90 "$cli" check-device --batch 2 cfg/shapes-tiny.cfg cfg/fashion-mnist.cfg \
    $dk/darknet19.cfg $dk/yolov3-tiny.cfg $ab/yolov4-tiny.cfg $ab/yolov4.cfg $dk/yolov2.cfg $dk/resnet18.cfg \
    $dk/resnet101.cfg $dk/alexnet.cfg tests/data/gpu/attention-layers.cfg tests/data/gpu/multilabel.cfg \
    tests/data/onnx/se-block.cfg tests/data/onnx/every-op.cfg tests/data/gpu/deconvolution.cfg \
    $dk/yolov1-tiny.cfg $dk/yolov1.cfg tests/data/gpu/recurrent.cfg $dk/rnn.cfg $dk/gru.cfg \
    tests/data/parity/mixed.cfg tests/data/gpu/normalization-resampling.cfg $dk/darknet9000.cfg $dk/yolo9000.cfg \
    tests/data/gpu/gaussian-head.cfg
  # The algorithms cuDNN was given, one network's worth (NETWRIGHT_CUDNN_LOG).
  step cudnn-choices 30 env NETWRIGHT_CUDNN_LOG=1 "$cli" check-device --train --batch 4 $dk/yolov3-tiny.cfg
  step check-training 90 "$cli" check-device --train --batch 4 cfg/shapes-tiny.cfg cfg/fashion-mnist.cfg \
    $dk/darknet19.cfg $dk/yolov3-tiny.cfg $ab/yolov4-tiny.cfg $dk/yolov2-tiny.cfg $dk/resnet18.cfg \
    $dk/alexnet.cfg tests/data/gpu/attention-layers.cfg tests/data/gpu/multilabel.cfg tests/data/onnx/every-op.cfg \
    tests/data/gpu/deconvolution.cfg $dk/yolov1-tiny.cfg tests/data/gpu/recurrent.cfg \
    tests/data/gpu/normalization-resampling.cfg tests/data/parity/mixed.cfg tests/data/gpu/gaussian-head.cfg
  for cfg in $dk/yolov3-tiny.cfg $ab/yolov4-tiny.cfg $ab/yolov4.cfg; do
    step "bench-$(basename "$cfg" .cfg)" 30 "$cli" bench "$cfg" --device cuda --runs 100
  done
  # TF32: FP32 data on tensor cores, the "FP32" of AlexeyAB's Darknet (CUDNN_TENSOR_OP_MATH) and PyTorch.
  for cfg in $dk/yolov3-tiny.cfg $ab/yolov4-tiny.cfg $ab/yolov4.cfg; do
    step "bench-$(basename "$cfg" .cfg)-tf32" 30 "$cli" bench "$cfg" --device cuda --runs 100 --tf32
  done
  # What FFT and Winograd would gain (they are left out of FP32 for their rounding: docs/gpu.md).
  for cfg in $dk/yolov3-tiny.cfg $ab/yolov4-tiny.cfg $ab/yolov4.cfg; do
    step "bench-$(basename "$cfg" .cfg)-transforms" 30 env NETWRIGHT_CUDNN_TRANSFORMS=1 "$cli" bench "$cfg" \
      --device cuda --runs 100
  done
  # The bundled shapes detector: the same mAP from the CPU and the GPU (decoding is the CPU's code on
  # both), FP16 too.
  local shapes=$carry/shapes/shapes.data weights=resources/weights/shapes-tiny.weights
  sed -i "s#$(cat "$carry/prepared-in")#$PWD#g" "$carry"/shapes/*.txt "$shapes"
  step map-shapes-cpu 40 "$cli" map "$shapes" cfg/shapes-tiny.cfg "$weights" --json
  step map-shapes-gpu 30 "$cli" map "$shapes" cfg/shapes-tiny.cfg "$weights" --json --device cuda
  # Fashion-MNIST: one training iteration at batch 128 here and in PyTorch on the same GPU, then 5 epochs
  # (2345 iterations of 128) on the GPU: the issue asks for >= 91 % top-1.
  step bench-train-fashion-mnist 30 "$cli" bench cfg/fashion-mnist.cfg --train --device cuda --runs 50
  step pytorch-fashion-mnist 60 python3 bench/pytorch_fashion.py 200 16 cuda "$carry/fashion-mnist/"
  local data=/tmp/fashion-mnist-gpu.data
  printf 'classes=10\ntrain=%s\ntrain_labels=%s\nvalid=%s\nvalid_labels=%s\nnames=%s\nbackup=%s\n' \
    "$PWD/$carry/fashion-mnist/train-images-idx3-ubyte.gz" "$PWD/$carry/fashion-mnist/train-labels-idx1-ubyte.gz" \
    "$PWD/$carry/fashion-mnist/t10k-images-idx3-ubyte.gz" "$PWD/$carry/fashion-mnist/t10k-labels-idx1-ubyte.gz" \
    "$PWD/cfg/fashion-mnist.names" /tmp/fm-gpu >"$data"
  step train-fashion-mnist 150 "$cli" train "$data" cfg/fashion-mnist.cfg --device cuda --out /tmp/fm-gpu \
    --valid-every 500
  step valid-fashion-mnist 30 "$cli" valid "$data" cfg/fashion-mnist.cfg /tmp/fm-gpu/fashion-mnist_final.weights \
    --device cuda
  cp /tmp/fm-gpu/metrics.csv "$out/fashion-mnist-metrics.csv" 2>/dev/null
  # FP16 inference against the CPU's FP32 (the stated tolerance), then its latency.
  step check-half 60 "$cli" check-device --half cfg/shapes-tiny.cfg $dk/yolov3-tiny.cfg $ab/yolov4-tiny.cfg \
    $ab/yolov4.cfg
  step map-shapes-half 30 "$cli" map "$shapes" cfg/shapes-tiny.cfg "$weights" --json --device cuda --half
  step check-tf32 60 "$cli" check-device --tf32 cfg/shapes-tiny.cfg $dk/yolov3-tiny.cfg $ab/yolov4-tiny.cfg \
    $ab/yolov4.cfg
  step map-shapes-tf32 30 "$cli" map "$shapes" cfg/shapes-tiny.cfg "$weights" --json --device cuda --tf32
  for cfg in $dk/yolov3-tiny.cfg $ab/yolov4-tiny.cfg $ab/yolov4.cfg; do
    step "bench-$(basename "$cfg" .cfg)-half" 40 "$cli" bench "$cfg" --device cuda --runs 100 --half
    step "bench-$(basename "$cfg" .cfg)-nograph" 40 "$cli" bench "$cfg" --device cuda --runs 100 --no-graph
  done
  step bench-yolov4-416 40 "$cli" bench $ab/yolov4.cfg --device cuda --runs 100 --size 416x416
  # One training iteration of yolov4-tiny at batch 64 with 3 classes (the issue's target).
  sed -e 's/^batch=.*/batch=64/' -e 's/^subdivisions=.*/subdivisions=1/' -e 's/^classes=80/classes=3/' \
    -e 's/^filters=255/filters=24/' $ab/yolov4-tiny.cfg >/tmp/yolov4-tiny-3.cfg
  step bench-train-yolov4-tiny 60 "$cli" bench /tmp/yolov4-tiny-3.cfg --train --device cuda --runs 20
  # BENCHMARKS.md's shapes run on the GPU: from scratch, 5,400 iterations, then mAP on the fresh set.
  local train_shapes=$carry/shapes-train/shapes.data fresh=$carry/shapes-fresh
  sed -i "s#$(cat "$carry/prepared-in")#$PWD#g" "$carry"/shapes-train/*.txt "$train_shapes" "$fresh"/*.txt \
    "$fresh/shapes.data"
  cat "$fresh/train.txt" "$fresh/valid.txt" >"$fresh/all.txt"
  sed -i "s#^valid *=.*#valid=$PWD/$fresh/all.txt#" "$fresh/shapes.data"
  step train-shapes-full 240 "$cli" train "$train_shapes" cfg/shapes-tiny.cfg --device cuda --out /tmp/shapes-full
  cp /tmp/shapes-full/metrics.csv "$out/shapes-metrics.csv" 2>/dev/null
  step map-shapes-fresh 40 "$cli" map "$fresh/shapes.data" cfg/shapes-tiny.cfg \
    /tmp/shapes-full/shapes-tiny_final.weights --json --device cuda
  # Detection training from scratch on the GPU, then its mAP there.
  step train-shapes-gpu 120 "$cli" train "$shapes" cfg/shapes-tiny.cfg --device cuda --max-batches 300 \
    --out /tmp/shapes-gpu
  step map-shapes-trained 30 "$cli" map "$shapes" cfg/shapes-tiny.cfg /tmp/shapes-gpu/shapes-tiny_final.weights \
    --json --device cuda
  cat "$summary"
}

case "${1:-}" in
prepare) prepare ;;
run) run "${2:-}" "${3:-540}" "${4:-}" ;;
*)
  echo "usage: scripts/gpu-session.sh prepare | run OUT [SECONDS] [STEPS]" >&2
  exit 2
  ;;
esac
