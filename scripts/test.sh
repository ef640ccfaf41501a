#!/usr/bin/env bash
# test.sh: the one command that runs every test, on a fresh Debian machine or an old one.
#
# 1. Set-up (idempotent; installs only what is missing, so run it as root on a fresh machine):
#    - a Rust toolchain with rustfmt and clippy (rustup, minimal profile), if there is no cargo;
#    - scripts/setup.sh: perf (linux-perf), /usr/bin/time, the venv .venv with
#      iree-base-compiler, and `cargo build --release`;
#    - g++ and nm (binutils), which the live tests use, and glibc's symbols (libc6-dbg),
#      which name the thread entry functions that `-g` stacks end in;
#    - make, which scripts/fuzz.sh needs to build AFL++;
#    - the viewers the export tests read exports with: golang-go (`go tool pprof`),
#      chromium (the HTML report, headless) and npm, with the `speedscope` package
#      (its file-format schema) installed under target/tmp/speedscope;
#    - scripts/models.sh bert-mlm-2l: a real PyTorch model exported to MLIR, with the
#      models venv (torch, transformers) in ~/.cache/compile-perf/models.
# 2. Checks: scripts/check-structure.py (imports as ARCHITECTURE.md's table allows,
#    every module and path it names exists; no two modules import each other, directly
#    or in a circle; no source file over 500 lines), scripts/check-links.py (every
#    relative link and #anchor of README.md,
#    CHANGELOG.md and the Markdown under docs/, flamegraphs/ and examples/ resolves,
#    and no page under docs/ is over 30 KB),
#    `cargo fmt --all --check`, `cargo clippy --workspace --all-targets --release
#    -- -D warnings` (compile-perf and the fuzz targets of fuzz/),
#    `cargo test --release` of compile-perf and its crates (perfdata,
#    category-rules). Outside CI test output is shown (--show-output): the live
#    tests print their agreement tables against perf report and the unwinding
#    rates. Under CI only failing tests print, so that a failure's message is the
#    first test output in the log.
# 3. The wheel and fuzzing (only when no test filter is given): scripts/test-wheel.sh
#    builds the wheel (scripts/wheel.sh, maturin from PyPI in target/tmp/maturin-venv),
#    installs it with iree-base-compiler into a fresh venv and records the example with
#    it, without cargo on PATH, against the cargo build's report; scripts/fuzz.sh runs
#    each fuzz target for 60 s (FUZZ_SECONDS); a crash or hang fails, and the log says
#    where the input is.
#
# With CI=true (as CI sets it) the live tests fail instead of skipping when perf or
# iree-compile is missing, Cargo.lock must be up to date (--locked), and every test
# target runs even after a failure (--no-fail-fast).
#
# Usage: scripts/test.sh [TEST-NAME-FILTER...]   (works from any directory)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'test: %s\n' "$*" >&2; }
ci=false
case "${CI:-}" in true | TRUE | True | 1) ci=true ;; esac

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else log "need root to install: $*"; exit 1; fi
}
apt_updated=0
apt_install() {
  if ((!apt_updated)); then as_root apt-get update -qq >&2; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" >&2
}

# 1a. Rust (scripts/setup.sh needs cargo; Debian's rustc is too old for edition 2024).
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
if ! command -v cargo >/dev/null; then
  log "installing Rust with rustup"
  command -v curl >/dev/null || apt_install curl ca-certificates
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
    sh -s -- -y --no-modify-path --profile minimal -c rustfmt -c clippy >&2
fi
if command -v rustup >/dev/null; then
  installed=$(rustup component list --installed 2>/dev/null || true)
  for component in rustfmt clippy; do
    grep -q "^$component" <<<"$installed" || rustup component add "$component" >&2
  done
fi

# 1b. perf, time, the venv, the release build.
bash scripts/setup.sh

# 1c. The live tests build small C++ programs (g++), check symbol aliases with nm, and
# need glibc's symbol table; AFL++ (scripts/fuzz.sh) builds with make; the history
# tests start a throwaway PostgreSQL cluster (scripts/postgres.sh, Debian's postgresql).
pkgs=()
command -v g++ >/dev/null || pkgs+=(g++)
command -v nm >/dev/null || pkgs+=(binutils)
command -v make >/dev/null || pkgs+=(make)
dpkg-query -W -f '${Status}' libc6-dbg 2>/dev/null | grep -q 'ok installed' || pkgs+=(libc6-dbg)
command -v go >/dev/null || pkgs+=(golang-go)
command -v chromium >/dev/null || pkgs+=(chromium)
command -v npm >/dev/null || pkgs+=(npm)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || pkgs+=(postgresql)
if ((${#pkgs[@]})); then
  log "installing ${pkgs[*]}"
  apt_install "${pkgs[@]}"
fi

# 1d. speedscope's schema, where tests/common/viewers.rs looks for it (the version it names).
speedscope_version=$(sed -n 's/^pub(crate) const SPEEDSCOPE_VERSION: &str = "\(.*\)";/\1/p' tests/common/viewers.rs)
if [ ! -f target/tmp/speedscope/node_modules/speedscope/dist/release/file-format-schema.json ]; then
  log "installing speedscope@$speedscope_version (npm) into target/tmp/speedscope"
  npm install --no-audit --no-fund --silent --prefix target/tmp/speedscope "speedscope@$speedscope_version" >&2
fi

# 1e. A real model for the live tests on real models (tests/live_consteval.rs): its own
# venv of torch, transformers and iree-base-compiler (about 6 GB, installed once, in the
# cache outside the repository) and a two-layer BertForMaskedLM exported to MLIR.
log "scripts/models.sh bert-mlm-2l (the models venv is installed once)"
bash scripts/models.sh bert-mlm-2l >/dev/null

log "CI=$ci; $(cargo --version); $(perf --version); $(.venv/bin/iree-compile --version 2>&1 | sed -n 's/^ *IREE compiler version/iree-compile/p'); $(nproc) cores"

# 2. The checks.
locked=()
fail_fast=()
show_output=(--show-output)
if [ "$ci" = true ]; then
  locked=(--locked)
  fail_fast=(--no-fail-fast)
  show_output=()
fi
log "scripts/check-links.py (relative links and anchors of the documentation, no docs page over 30 KB)"
python3 scripts/check-links.py
log "scripts/check-structure.py (imports as ARCHITECTURE.md allows, no import circle, no file over 500 lines)"
python3 scripts/check-structure.py
log "cargo fmt --all --check"
cargo fmt --all --check
log "cargo clippy --workspace --all-targets --release -- -D warnings"
cargo clippy "${locked[@]}" --workspace --all-targets --release -- -D warnings
log "cargo test --release -p compile-perf -p perfdata -p category-rules"
cargo test "${locked[@]}" "${fail_fast[@]}" --release -p compile-perf -p perfdata -p category-rules -- "${show_output[@]}" "$@"
# A run filtered to some tests is a quick check; the sweep and fuzzing belong to full runs.
if (($# == 0)); then
  log "scripts/sweep.py (damaged copies of the fixtures: no panic, abort, hang or silent loss)"
  python3 scripts/sweep.py --mutations 1000 --cuts 40
  log "scripts/test-wheel.sh (the wheel in a fresh venv against the cargo build)"
  bash scripts/test-wheel.sh
  log "scripts/fuzz.sh ${FUZZ_SECONDS:-60}"
  bash scripts/fuzz.sh "${FUZZ_SECONDS:-60}"
fi
log "all tests passed"
