#!/usr/bin/env bash
# run-example.sh: the first of the README's two commands. On a fresh Debian machine (as root)
# it sets everything up (scripts/setup.sh: perf, the .venv with
# iree-base-compiler==3.13.0, the release build), then records iree-compile
# compiling the shipped example model (examples/model.mlir) with
# `compile-perf record`, prints the category table, and leaves
# compile-perf-runs/example/ with perf.data, run.json, report.txt, report.json,
# flamegraph.svg, compiler.svg, flamegraph-inverted.svg (and model.vmfb).
#
# Usage: scripts/run-example.sh      (works from any directory; exit code is
#        compile-perf record's, see docs/recording.md and docs/troubleshooting.md)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
out=compile-perf-runs/example
exec target/release/compile-perf record -o "$out" --force -- \
  .venv/bin/iree-compile --iree-hal-target-device=local \
  --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic \
  examples/model.mlir -o "$out/model.vmfb"
