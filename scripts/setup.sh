#!/usr/bin/env bash
# setup.sh: idempotent set-up of a fresh Debian machine (run as root) for compile-perf.
#
# Installs what is missing and skips what is there:
#   - perf (Debian package linux-perf) and GNU time (/usr/bin/time), with one `apt-get update`;
#   - the project-local venv .venv with iree-base-compiler==$IREE_VERSION (gives iree-compile)
#     and zstandard==$ZSTANDARD_VERSION (the independent decoder of scripts/zstd-check.py);
#   - `cargo build --release` (target/release/compile-perf, and beside it
#     libheap_sampler.so, which `record --heap` preloads).
# With --bench it also installs inferno-collapse-perf (`cargo install inferno --locked`)
# and samply (`cargo install samply --locked`), which scripts/bench.sh compares against.
#
# Usage: scripts/setup.sh [--bench]      (works from any directory)
set -euo pipefail

IREE_VERSION=3.13.0
ZSTANDARD_VERSION=0.25.0
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'setup: %s\n' "$*" >&2; }

bench=0
case "${1:-}" in
  --bench) bench=1 ;;
  "") ;;
  *) echo "usage: scripts/setup.sh [--bench]" >&2; exit 2 ;;
esac

# 1. System packages, only if something is missing (so apt-get update runs at most once).
pkgs=()
command -v perf >/dev/null || pkgs+=(linux-perf)
[ -x /usr/bin/time ] || pkgs+=(time)
command -v python3 >/dev/null || pkgs+=(python3)
python3 -c 'import ensurepip, venv' 2>/dev/null || pkgs+=(python3-venv)
if ((${#pkgs[@]})); then
  log "installing ${pkgs[*]}"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >&2
else
  log "perf, /usr/bin/time and python3-venv present"
fi

# 2. The venv with iree-compile.
have=$(.venv/bin/python -m pip show iree-base-compiler 2>/dev/null | sed -n 's/^Version: //p' || true)
if [ "$have" = "$IREE_VERSION" ]; then
  log "venv .venv has iree-base-compiler $have"
else
  [ -x .venv/bin/python ] || { log "creating .venv"; python3 -m venv .venv; }
  log "installing iree-base-compiler==$IREE_VERSION into .venv (was: ${have:-none})"
  .venv/bin/python -m pip install -q --disable-pip-version-check "iree-base-compiler==$IREE_VERSION" >&2
fi
.venv/bin/iree-compile --version >/dev/null
if .venv/bin/python -c 'import zstandard' 2>/dev/null; then
  log "venv .venv has zstandard"
else
  log "installing zstandard==$ZSTANDARD_VERSION into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check "zstandard==$ZSTANDARD_VERSION" >&2
fi

# 3. Rust build.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
command -v cargo >/dev/null || { log "cargo not found: install a Rust toolchain (rustup) first"; exit 1; }
log "cargo build --release"
cargo build --release

# 4. Optional benchmark baseline.
if ((bench)); then
  if command -v inferno-collapse-perf >/dev/null; then
    log "inferno-collapse-perf present"
  else
    log "cargo install inferno --locked"
    cargo install inferno --locked
  fi
  if samply --version 2>/dev/null | grep -qF 0.13.1; then
    log "samply present"
  else
    log "cargo install samply --locked --version 0.13.1"
    cargo install samply --locked --version 0.13.1
  fi
fi
log "done"
