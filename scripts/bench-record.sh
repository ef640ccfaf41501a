#!/usr/bin/env bash
# bench-record.sh: what `compile-perf record` adds to the wall time of a compile,
# beyond plain `perf record` with the same flags.
#
# On the same compile (default examples/model.mlir) it runs, --runs times each,
# rotating which goes first:
#   (o) the compile alone, timed as the wall time of iree-compile;
#   (a) perf record --compression-level=3 -F 499 -e EVENT --call-graph dwarf,65528 --buildid-mmap -k CLOCK_MONOTONIC -o X -- iree-compile ...
#       timed as the wall time of the whole perf command;
#   (b) compile-perf record -o DIR --force -- iree-compile ...
#       timed three ways: command_wall_seconds from DIR/run.json (the compile
#       alone under perf, timed by the wrapper: the figure comparable with (o)),
#       wall_seconds (perf + the compile: the figure comparable with (a)), and
#       the wall time of the whole command
#       (with its checks before recording and its report + three SVGs after).
# and (c) times `compile-perf measure -- /bin/true` against `/bin/true` (200 runs):
# the wrapper that compile-perf puts between perf and the compile, alone.
# EVENT is the one compile-perf picks here (read from a warm-up run's run.json, which
# is not counted). Both recordings are also read with `compile-perf report --format
# json` for the span from the first to the last sample (`duration_seconds`) and the
# sample count: the compile's own time, free of perf's start and exit. (perf 6.1 on
# some kernels exits on a 1 s tick: `perf record -- true` takes 1.1 s, so perf's wall
# times come in steps of about a second.) It prints a Markdown table (medians and
# means), the overhead of (b) over (o) in percent (what recording costs the
# compile; the target is <= 3%), also as the median of the ratios of the runs of one
# round, with a 95% bootstrap interval, and of (b) over (a) (what compile-perf adds to perf).
# Each run starts when the CPUs have been idle for 2 s, and a run during which other
# processes took more than 3% of the CPUs is done again (up to --retries times,
# default 5): on a shared machine, the noise of other work is larger than the
# overhead being measured. (On a VM whose own background takes about that much,
# lower --retries: each run is then kept after that many tries, and counted as
# disturbed in the output.)
# Progress goes to stderr. Needs /usr/bin/time (scripts/setup.sh installs it).
#
# Usage: scripts/bench-record.sh [--runs N] [--retries N] [--pin] [--record-arg ARG]...
#                                [--workload NAME | INPUT.mlir]
#   --record-arg ARG one more argument for (b)'s `compile-perf record` (repeat
#                    it: `--record-arg --streams --record-arg one`)
#   --workload NAME  generate scripts/workloads.py NAME (default scale) instead
#   --pin            run the compile on CPU 0 and perf (and compile-perf) on the last
#                    CPU, with taskset: they no longer compete for the cores, and the
#                    compile's time varies by about 1% instead of 10-30% on 2 cores
# Environment: COMPILE_PERF (default target/release/compile-perf), IREE_COMPILE
#   (default .venv/bin/iree-compile).
set -euo pipefail

here=$PWD
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'bench-record: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

runs=3 pin=0 workload= input=examples/model.mlir max_retries=5 record_args=()
while (($#)); do
  case "$1" in
    --runs) runs=${2:?}; shift ;;
    --retries) max_retries=${2:?}; shift ;;
    --workload) workload=${2:?}; shift ;;
    --pin) pin=1 ;;
    --record-arg) record_args+=("${2:?}"); shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) [[ $1 = /* ]] && input=$1 || input=$here/$1 ;;
  esac
  shift
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive integer"

cp_bin=${COMPILE_PERF:-$PWD/target/release/compile-perf}
iree=${IREE_COMPILE:-$PWD/.venv/bin/iree-compile}
[ -x "$cp_bin" ] || die "$cp_bin missing: run scripts/setup.sh"
[ -x "$iree" ] || die "$iree missing: run scripts/setup.sh"
command -v perf >/dev/null || die "perf missing: run scripts/setup.sh"
[ -x /usr/bin/time ] || die "/usr/bin/time missing: run scripts/setup.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/compile-perf-bench-record.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -n "$workload" ]; then
  input=$tmp/$workload.mlir
  [[ $workload = *-bytecode ]] && input=$tmp/$workload.mlirbc
  log "generating workload $workload"
  python3 scripts/workloads.py "$workload" --out "$input"
fi
[ -r "$input" ] || die "cannot read $input"
cores=$(nproc)
tool_cpu=() compile_cpu=()
if ((pin)); then
  ((cores >= 2)) || die "--pin needs 2 CPUs"
  tool_cpu=(taskset -c "$((cores - 1))") compile_cpu=(taskset -c 0)
fi
compile=("${compile_cpu[@]}" "$iree" --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu
  --iree-llvmcpu-target-cpu=generic "$input" -o "$tmp/out.vmfb")

# CPU time the whole machine has spent busy so far, in 1/100 s (USER_HZ).
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
# Waits (at most a minute) for 2 s in which the CPUs are at least 90% idle.
wait_quiet() {
  local k b0 b1
  for ((k = 0; k < 30; k++)); do
    b0=$(busy); sleep 2; b1=$(busy)
    (((b1 - b0) * 100 <= 10 * 200 * cores)) && return 0
  done
  log "the machine stays busy; going on"
}
# timed CMD...: runs CMD under /usr/bin/time; sets $wall, and $others: the CPU
# seconds that other processes used meanwhile (the machine's busy time minus CMD's
# user + sys, its children included). Returns CMD's exit status.
timed() {
  local b0 b1 status=0
  b0=$(busy)
  /usr/bin/time -f '%e %U %S' -o "$tmp/t" "$@" || status=$?
  b1=$(busy)
  ((status == 0)) || return "$status"
  read -r wall user sys < <(tail -n 1 "$tmp/t")
  others=$(awk -v b="$((b1 - b0))" -v u="$user" -v s="$sys" 'BEGIN { o = b / 100 - u - s; printf "%.2f", o < 0 ? 0 : o }')
}
# disturbed: true when other processes took more than 3% of the CPUs during the run.
disturbed() { awk -v o="$others" -v w="$wall" -v c="$cores" 'BEGIN { exit !(o > 0.03 * w * c) }'; }

# run_cp [warmup]: compile-perf record; appends "total wall_seconds span samples" to $tmp/cp.times.
run_cp() {
  local try
  for ((try = 1; ; try++)); do
    wait_quiet
    timed "${tool_cpu[@]}" "$cp_bin" record -o "$tmp/run" --force "${record_args[@]}" -- "${compile[@]}" > "$tmp/cp.out" 2> "$tmp/cp.err" ||
      die "compile-perf record failed: $(tail -n 5 "$tmp/cp.err")"
    [ "${1:-}" = warmup ] && return 0
    disturbed && ((try <= max_retries)) || break
    log "  other processes used $others CPU s during the run; running it again"
    repeated=$((repeated + 1))
  done
  disturbed && kept_disturbed=$((kept_disturbed + 1))
  python3 -c 'import json, sys; r = json.load(open(sys.argv[3])); m = json.load(open(sys.argv[2])); print(sys.argv[1], m["wall_seconds"], r["duration_seconds"], r["samples"], m["command_wall_seconds"])' \
    "$wall" "$tmp/run/run.json" "$tmp/run/report.json" >> "$tmp/cp.times"
}
# run_perf: plain perf record; appends "wall span samples" to $tmp/perf.times.
run_perf() {
  local try
  for ((try = 1; ; try++)); do
    wait_quiet
    timed "${tool_cpu[@]}" perf record -q --compression-level=3 -F 499 -e "$event" --call-graph dwarf,65528 --buildid-mmap -k CLOCK_MONOTONIC -o "$tmp/plain.data" -- \
      "${compile[@]}" > "$tmp/perf.out" 2> "$tmp/perf.err" || die "perf record failed: $(tail -n 5 "$tmp/perf.err")"
    disturbed && ((try <= max_retries)) || break
    log "  other processes used $others CPU s during the run; running it again"
    repeated=$((repeated + 1))
  done
  disturbed && kept_disturbed=$((kept_disturbed + 1))
  "$cp_bin" report "$tmp/plain.data" --format json -q -o "$tmp/plain.json" || [ $? -le 11 ]
  python3 -c 'import json, sys; r = json.load(open(sys.argv[2])); print(sys.argv[1], r["duration_seconds"], r["samples"])' \
    "$wall" "$tmp/plain.json" >> "$tmp/perf.times"
}

# run_alone: the compile without perf; appends "wall" to $tmp/alone.times.
run_alone() {
  local try
  for ((try = 1; ; try++)); do
    wait_quiet
    timed "${compile[@]}" > "$tmp/alone.out" 2> "$tmp/alone.err" || die "the compile failed: $(tail -n 5 "$tmp/alone.err")"
    disturbed && ((try <= max_retries)) || break
    log "  other processes used $others CPU s during the run; running it again"
    repeated=$((repeated + 1))
  done
  disturbed && kept_disturbed=$((kept_disturbed + 1))
  echo "$wall" >> "$tmp/alone.times"
}

repeated=0 kept_disturbed=0
log "warm-up: compile-perf record (not counted; picks the event)"
run_cp warmup
event=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["perf"]["event"])' "$tmp/run/run.json")
for ((i = 1; i <= runs; i++)); do
  case $((i % 3)) in
    1) log "run $i/$runs: the compile alone, perf record, compile-perf record"; run_alone; run_perf; run_cp ;;
    2) log "run $i/$runs: perf record, compile-perf record, the compile alone"; run_perf; run_cp; run_alone ;;
    0) log "run $i/$runs: compile-perf record, the compile alone, perf record"; run_cp; run_alone; run_perf ;;
  esac
done

# (c) What compile-perf puts between perf and the compile: the `measure` wrapper
# (a fork and an exec more, and a small JSON file). Timed alone, 200 times.
log "the measure wrapper alone: 200 × compile-perf measure -- /bin/true vs /bin/true"
wait_quiet
t0=$(date +%s%N)
for ((k = 0; k < 200; k++)); do /bin/true; done
t1=$(date +%s%N)
for ((k = 0; k < 200; k++)); do "$cp_bin" measure --into "$tmp/m.json" -- /bin/true; done
t2=$(date +%s%N)
wrapper_ms=$(awk -v a="$((t1 - t0))" -v b="$((t2 - t1))" 'BEGIN { printf "%.1f", (b - a) / 200 / 1e6 }')

python3 - "$tmp" "$runs" "$event" "${input#"$PWD"/}" "$cores" "$repeated" "$kept_disturbed" "$wrapper_ms" "$pin" <<'EOF'
import statistics, sys
tmp, runs, event, input_, cores, repeated, kept, wrapper_ms, pin = sys.argv[1:]
alone = [float(l) for l in open(f"{tmp}/alone.times")]
plain = [tuple(map(float, l.split())) for l in open(f"{tmp}/perf.times")]
cp = [tuple(map(float, l.split())) for l in open(f"{tmp}/cp.times")]
col = lambda rows, i: [r[i] for r in rows]
med, mean = statistics.median, statistics.mean
fmt = lambda xs: ", ".join(f"{x:.2f}" for x in xs)
rows = [
    ("(o) the compile alone: wall", alone),
    (f"(a) `perf record --compression-level=3 -F 499 -e {event} --call-graph dwarf,65528 --buildid-mmap -k CLOCK_MONOTONIC`: wall", col(plain, 0)),
    ("(b) `compile-perf record`: perf + compile (`wall_seconds` in run.json)", col(cp, 1)),
    ("(b) `compile-perf record`: the compile under perf (`command_wall_seconds`)", col(cp, 4)),
    ("(b) `compile-perf record`: the whole command, with checks, report and SVGs", col(cp, 0)),
    ("(a) span of the samples (`duration_seconds`)", col(plain, 1)),
    ("(b) span of the samples (`duration_seconds`)", col(cp, 2)),
]
pinned = ", the compile pinned to CPU 0 and perf to the last CPU" if pin == "1" else ""
print(f"`{input_}` compiled by iree-compile, {runs} run(s) each, event {event}, {cores} cores{pinned}; "
      f"seconds. Runs repeated because other processes used the CPUs: {repeated}; "
      f"disturbed runs kept after 5 tries: {kept}")
print()
print("| measure | median | mean | runs |")
print("|---|---:|---:|---|")
for label, xs in rows:
    print(f"| {label} | {med(xs):.2f} | {mean(xs):.2f} | {fmt(xs)} |")
print(f"| samples (a) / (b), mean | {mean(col(plain, 2)):.0f} | {mean(col(cp, 3)):.0f} | |")
print()
def over(b, a, what):
    print(f"{what}: median {100 * (med(b) - med(a)) / med(a):+.1f}%, mean {100 * (mean(b) - mean(a)) / mean(a):+.1f}%")
over(col(cp, 4), alone, "recording's cost to the compile, (b) command_wall_seconds vs (o) the compile alone (target <= 3%)")
over(col(cp, 1), alone, "the wait for a recording, (b) wall_seconds (perf's start and exit too) vs (o)")
over(col(plain, 0), alone, "plain perf's cost to the compile, (a) wall vs (o) the compile alone")
over(col(cp, 1), col(plain, 0), "what compile-perf adds to perf, (b) wall_seconds vs (a) wall")
over(col(cp, 2), col(plain, 1), "overhead on the compile, (b) vs (a) span of the samples")
over(col(cp, 0), col(plain, 0), "the whole compile-perf record command vs (a) wall")
# The VM's own speed drifts over minutes, so the runs of one round, made one after
# the other, are compared with each other: the median of the per-round ratios, with
# a 95% bootstrap interval (fixed seed), is the overhead freest of that drift.
import random
ratios = [b / a for a, b in zip(alone, col(cp, 4))]
rng = random.Random(1)
boot = sorted(med(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
print(f"recording's cost to the compile, per round ((b) command_wall_seconds / (o) of the same round): "
      f"median {100 * (med(ratios) - 1):+.1f}%, 95% interval {100 * (boot[49] - 1):+.1f}% to {100 * (boot[1949] - 1):+.1f}%; "
      f"rounds: {', '.join(f'{100 * (r - 1):+.1f}%' for r in ratios)}")
share = 100 * float(wrapper_ms) / 1000 / mean(col(plain, 1))
print(f"(c) the measure wrapper alone adds {wrapper_ms} ms per compile ({share:.2f}% of (a)'s mean span)")
EOF
