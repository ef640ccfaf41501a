#!/usr/bin/env bash
# scale-curve.sh: how a cold `report --flamegraph` grows with the samples of a
# recording: wall time, CPU time and peak RSS against samples, as a Markdown
# table on stdout (docs/measurements/scale.md holds the measured curve).
#
# Each RECORDING is a perf.data file or a `perf record --threads` directory.
# With --repeat K, a directory recording is also read with its streams
# repeated K times (data.0 … data.N copied K times into a new directory
# beside the header file): the same compile's records K times over, each
# copy at the same times, so the samples grow K-fold from real streams.
# --repeat K1,K2,… reads it once for each of them, a row each.
# Every report runs with empty caches ($XDG_CACHE_HOME is a new temp dir).
# With --jobs N, each report runs with `--jobs N` (default: the cores).
#
# Usage: scripts/scale-curve.sh [--repeat K[,K…]] [--jobs N] RECORDING...
# Environment: COMPILE_PERF (default target/release/compile-perf).
set -euo pipefail
here=$PWD
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'scale-curve: %s\n' "$*" >&2; }
bin=${COMPILE_PERF:-$PWD/target/release/compile-perf}
[ -x "$bin" ] || { log "$bin missing: run scripts/setup.sh"; exit 2; }
repeat=1
jobs=()
recordings=()
while (($#)); do
  case "$1" in
    --repeat) repeat=${2:?}; shift ;;
    --jobs) jobs=(--jobs "${2:?}"); shift ;;
    -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
    *) [[ $1 = /* ]] && recordings+=("$1") || recordings+=("$here/$1") ;;
  esac
  shift
done
((${#recordings[@]})) || { log "name at least one recording"; exit 2; }
[[ $repeat =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { log "--repeat needs positive integers, comma-separated"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One cold report of $1: prints "samples MB wall cpu rss_mb".
measure() {
  local recording=$1 cache
  cache=$(mktemp -d -p "$tmp")
  sync
  XDG_CACHE_HOME=$cache /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
    "$bin" report "$recording" "${jobs[@]}" --flamegraph "$tmp/out.svg" --format json -q >"$tmp/report.json"
  rm -rf "$cache"
  local samples mb
  samples=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples"])' "$tmp/report.json")
  mb=$(du -sbLl "$recording" | awk '{ printf "%.1f", $1 / 1e6 }')
  read -r wall user sys rss <"$tmp/time"
  awk -v s="$samples" -v mb="$mb" -v w="$wall" -v u="$user" -v k="$sys" -v r="$rss" \
    'BEGIN { printf "%d %s %.2f %.2f %.0f\n", s, mb, w, u + k, r / 1024 }'
}

# A directory with the streams of directory $1 repeated $2 times.
repeated() {
  local dir=$1 times=$2 out n=0
  out=$(mktemp -d -p "$tmp" repeated.XXXXXX)
  cp "$dir/data" "$out/data"
  for ((copy = 0; copy < times; copy++)); do
    for stream in "$dir"/data.*; do
      # A new name each time; a copy where a hard link cannot be made.
      ln "$stream" "$out/data.$n" 2>/dev/null || cp "$stream" "$out/data.$n"
      n=$((n + 1))
    done
  done
  echo "$out"
}

echo "| recording | samples | MB | wall s | CPU s | peak RSS MB | µs CPU per sample |"
echo "|---|---:|---:|---:|---:|---:|---:|"
row() {
  local name=$1 recording=$2
  log "reporting $name"
  read -r samples mb wall cpu rss < <(measure "$recording")
  awk -v n="$name" -v s="$samples" -v mb="$mb" -v w="$wall" -v c="$cpu" -v r="$rss" \
    'BEGIN { printf "| %s | %d | %s | %.2f | %.2f | %d | %.1f |\n", n, s, mb, w, c, r, 1e6 * c / s }'
}
for recording in "${recordings[@]}"; do
  row "$(basename "$(dirname "$recording")")/$(basename "$recording")" "$recording"
  [ -d "$recording" ] || continue
  for times in ${repeat//,/ }; do
    ((times > 1)) || continue
    copies=$(repeated "$recording" "$times")
    row "$(basename "$(dirname "$recording")")/$(basename "$recording") ×$times" "$copies"
    rm -rf "$copies"
  done
done
