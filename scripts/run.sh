#!/usr/bin/env bash
# Installs what is missing, builds, and launches the studio on the bundled Fashion-MNIST network.
# Arguments go to netwright (e.g. a .cfg to open instead, or --screenshot out.png).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ]; then
  echo "run: built build/app/netwright, but there is no display to show it on (DISPLAY is not set)." >&2
  echo "run: start it from a desktop session, or on a virtual display: apt-get install xvfb, then" >&2
  echo "run:   xvfb-run -a build/app/netwright" >&2
  exit 1
fi
exec build/app/netwright "$@"
