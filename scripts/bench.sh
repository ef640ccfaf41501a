#!/usr/bin/env bash
# bench.sh: end-to-end speed benchmark of compile-perf against the usual pipeline.
#
# On one perf.data it times, each --runs times:
#   (a) target/release/compile-perf collapse FILE -o OUT1
#   (b) perf script -i FILE --no-inline | inferno-collapse-perf > OUT2
#   (c) with --top: target/release/compile-perf top FILE --format json
#   (d) target/release/compile-perf report FILE --flamegraph OUT.svg
#   (e) perf script -i FILE --no-inline | inferno-collapse-perf | inferno-flamegraph > OUT.svg
#   (f) target/release/compile-perf report FILE                 (categories)
#   (g) target/release/compile-perf report FILE --by pass       (pass attribution)
#   (h) target/release/compile-perf timeline FILE -o OUT.svg    (the timeline)
#   (k) samply import -s -n -o OUT.json FILE   (the second peer: framehop
#       unwinding, as ours; it leaves the names to its web server)
# Every compile-perf command runs with empty caches ($XDG_CACHE_HOME is a
# temp dir, emptied before each), and (d) is followed by
#   (i) report --flamegraph again, with the caches (d) filled
#   (j) report --flamegraph with the build-id caches warm and the recording's
#       cache empty (a first report of a new recording of a known compiler build)
# (outputs of (d) and (i) must be the same bytes).
# (k) runs on a single uncompressed perf.data only: samply 0.13 writes an
# empty profile for perf's zstd recordings, and reads no --threads directory.
# samply is installed (`cargo install samply --locked`, $SAMPLY_VERSION) when
# missing; the ratio (k)/(d) compares it with the cold report --flamegraph.
# and prints a Markdown table on stdout: file size, median wall time (to the
# millisecond; the page cache is synced before each command), peak RSS,
# throughput, the size of the folded output and the share of its samples
# that reach a thread root (a pipeline that unwinds less writes less and
# is faster), the speed ratios b/a (folded stacks) and e/d (table and
# flamegraph), and what pass attribution and the timeline add to a report
# (g/f, h/f). Progress goes to stderr.
#
# Without FILE it records one: the `many-dispatches` workload (scripts/workloads.py),
# compiled by .venv/bin/iree-compile under
#   perf record --call-graph dwarf,65528 -F 499 -e cpu-clock
# (no -z, so the file is large: about 270 MB, 7 s on 2 cores), into a temp dir;
# with --zstd it records with `record`'s own flags instead
# (--compression-level=3 -F 499 --call-graph dwarf,65528 --buildid-mmap); with --record it runs
# `compile-perf record` itself, with its defaults (on more than one core a
# perf --threads directory), and benchmarks the run's perf.data.
#
# Besides wall time it reports CPU time (user + system, from /usr/bin/time)
# and the load average before the runs: on a shared machine wall times are
# noisy and CPU time is not.
#
# Usage: scripts/bench.sh [--runs N] [--top] [--baseline-only] [--keep] [--zstd]
#                         [--workload NAME] [--scale S] [--input FILE.mlir] [FILE]
#   --runs N         run each command N times (default 5); medians are shown,
#                    and the ratios of the fastest runs too
#   --baseline-only  skip (a) and (c), for when compile-perf is not built yet
#   --keep           keep the temp dir (the recording and outputs) and print its path
#   --zstd           record with `record`'s flags (--compression-level=3 … --buildid-mmap)
#   --record         record with `compile-perf record` and its defaults
#   --input FILE     record a compile of FILE.mlir instead of a generated workload
# Environment: COMPILE_PERF (default target/release/compile-perf), IREE_COMPILE
#   (default .venv/bin/iree-compile).
set -euo pipefail

here=$PWD
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'bench: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

runs=5 top=0 ours=1 keep=0 workload=many-dispatches scale=default file= zstd=0 input= record=0
while (($#)); do
  case "$1" in
    --runs) runs=${2:?}; shift ;;
    --top) top=1 ;;
    --baseline-only) ours=0 top=0 ;;
    --keep) keep=1 ;;
    --zstd) zstd=1 ;;
    --record) zstd=1 record=1 ;;
    --input) input=${2:?}; [[ $input = /* ]] || input=$here/$input; shift ;;
    --workload) workload=${2:?}; shift ;;
    --scale) scale=${2:?}; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) [[ $1 = /* ]] && file=$1 || file=$here/$1 ;;
  esac
  shift
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive integer"

cp_bin=${COMPILE_PERF:-$PWD/target/release/compile-perf}
((ours == 0)) || [ -x "$cp_bin" ] || die "$cp_bin missing: run scripts/setup.sh (or pass --baseline-only)"
[ -x /usr/bin/time ] || die "/usr/bin/time missing: run scripts/setup.sh"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
if ! command -v inferno-collapse-perf >/dev/null; then
  log "inferno-collapse-perf missing: cargo install inferno --locked"
  cargo install inferno --locked >&2
fi
SAMPLY_VERSION=0.13.1
samply_on=0
if ((ours && zstd == 0)); then
  samply_on=1
  if ! samply --version 2>/dev/null | grep -qF "$SAMPLY_VERSION"; then
    log "samply $SAMPLY_VERSION missing: cargo install samply --locked --version $SAMPLY_VERSION"
    cargo install samply --locked --version "$SAMPLY_VERSION" >&2
  fi
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/compile-perf-bench.XXXXXX")
if ((keep)); then trap 'log "kept $tmp"' EXIT; else trap 'rm -rf "$tmp"' EXIT; fi

# Record a real compile when no file is given.
if [ -z "$file" ]; then
  iree=${IREE_COMPILE:-$PWD/.venv/bin/iree-compile}
  [ -x "$iree" ] || die "$iree missing: run scripts/setup.sh"
  if [ -n "$input" ]; then
    cp "$input" "$tmp/input.mlir"
  else
    log "generating workload $workload (scale $scale)"
    python3 scripts/workloads.py "$workload" --out "$tmp/input.mlir" --scale "$scale"
  fi
  compile=("$iree" --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu
    --iree-llvmcpu-target-cpu=generic "$tmp/input.mlir" -o "$tmp/out.vmfb")
  if ((record)); then
    log "recording iree-compile with compile-perf record into $tmp/run"
    "${COMPILE_PERF:-target/release/compile-perf}" record -o "$tmp/run" -- "${compile[@]}" >/dev/null
    file=$tmp/run/perf.data
  else
    flags=(--call-graph dwarf,65528 -F 499 -e cpu-clock)
    ((zstd == 0)) || flags+=(--compression-level=3 --buildid-mmap)
    log "recording iree-compile into $tmp/perf.data (${flags[*]})"
    perf record -q "${flags[@]}" -o "$tmp/perf.data" -- "${compile[@]}" >&2
    file=$tmp/perf.data
  fi
fi
[ -r "$file" ] || die "cannot read $file"
[ -f "$file" ] || samply_on=0
# A perf --threads recording is a directory: its size is its files'.
bytes=$(du -sbL "$file" | cut -f1)
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
((bytes >= 200000000 || zstd)) || log "warning: $file is only $mb MB (the benchmark wants >= 200 MB)"

# Seconds from $1 to $2 (bash $EPOCHREALTIME values), to the millisecond:
# /usr/bin/time rounds wall time to 10 ms, too coarse for runs of 0.1 s.
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# Before each timed command: write out what the last one wrote, so that the
# kernel's writeback of its output does not take a core from the next one.
settle() { sync; }

# compile-perf's caches live in the temp dir, not the user's.
export XDG_CACHE_HOME=$tmp/cache
cold_caches() { rm -rf "$XDG_CACHE_HOME/compile-perf"; }
cold_recording_cache() { rm -rf "$XDG_CACHE_HOME/compile-perf/recordings"; }

# timed LABEL CMD...: run CMD under /usr/bin/time (for its peak RSS and CPU
# time), append "wall rss_kb cpu_s" to $tmp/LABEL.times.
timed() {
  local label=$1; shift
  settle
  local start=$EPOCHREALTIME
  /usr/bin/time -f '%M %U %S' -o "$tmp/t" "$@" || die "$label failed (see above)"
  echo "$(seconds "$start" "$EPOCHREALTIME") $(tail -n 1 "$tmp/t" | awk '{ printf "%d %.2f", $1, $2 + $3 }')" >> "$tmp/$label.times"
}

# The pipeline: wall time of the whole; RSS of each side (they run at once, so add them).
baseline() {
  set -o pipefail
  /usr/bin/time -f '%e %M' -o "$tmp/t.script" perf script -i "$file" --no-inline 2>"$tmp/perf-script.err" |
    /usr/bin/time -f '%e %M' -o "$tmp/t.inferno" inferno-collapse-perf > "$tmp/out2.folded"
}
# The same pipeline drawing the flamegraph: wall time of the whole.
baseline_svg() {
  set -o pipefail
  perf script -i "$file" --no-inline 2>"$tmp/perf-script.err" | inferno-collapse-perf |
    inferno-flamegraph > "$tmp/out2.svg"
}
export -f baseline baseline_svg
export tmp file

load=$(cut -d' ' -f1-3 /proc/loadavg)
for ((i = 1; i <= runs; i++)); do
  if ((ours)); then
    log "run $i/$runs: compile-perf collapse"
    cold_caches
    timed collapse "$cp_bin" collapse "$file" -o "$tmp/out1.folded"
  fi
  log "run $i/$runs: perf script --no-inline | inferno-collapse-perf"
  settle
  start=$EPOCHREALTIME
  bash -c baseline || die "perf script | inferno-collapse-perf failed: $(tail -n 3 "$tmp/perf-script.err")"
  wall=$(seconds "$start" "$EPOCHREALTIME")
  script_kb=$(tail -n 1 "$tmp/t.script" | cut -d' ' -f2)
  inferno_kb=$(tail -n 1 "$tmp/t.inferno" | cut -d' ' -f2)
  echo "$wall $((script_kb + inferno_kb))" >> "$tmp/baseline.times"
  if ((top)); then
    log "run $i/$runs: compile-perf top --format json"
    timed top "$cp_bin" top "$file" --format json > "$tmp/top.json"
  fi
  if ((ours)); then
    log "run $i/$runs: compile-perf report --flamegraph"
    cold_caches
    timed report "$cp_bin" report "$file" --flamegraph "$tmp/out1.svg" -q > "$tmp/report.txt"
    log "run $i/$runs: compile-perf report --flamegraph, caches warm"
    timed report_warm "$cp_bin" report "$file" --flamegraph "$tmp/out1.svg" -q > "$tmp/report-warm.txt"
    cmp -s "$tmp/report.txt" "$tmp/report-warm.txt" || die "the report differs with warm caches"
    cold_recording_cache
    log "run $i/$runs: compile-perf report --flamegraph, build-id caches warm, recording cache empty"
    timed report_ids "$cp_bin" report "$file" --flamegraph "$tmp/out1.svg" -q > /dev/null
    log "run $i/$runs: perf script --no-inline | inferno-collapse-perf | inferno-flamegraph"
    settle
    start=$EPOCHREALTIME
    /usr/bin/time -f '%U %S' -o "$tmp/t.svg" bash -c baseline_svg || die "the flamegraph pipeline failed"
    echo "$(seconds "$start" "$EPOCHREALTIME") 0 $(tail -n 1 "$tmp/t.svg" | awk '{ printf "%.2f", $1 + $2 }')" >> "$tmp/baseline_svg.times"
    if ((samply_on)); then
      log "run $i/$runs: samply import"
      rm -f "$tmp/samply.json"
      timed samply samply import -s -n -o "$tmp/samply.json" "$file" 2>"$tmp/samply.err"
    fi
    log "run $i/$runs: compile-perf report, report --by pass, timeline"
    cold_caches
    timed plain "$cp_bin" report "$file" -q > /dev/null
    cold_caches
    timed by_pass "$cp_bin" report "$file" --by pass -q > /dev/null
    cold_caches
    timed timeline "$cp_bin" timeline "$file" -o "$tmp/timeline.svg" -q
  fi
done

# Median wall time and max RSS (MB) of a .times file.
median() { cut -d' ' -f1 "$tmp/$1.times" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Median CPU time (user + system) of a .times file.
median_cpu() { cut -d' ' -f3 "$tmp/$1.times" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Fastest wall time of a .times file: what each side does when the machine
# leaves it alone.
fastest() { cut -d' ' -f1 "$tmp/$1.times" | sort -n | head -n 1; }
rss_mb() { cut -d' ' -f2 "$tmp/$1.times" | sort -n | tail -n 1 | awk '{ printf "%.0f", $1 / 1024 }'; }
rate() { awk -v b="$bytes" -v s="$1" 'BEGIN { printf "%.1f", (s > 0) ? b / 1e6 / s : 0 }'; }
# The share of a folded file's samples whose stack reaches a thread root:
# the frame under the process is one of the thread entry functions that
# compile-perf and its live tests use (src/profile/thread_entries.txt),
# with any @VERSION suffix taken off (a PLT stub, `@plt`, is none).
rooted() {
  awk 'NR == FNR { entry[$0] = 1; next }
       { n = $NF; sub(/ [0-9]+$/, ""); split($0, frame, ";"); total += n
         root = frame[2]; if (root !~ /@plt$/) sub(/@.*/, "", root)
         if (root in entry) rooted += n }
       END { printf "%.1f%%", total ? 100 * rooted / total : 0 }' src/profile/thread_entries.txt "$1"
}
# The samples in samply's profile (all threads): 0 would mean it read nothing.
samply_samples() {
  python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
print(sum(t["samples"]["length"] for t in p["threads"]))' "$1" 2>/dev/null || echo "?"
}
# "LINES / MB" of an output file.
lines() { awk -v b="$(stat -c %s "$1")" -v l="$(wc -l < "$1")" 'BEGIN { printf "%d / %.1f", l, b / 1e6 }'; }

echo "perf.data: \`$file\`, $mb MB; $runs run(s), median wall time; load average before: $load"
echo
echo "| command | wall s | peak RSS MB | MB/s | output lines / MB |"
echo "|---|---:|---:|---:|---:|"
if ((ours)); then
  t=$(median collapse)
  echo "| (a) compile-perf collapse | $t | $(rss_mb collapse) | $(rate "$t") | $(lines "$tmp/out1.folded") |"
fi
tb=$(median baseline)
echo "| (b) perf script --no-inline \\| inferno-collapse-perf | $tb | $(rss_mb baseline) ($((script_kb / 1024)) + $((inferno_kb / 1024))) | $(rate "$tb") | $(lines "$tmp/out2.folded") |"
if ((top)); then
  t=$(median top)
  echo "| (c) compile-perf top --format json | $t | $(rss_mb top) | $(rate "$t") | $(lines "$tmp/top.json") |"
fi
if ((ours)); then
  t=$(median report)
  echo "| (d) compile-perf report --flamegraph | $t | $(rss_mb report) | $(rate "$t") | $(lines "$tmp/report.txt") |"
  te=$(median baseline_svg)
  echo "| (e) perf script --no-inline \| inferno-collapse-perf \| inferno-flamegraph | $te (CPU $(median_cpu baseline_svg)) | | $(rate "$te") | |"
  echo
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", (a > 0) ? b / a : 0 }'; }
  echo "speed ratio, (b) wall / (a) wall: $(ratio "$(median collapse)" "$tb") median, $(ratio "$(fastest collapse)" "$(fastest baseline)") fastest runs (above 1: compile-perf is faster)"
  echo "speed ratio, (e) wall / (d) wall: $(ratio "$t" "$te") median, $(ratio "$(fastest report)" "$(fastest baseline_svg)") fastest runs"
  echo "stacks reaching a thread root: $(rooted "$tmp/out1.folded") in (a), $(rooted "$tmp/out2.folded") in (b) (perf's unwinder stops early on some recordings, and its pipeline then does less work)"
  echo
  echo "| report --flamegraph | wall s | CPU s | peak RSS MB | (e) / this |"
  echo "|---|---:|---:|---:|---:|"
  for row in "report:(d) caches empty" "report_ids:(j) build-id caches warm, recording cache empty" "report_warm:(i) caches warm"; do
    label=${row%%:*}
    echo "| ${row#*:} | $(median "$label") | $(median_cpu "$label") | $(rss_mb "$label") | $(ratio "$(median "$label")" "$te") |"
  done
  if ((samply_on)); then
    ts=$(median samply)
    echo
    echo "| peer | wall s | CPU s | peak RSS MB | samples in its profile | (k) / (d) cold, above 1: compile-perf is faster |"
    echo "|---|---:|---:|---:|---:|---:|"
    echo "| (k) samply import ($(samply --version | cut -d' ' -f2)) | $ts | $(median_cpu samply) | $(rss_mb samply) | $(samply_samples "$tmp/samply.json") | $(ratio "$(median report)" "$ts") median, $(ratio "$(fastest report)" "$(fastest samply)") fastest runs |"
  fi
  echo
  echo "cache: $(du -sb "$XDG_CACHE_HOME/compile-perf/binaries" | cut -f1) bytes of build-id entries, $(du -sb "$XDG_CACHE_HOME/compile-perf/recordings" | cut -f1) of the recording's, $(du -sb "$XDG_CACHE_HOME/compile-perf/categories" | cut -f1) of categories"
  tf=$(median plain) tg=$(median by_pass) th=$(median timeline)
  echo
  echo "| command | wall s |"
  echo "|---|---:|"
  echo "| (f) compile-perf report | $tf |"
  echo "| (g) compile-perf report --by pass | $tg |"
  echo "| (h) compile-perf timeline | $th |"
  awk -v f="$tf" -v g="$tg" -v h="$th" 'BEGIN { printf "pass attribution adds %+.0f%%, the timeline %+.0f%% to a report\n", (f > 0) ? (g / f - 1) * 100 : 0, (f > 0) ? (h / f - 1) * 100 : 0 }'
fi
