#!/usr/bin/env bash
# Installs the Debian 12 packages Netwright builds, tests and runs with — only the missing ones.
# Non-interactive and idempotent: when everything is there it only checks (well under a second).
# Works as root, or as a user with sudo.
set -euo pipefail

packages=(
  # toolchain (clang and its runtimes for the sanitizer and fuzzing build, scripts/sanitize.sh)
  build-essential cmake ninja-build pkg-config dpkg-dev clang-14 libclang-rt-14-dev libomp-14-dev
  # the manual pages, written from each program's --help
  help2man
  # libraries
  qt6-base-dev qt6-base-dev-tools qt6-qpa-plugins qt6-image-formats-plugins libgl-dev libegl-dev
  libqcustomplot-dev libqcustomplot2.1-qt6 libopencv-dev libopenblas-dev libgraphviz-dev
  nlohmann-json3-dev libcli11-dev zlib1g-dev libonnx-dev libprotobuf-dev libopenmpi-dev openmpi-bin
  # fontconfig finds a font for labels beyond ASCII on images (without it: Hershey's ASCII font)
  libfontconfig-dev
  # reference peers and data for the tests, fonts for screenshots
  darknet dataset-fashion-mnist python3-torch python3-numpy python3-onnx fonts-dejavu-core
  # de_DE's source, built by test_editor to lay out a graph under a decimal-comma locale
  locales
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "setup: these packages are missing and I am not root and have no sudo: ${missing[*]}" >&2
    exit 1
  fi
  sudo="sudo"
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
