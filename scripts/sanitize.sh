#!/usr/bin/env bash
# Builds Netwright with AddressSanitizer + UndefinedBehaviorSanitizer and the libFuzzer harnesses
# (clang, build-sanitize/), then runs the whole CTest suite there: every Qt Test suite under the
# sanitizers and each fuzz test (its seed corpus, then NETWRIGHT_FUZZ_SECONDS of fuzzing, default 20).
#
# Usage: scripts/sanitize.sh [--configure-only | --build-only] [ctest arguments...]
#   scripts/sanitize.sh                 everything
#   scripts/sanitize.sh -L fuzz         only the fuzz tests;  -E fuzz: everything but them
#   NETWRIGHT_FUZZ_SECONDS=60 scripts/sanitize.sh -L fuzz
# Warnings are not errors here: clang warns where g++ (the normal build) does not. The CUDA backend is
# off here: the plain build compiles it, and the sanitizers cannot see into device code.
# Debug information is line tables only: the reports' stacks still name every function, file and line,
# and each compile is about 7 % shorter than with full -g (the CLI's largest batch: 51 s instead of 55).
# A unity build (8 sources per compiler run) parses the shared headers once per batch instead of once
# per file; scripts/build.sh (a developer's build) still compiles every source on its own, so a source
# that forgets an include is caught there.
set -euo pipefail
cd "$(dirname "$0")/.."
build="build-sanitize"
jobs=$(nproc)

mode=all
case "${1:-}" in
  --configure-only) mode=configure; shift ;;
  --build-only) mode=build; shift ;;
esac

missing() {
  echo "sanitize: $1" >&2
  echo "sanitize: on Debian 12: apt-get install --no-install-recommends clang-14 libclang-rt-14-dev libomp-14-dev ninja-build" >&2
  echo "sanitize: (clang-14 for the compiler, libclang-rt-14-dev for the ASan/UBSan/libFuzzer runtimes," >&2
  echo "sanitize:  libomp-14-dev for OpenMP under clang; the 'clang' package adds the clang/clang++ names)" >&2
  exit 1
}

cxx=""
for candidate in clang++ clang++-14; do
  if command -v "$candidate" >/dev/null; then
    cxx=$(command -v "$candidate")
    break
  fi
done
[ -n "$cxx" ] || missing "clang++ is not installed"
cc=${cxx/clang++/clang}
command -v ninja >/dev/null || missing "ninja is not installed"

# The runtimes, with the flags the build uses: a fuzzer linked with ASan/UBSan, and OpenMP.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '%s\n' '#include <cstddef>' '#include <cstdint>' \
  'extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }' > "$probe/fuzz.cpp"
"$cxx" -fsanitize=fuzzer,address,undefined "$probe/fuzz.cpp" -o "$probe/fuzz" 2> "$probe/fuzz.log" ||
  { cat "$probe/fuzz.log" >&2; missing "clang cannot link a libFuzzer + ASan/UBSan program (compiler-rt missing)"; }
printf '%s\n' '#include <omp.h>' 'int main() { return omp_get_max_threads() > 0 ? 0 : 1; }' > "$probe/omp.cpp"
if ! "$cxx" -fopenmp "$probe/omp.cpp" -o "$probe/omp" 2> "$probe/omp.log" || ! "$probe/omp"; then
  cat "$probe/omp.log" >&2
  missing "clang cannot build an OpenMP program (libomp missing)"
fi

start=$(date +%s)
fuzz_seconds=()
[ -n "${NETWRIGHT_FUZZ_SECONDS:-}" ] && fuzz_seconds=(-DNETWRIGHT_FUZZ_SECONDS="$NETWRIGHT_FUZZ_SECONDS")
cmake -S . -B "$build" -G Ninja --no-warn-unused-cli \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
  -DNETWRIGHT_SANITIZE=ON -DNETWRIGHT_FUZZ=ON -DNETWRIGHT_BUILD_BENCH=OFF -DNETWRIGHT_WITH_CUDA=OFF \
  -DCMAKE_UNITY_BUILD=ON \
  -DNETWRIGHT_WARNINGS_AS_ERRORS=OFF "${fuzz_seconds[@]}" > "$probe/configure.log" ||
  { cat "$probe/configure.log" >&2; exit 1; }
[ "$mode" = configure ] && exit 0
cmake --build "$build" --parallel "$jobs"
built=$(date +%s)
echo "sanitize: build took $((built - start)) s"
[ "$mode" = build ] && exit 0

# LeakSanitizer is on (ASan's default on Linux, said explicitly); the tests that run libdarknet's
# reference helpers get tests/lsan.supp from tests/CMakeLists.txt. UBSan stops at its first report.
export QT_QPA_PLATFORM=offscreen
export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
ctest --test-dir "$build" --parallel "$jobs" --output-on-failure "$@" || status=$?
echo "sanitize: build $((built - start)) s, tests $(($(date +%s) - built)) s"
if compgen -G "$build/fuzz/findings/*" >/dev/null; then
  echo "sanitize: fuzz findings (crash/timeout/OOM inputs) in $build/fuzz/findings/:"
  ls -l "$build/fuzz/findings/"
fi
exit $status
