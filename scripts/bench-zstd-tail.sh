#!/usr/bin/env bash
# bench-zstd-tail.sh: how often perf 6.1 drops the end of a zstd stream, and
# what `--no-buffering` (which avoids it) costs perf.
#
# perf 6.1 splits each drain of its ring buffer into compressed records of at
# most 64 KiB and does not check that zstd's last flush fitted: when a
# stream's last drain fills its last record, what zstd still held is never
# written, and `report` warns that perf did not finish writing its zstd data.
#
# The compile of INPUT (default examples/model.mlir) runs --runs times per
# mode, the modes in turn, with perf attached as `record` attaches it (perf
# record --threads --compression-level=3 -F 499 -e cpu-clock --call-graph
# dwarf,65528 --buildid-mmap -m 16M -p PID), plain ("buffered": perf woken
# when half its ring buffer is full) and with --no-buffering (woken after
# every sample), and with --modes, also --no-buffering --mmap-flush=256K
# ("no-buffering-flush": woken after every sample, drains only once 256 KiB is
# ready). For each run: perf's own CPU time (user + system,
# /usr/bin/time on perf alone), the samples (`perf report --stats`), how many
# streams end in a full compressed record, and whether a cold `compile-perf
# report` of the recording warns. Prints a Markdown table on stdout; progress
# goes to stderr.
#
# Usage: scripts/bench-zstd-tail.sh [--runs N] [--modes LIST] [INPUT.mlir]
#   --runs N      runs per mode (default 9)
#   --modes LIST  comma-separated subset of buffered,no-buffering,no-buffering-flush
#                 (default buffered,no-buffering)
# Environment: COMPILE_PERF (default target/release/compile-perf), IREE_COMPILE
#   (default .venv/bin/iree-compile).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'bench-zstd-tail: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

runs=9 modes=buffered,no-buffering input=examples/model.mlir
while (($#)); do
  case "$1" in
    --runs) runs=${2:?}; shift ;;
    --modes) modes=${2:?}; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *.mlir) input=$1 ;;
    *) die "usage: $0 [--runs N] [--modes LIST] [INPUT.mlir]" ;;
  esac
  shift
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive integer"
IFS=, read -ra modes <<< "$modes"
for mode in "${modes[@]}"; do
  case $mode in buffered | no-buffering | no-buffering-flush) ;; *) die "unknown mode $mode" ;; esac
done
# shellcheck source=scripts/perf-attach.sh
source scripts/perf-attach.sh bench-zstd-tail

# How many streams of the directory $1 end in a COMPRESSED record (type 81)
# of 65,535 bytes, perf 6.1's largest (zstd filled it), and how many
# COMPRESSED records the streams hold.
compressed_records() {
  python3 - "$1" <<'EOF'
import os, sys
sys.path.insert(0, "scripts")
from perf_stream import COMPRESSED, records
full = count = 0
for name in os.listdir(sys.argv[1]):
    if not name.startswith("data."):
        continue
    data = open(os.path.join(sys.argv[1], name), "rb").read()
    whole = [(kind, len(rec)) for kind, _, rec in records(data) if kind is not None]
    count += sum(kind == COMPRESSED for kind, _ in whole)
    full += bool(whole) and whole[-1] == (COMPRESSED, 65535)
print(full, count)
EOF
}

log "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 1; i <= runs; i++)); do
  for mode in "${modes[@]}"; do
    log "run $i/$runs: the compile under perf, $mode"
    case $mode in
      buffered) extra=() ;;
      no-buffering) extra=(--no-buffering) ;;
      no-buffering-flush) extra=(--no-buffering --mmap-flush=256K) ;;
    esac
    perf_on_compile "$tmp/time" "$tmp/perf.data" "$tmp/perf.err" --threads --compression-level=3 \
      "${extra[@]}" -F 499 -e cpu-clock --call-graph dwarf,65528 --buildid-mmap -m 16M
    samples=$(perf_samples "$tmp/perf.data")
    ((${samples:-0} > 0)) || die "perf recorded no samples of the compile ($mode)"
    warned=0
    "$cp_bin" report "$tmp/perf.data" --no-cache -q > /dev/null 2> "$tmp/report.err" ||
      die "compile-perf report failed: $(tail -n 3 "$tmp/report.err")"
    grep -q 'did not finish writing' "$tmp/report.err" && warned=1
    echo "$(awk '{ print $1 + $2 }' "$tmp/time") $samples $(compressed_records "$tmp/perf.data") $warned" \
      >> "$tmp/$mode"
  done
done
echo "| perf | runs | compressed records per run, median | perf CPU s, median (each) | µs of perf CPU per sample, median | streams ending in a full record | recordings \`report\` warns on |"
echo "|---|---:|---:|---|---:|---:|---:|"
for mode in "${modes[@]}"; do
  f=$tmp/$mode
  printf '| %s | %d | %s | %s (%s) | %s | %d | %d |\n' "$mode" "$(wc -l < "$f")" \
    "$(cut -d' ' -f4 "$f" | median)" \
    "$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f1 "$f" | paste -sd' ')" \
    "$(awk '{ printf "%.0f\n", $1 / $2 * 1e6 }' "$f" | median)" \
    "$(awk '{ s += $3 } END { print s }' "$f")" "$(awk '{ s += $5 } END { print s }' "$f")"
done
