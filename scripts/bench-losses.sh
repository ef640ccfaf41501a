#!/usr/bin/env bash
# bench-losses.sh: how many samples `compile-perf record` loses, under the load
# conditions that make perf lose them.
#
# It records one compile (default examples/model.mlir) --runs times in each of
# three conditions, with record's defaults (and, with --old, also with the
# previous defaults: one stream and perf's own 512 KiB ring buffer per CPU,
# `--streams one --perf-arg=-m --perf-arg=128`):
#   idle    nothing else started by this script;
#   busy    every CPU kept busy by a `yes >/dev/null` loop;
#   writer  a large-file writer: `dd if=/dev/zero of=F bs=1M count=2000 conv=fsync`
#           in a loop, as a build writing big files does (the disk is what makes
#           perf lose samples: docs/measurements/scale.md).
# For each run it reads `lost_samples` from the run's run.json and the samples
# read from its report.json, and prints a Markdown table on stdout: per
# condition and setting, the lost samples of each run (samples read in
# brackets), their median and the compile's median wall time. Progress goes
# to stderr. The load average before the runs is printed: other work on the
# machine adds to every condition.
#
# Usage: scripts/bench-losses.sh [--runs N] [--old] [--conditions LIST]
#                                [--workload NAME [--scale S] | INPUT.mlir]
#   --runs N          runs per condition and setting (default 5)
#   --old             also record with the previous defaults
#   --conditions L    comma-separated subset of idle,busy,writer (default all)
#   --workload NAME   generate scripts/workloads.py NAME (at --scale S) instead
# Environment: COMPILE_PERF (default target/release/compile-perf), IREE_COMPILE
#   (default .venv/bin/iree-compile), TMPDIR (where the writer writes: the disk
#   perf writes to).
set -euo pipefail

here=$PWD
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'bench-losses: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

runs=5 old=0 conditions=idle,busy,writer workload= scale=default input=examples/model.mlir
while (($#)); do
  case "$1" in
    --runs) runs=${2:?}; shift ;;
    --old) old=1 ;;
    --conditions) conditions=${2:?}; shift ;;
    --workload) workload=${2:?}; shift ;;
    --scale) scale=${2:?}; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) [[ $1 = /* ]] && input=$1 || input=$here/$1 ;;
  esac
  shift
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive integer"
for condition in ${conditions//,/ }; do
  case $condition in idle | busy | writer) ;; *) die "unknown condition $condition" ;; esac
done

cp_bin=${COMPILE_PERF:-$PWD/target/release/compile-perf}
iree=${IREE_COMPILE:-$PWD/.venv/bin/iree-compile}
[ -x "$cp_bin" ] || die "$cp_bin missing: run scripts/setup.sh"
[ -x "$iree" ] || die "$iree missing: run scripts/setup.sh"
command -v perf >/dev/null || die "perf missing: run scripts/setup.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/compile-perf-bench-losses.XXXXXX")
load_pids=()
stop_load() {
  ((${#load_pids[@]})) || return 0
  kill "${load_pids[@]}" 2>/dev/null || true
  wait "${load_pids[@]}" 2>/dev/null || true
  load_pids=()
}
trap 'stop_load; rm -rf "$tmp"' EXIT
if [ -n "$workload" ]; then
  input=$tmp/$workload.mlir
  log "generating workload $workload (scale $scale)"
  python3 scripts/workloads.py "$workload" --scale "$scale" --out "$input"
fi
[ -r "$input" ] || die "cannot read $input"
compile=("$iree" --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu
  --iree-llvmcpu-target-cpu=generic "$input" -o "$tmp/out.vmfb")

start_load() {
  case $1 in
    idle) ;;
    busy)
      for ((k = 0; k < $(nproc); k++)); do
        yes >/dev/null &
        load_pids+=($!)
      done
      ;;
    writer)
      (while :; do
        dd if=/dev/zero of="$tmp/fill" bs=1M count=2000 conv=fsync status=none
        rm -f "$tmp/fill"
      done) &
      load_pids+=($!)
      ;;
  esac
}

settings=(new)
((old)) && settings+=(old)
log "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; input ${input#"$PWD"/}"
for condition in ${conditions//,/ }; do
  start_load "$condition"
  for ((i = 1; i <= runs; i++)); do
    for setting in "${settings[@]}"; do
      extra=()
      [ "$setting" = old ] && extra=(--streams one --perf-arg=-m --perf-arg=128)
      log "$condition, $setting defaults, run $i/$runs"
      "$cp_bin" record -q -o "$tmp/run" --force "${extra[@]}" -- "${compile[@]}" \
        > /dev/null 2> "$tmp/err" || die "compile-perf record failed: $(tail -n 5 "$tmp/err")"
      python3 -c 'import json, sys
run = json.load(open(sys.argv[1])); report = json.load(open(sys.argv[2]))
print(sys.argv[3], sys.argv[4], run["lost_samples"], report["samples"], run["command_wall_seconds"])' \
        "$tmp/run/run.json" "$tmp/run/report.json" "$condition" "$setting" >> "$tmp/losses"
    done
  done
  stop_load
done

python3 - "$tmp/losses" "$runs" <<'EOF'
import statistics, sys
path, runs = sys.argv[1], sys.argv[2]
rows = {}
for line in open(path):
    condition, setting, lost, samples, wall = line.split()
    rows.setdefault((condition, setting), []).append((int(lost), int(samples), float(wall)))
print(f"| condition | defaults | lost samples per run (samples read) | median lost | median compile wall s |")
print("|---|---|---|---:|---:|")
for (condition, setting), values in rows.items():
    each = ", ".join(f"{lost} ({samples:,})" for lost, samples, _ in values)
    print(f"| {condition} | {setting} | {each} | {statistics.median(v[0] for v in values):g} "
          f"| {statistics.median(v[2] for v in values):.1f} |")
EOF
