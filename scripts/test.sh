#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (CTest, Qt Test, offscreen GUI);
# then builds the headless netwright-cli (no Qt, no OpenCV) and checks it against the full build
# (scripts/headless-check.sh); then the same suites under AddressSanitizer + UndefinedBehaviorSanitizer with the libFuzzer
# harnesses (scripts/sanitize.sh: a clang build in build-sanitize/, each harness fuzzing for
# NETWRIGHT_FUZZ_SECONDS, 15 here). NETWRIGHT_SKIP_SANITIZE=1 runs only the first part.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's wall time, so a CI log shows where its minutes went.
stage_start=$(date +%s)
stage_done() {
  local now
  now=$(date +%s)
  echo "test.sh: $1 took $((now - stage_start)) s"
  stage_start=$now
}
scripts/setup.sh
stage_done "setup"
# A fresh build/ (CI's clean checkout) is a unity build, 8 sources per compiler run: 300 s instead of
# 560 on two cores, and without debug information (-O2 as RelWithDebInfo, no -g, which was 30-45 % of
# each compile: test_train_panel.cpp 25.6 s with it, 17.7 s without; a failing test names its file and
# line without it). An existing build/ keeps its settings, so a developer's scripts/build.sh tree still
# compiles every source on its own, which catches a missing include, with debug information.
fresh=()
no_debug_info=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DCMAKE_CUDA_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG")
[ -f build/CMakeCache.txt ] || fresh=(-DCMAKE_UNITY_BUILD=ON "${no_debug_info[@]}")
scripts/build.sh -DNETWRIGHT_WARNINGS_AS_ERRORS=ON "${fresh[@]}"
stage_done "build"
(cd build && QT_QPA_PLATFORM=offscreen ctest --parallel "$(nproc)" --output-on-failure)
stage_done "test suite"
# (Its kernels for one GPU architecture, with its PTX so the tree still runs on newer GPUs: they compile
# as the plain build's, which has all five, and nothing runs on a GPU here; five were 44 of the
# headless build's 231 CPU seconds.)
headless_fresh=()
[ -f build-headless/CMakeCache.txt ] || headless_fresh=("${no_debug_info[@]}")
scripts/headless-check.sh -DCMAKE_CUDA_ARCHITECTURES=75 "${headless_fresh[@]}"
stage_done "headless check"
if [ "${NETWRIGHT_SKIP_SANITIZE:-0}" != 1 ]; then
  # test_detection_training (3 minutes under the sanitizers) runs in the plain suite above; its label
  # and .data parsing is fuzzed by fuzz_labels_data here.
  NETWRIGHT_FUZZ_SECONDS="${NETWRIGHT_FUZZ_SECONDS:-15}" scripts/sanitize.sh -E test_detection_training
  stage_done "sanitizer build and suite"
fi
