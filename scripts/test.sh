#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (CTest, Qt Test, offscreen GUI).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh -DNETWRIGHT_WARNINGS_AS_ERRORS=ON
cd build
QT_QPA_PLATFORM=offscreen ctest --parallel "$(nproc)" --output-on-failure
