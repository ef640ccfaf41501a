#!/usr/bin/env bash
# fuzz.sh: runs the AFL++ fuzz targets of fuzz/ (afl.rs, stable Rust) for a bounded time each.
#
# Targets (fuzz/targets/):
#   perfdata  the perf.data reader (file and pipe mode, plain and zstd) on arbitrary bytes;
#             seeds: fuzz/seeds/perfdata/ and the recordings in tests/fixtures/ (fuzz-found/ too)
#   rules     the --rules parser (RuleTable::with_user_rules) on arbitrary text;
#             seeds: fuzz/seeds/rules/, dictionary fuzz/rules.dict
#
# Set-up (idempotent): `cargo install cargo-afl` (which builds AFL++ from the source it ships;
# needs a C compiler and make), then `cargo afl build --release` of the workspace member
# fuzz/ into target/afl/ (without debug info, which the release profile otherwise adds).
#
# Each target runs for SECONDS (default 60) from its seeds, in a fresh output directory
# target/fuzz/TARGET/. Then its numbers are printed (execs, execs/s, corpus, edges,
# crashes, hangs). A crash or a hang (an input that runs longer than TIMEOUT_MS, default
# 5000) fails the script, and the log names the saved input and how to replay it.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]      (works from any directory)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'fuzz: %s\n' "$*" >&2; }

CARGO_AFL_VERSION=0.18.2
seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(perfdata rules)
timeout_ms=${TIMEOUT_MS:-5000}

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
if ! cargo afl --version 2>/dev/null | grep -q "^cargo-afl $CARGO_AFL_VERSION "; then
  log "cargo install cargo-afl@$CARGO_AFL_VERSION (builds AFL++ too)"
  started=$SECONDS
  cargo install --locked --force cargo-afl --version "$CARGO_AFL_VERSION" >&2
  log "cargo-afl installed in $((SECONDS - started)) s"
fi

log "cargo afl build --release -p compile-perf-fuzz (into target/afl)"
started=$SECONDS
CARGO_PROFILE_RELEASE_DEBUG=0 cargo afl build --release --locked -p compile-perf-fuzz \
  --target-dir target/afl >&2
log "fuzz targets built in $((SECONDS - started)) s"

# Plain log lines instead of the terminal UI; no CPU-frequency or core-dump-pattern
# checks, which need changes to the machine that a CI job should not make.
export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1

stat_of() { sed -n "s/^$2 *: //p" "$1"; }

failed=0
for target in "${targets[@]}"; do
  work=target/fuzz/$target
  rm -rf "$work"
  mkdir -p "$work/seeds"
  cp "fuzz/seeds/$target"/* "$work/seeds/"
  extra=()
  case "$target" in
    perfdata) cp tests/fixtures/*.perf.data tests/fixtures/fuzz-found/*.perf.data "$work/seeds/" ;;
    rules) extra=(-x fuzz/rules.dict) ;;
    *) log "unknown target $target (known: perfdata, rules)"; exit 2 ;;
  esac
  log "$target: afl-fuzz for $seconds s from $(ls "$work/seeds" | wc -l) seeds (log: $work/afl.log)"
  if ! cargo afl fuzz -V "$seconds" -t "$timeout_ms" "${extra[@]}" \
    -i "$work/seeds" -o "$work/out" "target/afl/release/$target" >"$work/afl.log" 2>&1; then
    tail -n 30 "$work/afl.log" >&2
    log "$target: afl-fuzz failed (log: $work/afl.log)"
    failed=1
    continue
  fi
  stats=$work/out/default/fuzzer_stats
  crashes=$(stat_of "$stats" saved_crashes)
  hangs=$(stat_of "$stats" saved_hangs)
  log "$target: $(stat_of "$stats" execs_done) execs, $(stat_of "$stats" execs_per_sec) execs/s," \
    "corpus $(stat_of "$stats" corpus_count), edges $(stat_of "$stats" edges_found) of" \
    "$(stat_of "$stats" total_edges) ($(stat_of "$stats" bitmap_cvg)), stability" \
    "$(stat_of "$stats" stability), crashes $crashes, hangs $hangs"
  for kind in crashes hangs; do
    for input in "$work/out/default/$kind"/id:*; do
      [ -e "$input" ] || continue
      log "$target: $kind input saved: $input (replay: target/afl/release/$target < '$input')"
      failed=1
    done
  done
done
exit "$failed"
