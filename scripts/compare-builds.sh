#!/usr/bin/env bash
# compare-builds.sh: two builds of compile-perf, one cold report each in turn.
#
# Runs `report FILE --flamegraph OUT.svg -q` with empty caches, alternating
# OLD and NEW --runs times each (so that a machine getting busier or
# quieter weighs on both alike), checks that both wrote the same report,
# and prints each build's median and fastest wall time and median CPU time
# (user + system). A change of a few milliseconds needs 30 runs or more on
# a shared VM: single runs vary by 20%.
#
# Usage: scripts/compare-builds.sh [--runs N] OLD_BINARY NEW_BINARY FILE
#   (make OLD_BINARY with `git worktree add /tmp/old REV` and
#   `cargo build --release` there)
set -euo pipefail

log() { printf 'compare-builds: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

runs=30
if [[ ${1:-} == --runs ]]; then
  runs=${2:?}
  shift 2
fi
(($# == 3)) || die "usage: $0 [--runs N] OLD_BINARY NEW_BINARY FILE"
old=$1 new=$2 file=$3
for binary in "$old" "$new"; do
  [[ -x $binary ]] || die "$binary is not an executable"
done
[[ -e $file ]] || die "$file does not exist"

tmp=$(mktemp -d /tmp/compare-builds.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache

# one SIDE BINARY: a cold report; appends "wall cpu" to $tmp/SIDE.times.
one() {
  local side=$1 binary=$2
  rm -rf "$XDG_CACHE_HOME"
  sync
  local start=$EPOCHREALTIME
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$binary" report "$file" \
    --flamegraph "$tmp/$side.svg" -q > "$tmp/$side.txt" || die "$binary failed on $file"
  local end=$EPOCHREALTIME
  awk -v start="$start" -v end="$end" '{ printf "%.4f %.2f\n", end - start, $1 + $2 }' \
    "$tmp/time" >> "$tmp/$side.times"
}

for ((i = 1; i <= runs; i++)); do
  log "run $i/$runs"
  one old "$old"
  one new "$new"
done
cmp -s "$tmp/old.txt" "$tmp/new.txt" || die "the two builds wrote different reports"

# median COLUMN SIDE: the median of a column of $tmp/SIDE.times.
median() {
  cut -d' ' -f"$1" "$tmp/$2.times" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
summary() {
  printf '| %s | %d | %s | %s | %s |\n' "$1" "$(wc -l < "$tmp/$1.times")" \
    "$(median 1 "$1")" "$(cut -d' ' -f1 "$tmp/$1.times" | sort -n | head -n 1)" "$(median 2 "$1")"
}
echo "| build | runs | median wall s | fastest wall s | median CPU s |"
echo "|---|---:|---:|---:|---:|"
summary old
summary new
