#!/usr/bin/env bash
# man.sh: regenerates the man pages in man/ from the command line's definitions.
#
# Builds the release binary (cargo build --release; CARGO_TARGET_DIR is honoured),
# then writes `compile-perf man` to man/compile-perf.1 and `compile-perf man CMD`
# to man/compile-perf-CMD.1 for every command `compile-perf --help` lists. Pages of
# commands that are gone are removed. tests/cli_help.rs fails when the committed
# pages differ from what the binary prints: run this, then commit man/.
#
# Usage: scripts/man.sh   (works from any directory)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'man: %s\n' "$*" >&2; }

cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-target}/release/compile-perf

# The commands of the "Commands:" section of --help, without `help`.
commands=$(COLUMNS=100 "$bin" --help |
  awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }' |
  grep -vx help)

mkdir -p man
rm -f man/*.1
"$bin" man >man/compile-perf.1
for command in $commands; do
  "$bin" man "$command" >"man/compile-perf-$command.1"
done
log "wrote man/compile-perf.1 and $(wc -w <<<"$commands") command pages"
