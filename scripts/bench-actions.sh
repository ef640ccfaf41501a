#!/usr/bin/env bash
# bench-actions.sh: what `record --actions` costs the compile.
#
# On the same compile (default: scripts/workloads.py many-dispatches --scale small), it runs
# `compile-perf record` --runs times in each of three modes, interleaved (the
# order rotates each round): without actions, with `--actions` (mode times: the
# action profiler alone) and with `--actions=units` (the profiler and the action
# log, which names the IR units, on one thread). For each it takes the compile's wall time under perf
# (command_wall_seconds of run.json) and, for the modes with actions, the bytes
# the compiler wrote and the bytes of actions.bin kept (run.json `actions`). It
# prints a Markdown table of medians and each mode's time over the plain record's.
# Each run waits until the CPUs have been idle for 2 s (other work on 2 cores is
# larger noise than some of what is measured).
#
# Usage: scripts/bench-actions.sh [--runs N] [--scale S] [--workload NAME | INPUT.mlir]
#   --scale S   the workload's scale (scripts/workloads.py --scale); default small
# Environment: COMPILE_PERF (default target/release/compile-perf), IREE_COMPILE
#   (default .venv/bin/iree-compile).
set -euo pipefail

here=$PWD
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'bench-actions: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

runs=5 workload=many-dispatches input= scale=small
while (($#)); do
  case "$1" in
    --runs) runs=${2:?}; shift ;;
    --workload) workload=${2:?}; shift ;;
    --scale) scale=${2:?}; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) input=$1; workload= ;;
  esac
  shift
done
compile_perf=${COMPILE_PERF:-target/release/compile-perf}
iree_compile=${IREE_COMPILE:-.venv/bin/iree-compile}
[ -x "$compile_perf" ] || die "no $compile_perf: run scripts/setup.sh"
[ -x "$iree_compile" ] || die "no $iree_compile: run scripts/setup.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "$workload" ]; then
  input=$tmp/$workload.mlir
  python3 scripts/workloads.py "$workload" --scale "$scale" --out "$input"
else
  case "$input" in /*) ;; *) input=$here/$input ;; esac
fi

# Waits until the CPUs were idle for 2 s (at most 60 s).
wait_idle() {
  for _ in $(seq 30); do
    read -r _ u1 n1 s1 i1 _ < /proc/stat
    sleep 2
    read -r _ u2 n2 s2 i2 _ < /proc/stat
    busy=$(((u2 + n2 + s2) - (u1 + n1 + s1)))
    idle=$((i2 - i1))
    if ((busy * 20 < busy + idle)); then return 0; fi
  done
  log "the CPUs were not idle for 60 s: measuring anyway"
}

modes=(plain times units)
flags_of() {
  case "$1" in
    plain) ;;
    times) echo --actions=times ;;
    units) echo --actions=units ;;
  esac
}
for round in $(seq "$runs"); do
  for offset in 0 1 2; do
    mode=${modes[$(((round + offset) % 3))]}
    wait_idle
    dir=$tmp/$mode-$round
    # shellcheck disable=SC2046
    "$compile_perf" record -q $(flags_of "$mode") -o "$dir" -- "$iree_compile" \
      --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu \
      --iree-llvmcpu-target-cpu=host "$input" -o "$tmp/out.vmfb" > /dev/null 2>&1
    python3 - "$dir/run.json" "$mode" >> "$tmp/results" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
actions = run.get("actions") or {}
print(sys.argv[2], run["command_wall_seconds"], actions.get("raw_bytes", 0),
      actions.get("stored_bytes", 0), actions.get("actions", 0))
PY
    log "round $round: $mode $(tail -1 "$tmp/results" | cut -d' ' -f2) s"
    rm -rf "$dir"
  done
done
python3 - "$tmp/results" "$runs" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
by = {}
for mode, wall, raw, stored, actions in rows:
    by.setdefault(mode, []).append((float(wall), int(raw), int(stored), int(actions)))
median = lambda xs: statistics.median(xs)
plain = median([r[0] for r in by["plain"]])
print(f"| record | median compile wall (s), {sys.argv[2]} runs | over plain | actions | written by the compiler | kept (actions.bin) |")
print("|---|---|---|---|---|---|")
for mode, label in (("plain", "record"), ("times", "record --actions"), ("units", "record --actions=units")):
    runs = by[mode]
    wall = median([r[0] for r in runs])
    raw = median([r[1] for r in runs]) / 1e6
    stored = median([r[2] for r in runs]) / 1e6
    actions = median([r[3] for r in runs])
    extra = "" if mode == "plain" else f"{actions:,.0f} | {raw:.1f} MB | {stored:.2f} MB"
    cells = extra if extra else "- | - | -"
    print(f"| `{label}` | {wall:.2f} | {wall / plain:.2f}x | {cells} |")
PY
