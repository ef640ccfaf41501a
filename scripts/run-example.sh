#!/usr/bin/env bash
# run-example.sh: the README's first command. On a fresh Debian machine it sets
# everything up (scripts/setup.sh: perf, the .venv with iree-compile, the
# release build), records a real iree-compile of an example model with the
# recommended perf settings, and leaves in compile-perf-runs/example/:
#   perf.data       the recording
#   top.txt         the functions with the most samples (self and inclusive)
#   top.json        the same as JSON
#   stacks.folded   folded stacks for inferno-flamegraph or flamegraph.pl
#   summary.txt     samples, unwinding and symbolization figures
#
# Usage: scripts/run-example.sh [WORKLOAD]   (default f32-literals; see
#        `python3 scripts/workloads.py --list`)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

workload=${1:-f32-literals}
out=compile-perf-runs/example
bash scripts/setup.sh
mkdir -p "$out"
python3 scripts/workloads.py "$workload" --out "$out/model.mlir"

echo "example: recording iree-compile of $workload" >&2
# -z: zstd keeps the file small; dwarf,65528: whole stacks (libIREECompiler has
# no frame pointers); --buildid-mmap: build ids that -z would otherwise drop;
# cpu-clock: works where hardware counters do not (VMs).
perf record -z -F 499 -e cpu-clock --call-graph dwarf,65528 --buildid-mmap \
  -o "$out/perf.data" -- \
  .venv/bin/iree-compile --iree-hal-target-device=local \
  --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic \
  "$out/model.mlir" -o "$out/model.vmfb"

bin=target/release/compile-perf
"$bin" top "$out/perf.data" -n 40 -o "$out/top.txt" 2> "$out/summary.txt"
"$bin" top "$out/perf.data" -n 200 --format json -o "$out/top.json" -q
"$bin" collapse "$out/perf.data" -o "$out/stacks.folded" -q
cat "$out/summary.txt" >&2
cat "$out/top.txt"
echo "example: results are in $out/" >&2
