#!/usr/bin/env bash
# bench-zstd-level.sh: what perf's zstd level costs `record` and gains a report.
#
# (1) The compile of INPUT (default examples/model.mlir) runs --runs times per
#     level, the levels in turn, each with perf attached as `record` attaches
#     it (perf record --threads --compression-level=L -F 499 -e cpu-clock
#     --call-graph dwarf,65528 --buildid-mmap -m 16M -p PID): perf's own CPU
#     time (user + system, /usr/bin/time on perf alone) and the bytes it wrote.
# (2) One recording made by `compile-perf record` is compressed again at each
#     level with the same records (scripts/recompress.py, in a temporary venv
#     with the `zstandard` package), and a cold `report --flamegraph` of each
#     copy runs --report-runs times, the copies in turn: median and fastest
#     wall time, median CPU time and peak RSS.
# Prints Markdown tables on stdout; progress goes to stderr.
#
# Usage: scripts/bench-zstd-level.sh [--runs N] [--report-runs N] [INPUT.mlir] [LEVEL...]
#   (default 4 runs, 30 report runs, levels 1 3)
# Environment: COMPILE_PERF (default target/release/compile-perf), IREE_COMPILE
#   (default .venv/bin/iree-compile).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'bench-zstd-level: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

runs=4 report_runs=30 input=examples/model.mlir levels=()
while (($#)); do
  case "$1" in
    --runs) runs=${2:?}; shift ;;
    --report-runs) report_runs=${2:?}; shift ;;
    *.mlir) input=$1 ;;
    [0-9]*) levels+=("$1") ;;
    *) die "usage: $0 [--runs N] [--report-runs N] [INPUT.mlir] [LEVEL...]" ;;
  esac
  shift
done
((${#levels[@]})) || levels=(1 3)
# shellcheck source=scripts/perf-attach.sh
source scripts/perf-attach.sh bench-zstd-level

log "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 1; i <= runs; i++)); do
  for level in "${levels[@]}"; do
    log "run $i/$runs: the compile under perf at level $level"
    perf_on_compile "$tmp/time" "$tmp/perf.data" "$tmp/perf.err" --threads --compression-level="$level" \
      -F 499 -e cpu-clock --call-graph dwarf,65528 --buildid-mmap -m 16M
    samples=$(perf_samples "$tmp/perf.data")
    ((${samples:-0} > 0)) || die "perf recorded no samples of the compile at level $level"
    echo "$(awk '{ print $1 + $2 }' "$tmp/time") $(du -sb "$tmp/perf.data" | cut -f1)" >> "$tmp/perf.$level"
  done
done
echo "| level | runs | perf CPU s, median (each) | MB written, median (each) |"
echo "|---:|---:|---|---|"
for level in "${levels[@]}"; do
  f=$tmp/perf.$level
  printf '| %s | %d | %s (%s) | %s (%s) |\n' "$level" "$(wc -l < "$f")" \
    "$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f1 "$f" | paste -sd' ')" \
    "$(cut -d' ' -f2 "$f" | median | awk '{ printf "%.1f", $1 / 1e6 }')" \
    "$(cut -d' ' -f2 "$f" | awk '{ printf "%.1f ", $1 / 1e6 }' | sed 's/ $//')"
done
echo

log "recording the compile with compile-perf record"
"$cp_bin" record -q -o "$tmp/run" -- "${compile[@]}" > /dev/null
log "installing zstandard into a temporary venv"
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check zstandard >&2
for level in "${levels[@]}"; do
  "$tmp/venv/bin/python" scripts/recompress.py "$tmp/run/perf.data" "$tmp/level-$level/perf.data" "$level" >&2
done
export XDG_CACHE_HOME=$tmp/cache
for ((i = 1; i <= report_runs; i++)); do
  log "report run $i/$report_runs"
  for level in "${levels[@]}"; do
    rm -rf "$XDG_CACHE_HOME"
    sync
    start=$EPOCHREALTIME
    /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$cp_bin" report "$tmp/level-$level/perf.data" \
      --flamegraph "$tmp/level-$level.svg" -q > /dev/null
    end=$EPOCHREALTIME
    awk -v start="$start" -v end="$end" '{ printf "%.4f %.2f %d\n", end - start, $1 + $2, $3 / 1024 }' \
      "$tmp/time" >> "$tmp/report.$level"
  done
done
echo "| level | MB (streams) | report runs | median wall s | fastest wall s | median CPU s | median peak RSS MB |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for level in "${levels[@]}"; do
  f=$tmp/report.$level
  sizes=$(for s in "$tmp/level-$level/perf.data"/data.*; do stat -c %s "$s"; done |
    awk '{ printf "%.1f + ", $1 / 1e6 }' | sed 's/ + $//')
  printf '| %s | %s | %d | %s | %s | %s | %s |\n' "$level" "$sizes" "$(wc -l < "$f")" \
    "$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f1 "$f" | sort -g | head -n 1)" \
    "$(cut -d' ' -f2 "$f" | median)" "$(cut -d' ' -f3 "$f" | median)"
done
