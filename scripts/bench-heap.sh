#!/usr/bin/env bash
# bench-heap.sh: what `record --heap` costs the compile, against plain
# `record` and against heaptrack, on the same compile (not run in CI).
#
# It writes a workload (scripts/workloads.py NAME --scale SCALE; default
# const-eval small) and compiles it with the native iree-compile (the
# binary the venv's Python launcher execs) RUNS times (default 5) in each
# of four ways, interleaved (one of each per round, so that the machine's
# drift hits all four alike):
#   plain     the native compiler alone (wall time of the process)
#   record    compile-perf record -q       (the compile's own wall, run.json)
#   heap      compile-perf record -q --heap (the same)
#   heaptrack heaptrack -o FILE            (wall time of heaptrack and the compile)
# and prints the median of each, with the ratios heap/record,
# heaptrack/plain and heap/plain, as a Markdown table on stdout.
# Needs: target/release/compile-perf and libheap_sampler.so beside it
# (cargo build --release), perf, heaptrack (apt-get install heaptrack), root.
#
# Usage: scripts/bench-heap.sh [NAME [SCALE]]     (RUNS=N to change the runs)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

name=${1:-const-eval}
scale=${2:-small}
runs=${RUNS:-5}
bin=${CARGO_TARGET_DIR:-target}/release/compile-perf
[ -x "$bin" ] || { echo "bench-heap: $bin is missing: cargo build --release" >&2; exit 1; }
command -v heaptrack >/dev/null || { echo "bench-heap: heaptrack is missing: apt-get install heaptrack" >&2; exit 1; }
native=$(.venv/bin/python -c 'import os, iree.compiler as c; print(os.path.join(os.path.dirname(c.__file__), "_mlir_libs", "iree-compile"))')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 scripts/workloads.py "$name" --scale "$scale" --out "$tmp/input.mlir"
flags=(--iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu
       --iree-llvmcpu-target-cpu=generic "$tmp/input.mlir" -o "$tmp/out.vmfb")

now() { date +%s.%N; }
wall_of_run() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["command_wall_seconds"])' "$1/run.json"; }

for round in $(seq "$runs"); do
  echo "bench-heap: round $round of $runs" >&2
  start=$(now); "$native" "${flags[@]}"; end=$(now)
  echo "plain $(echo "$end - $start" | bc)" >>"$tmp/times"
  rm -rf "$tmp/record"; "$bin" record -q -o "$tmp/record" -- "$native" "${flags[@]}" >/dev/null
  echo "record $(wall_of_run "$tmp/record")" >>"$tmp/times"
  rm -rf "$tmp/heap"; "$bin" record -q --heap -o "$tmp/heap" -- "$native" "${flags[@]}" >/dev/null
  echo "heap $(wall_of_run "$tmp/heap")" >>"$tmp/times"
  rm -f "$tmp"/heaptrack.*
  start=$(now); heaptrack -o "$tmp/heaptrack" "$native" "${flags[@]}" >/dev/null 2>&1; end=$(now)
  echo "heaptrack $(echo "$end - $start" | bc)" >>"$tmp/times"
done

python3 - "$tmp/times" "$name" "$scale" "$runs" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    way, seconds = line.split()
    times.setdefault(way, []).append(float(seconds))
median = {way: statistics.median(values) for way, values in times.items()}
print(f"{sys.argv[2]} --scale {sys.argv[3]}, medians of {sys.argv[4]} interleaved runs (seconds)\n")
print("| way | median s | runs |")
print("|---|---|---|")
for way in ["plain", "record", "heap", "heaptrack"]:
    print(f"| {way} | {median[way]:.2f} | {' '.join(f'{v:.2f}' for v in times[way])} |")
print()
print(f"record --heap / record: {median['heap'] / median['record']:.2f}x")
print(f"record --heap / plain: {median['heap'] / median['plain']:.2f}x")
print(f"heaptrack / plain: {median['heaptrack'] / median['plain']:.2f}x")
PY
