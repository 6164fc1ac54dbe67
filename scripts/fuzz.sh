#!/usr/bin/env bash
# Runs the libFuzzer harnesses (fuzz/) longer than the fuzz tests do: each one for SECONDS (default 600),
# one after another, starting from its seed corpus fuzz/corpus/<harness>/ (only read) and from
# fuzz/work/<harness>/ (new corpus entries go there and are kept between runs; ignored by git).
# Crash, timeout and out-of-memory inputs are written to fuzz/findings/<harness>-<kind>-<sha1>.
# Prints each harness's executions (libFuzzer's stat::number_of_executed_units) at the end.
#
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]      e.g. scripts/fuzz.sh 3600 fuzz_cfg
# Builds the harnesses in build-sanitize/ (configured by scripts/sanitize.sh, which it calls when needed).
set -euo pipefail
cd "$(dirname "$0")/.."
build="build-sanitize"
seconds=${1:-600}
[ $# -gt 0 ] && shift
case "$seconds" in
  ''|*[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS] [HARNESS...]" >&2; exit 2 ;;
esac

[ -f "$build/CMakeCache.txt" ] || scripts/sanitize.sh --configure-only
list="$build/fuzz/harnesses.txt"
[ -f "$list" ] || { echo "fuzz: $list is missing: is $build configured with -DNETWRIGHT_FUZZ=ON?" >&2; exit 1; }
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || mapfile -t harnesses < <(cut -d' ' -f1 "$list")
cmake --build "$build" --parallel "$(nproc)" --target "${harnesses[@]}"

export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p fuzz/findings "$build/fuzz/logs"
summary=()
status=0
for name in "${harnesses[@]}"; do
  read -r _ max_len environment < <(grep "^$name " "$list") ||
    { echo "fuzz: no harness $name (see $list)" >&2; exit 2; }
  mkdir -p "fuzz/work/$name"
  log="$build/fuzz/logs/$name.log"
  echo "fuzz: $name for $seconds s (log: $log)"
  result=ok
  # shellcheck disable=SC2086 # $environment is a list of KEY=VALUE words
  env $environment "$build/fuzz/$name" "fuzz/work/$name" "fuzz/corpus/$name" \
    -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="fuzz/findings/$name-" > "$log" 2>&1 || { result=FAILED; status=1; }
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  added=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -1)
  if [ "$result" = FAILED ]; then
    grep -E "^==[0-9]+==ERROR|SUMMARY|^artifact_prefix|Test unit written to" "$log" | head -5 || true
  fi
  summary+=("$(printf '%-18s %-6s %12s executions %8s exec/s %6s new units' "$name" "$result" "${runs:-?}" "${speed:-?}" "${added:-?}")")
done
echo
printf '%s\n' "${summary[@]}"
exit $status
